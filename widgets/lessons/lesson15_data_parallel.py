"""Lesson 15's checks: gradient averaging and the ring all-reduce on thread ranks, and a bounded MPI launch.

    check_function("gradient averaging", averaging_on_ranks(average_gradients),
                   averaging_on_ranks(reference_average), cases=[(2,), (3,), (4,)], compare=averaging_hint)
    check_function("ring all-reduce", ring_on_ranks(ring_allreduce), ring_on_ranks(reference_ring),
                   cases=RING_CASES, compare=ring_hint)
    output = launch(script, n=2, timeout=120)   # rank 0's stdout, or None after saying what went wrong

Each rank's ``comm`` records the calls made on it, so a hint can say more than the values
do: a ring built on ``comm.allreduce``, ``send`` then ``recv`` (the deadlock of the text), the
wrong number of steps. The inputs are kept, so averaging in place is caught too.
``describe_averaging_case`` and ``describe_ring_case`` name the cases in the tables.
"""

import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from minitorch.distributed.threads import run_ranks
from widgets.check.check_result import format_value
from widgets.check.function_checker import same
from widgets.check.mistakes import constant_factor
from widgets.i18n import _

COLLECTIVES = ("allreduce", "Allreduce", "reduce", "Reduce", "allgather", "Allgather", "bcast", "Bcast")


class RecordingComm:
    """A rank's ``comm`` that notes the name of every method called on it (``calls``)."""

    def __init__(self, comm: Any) -> None:
        self._comm = comm
        self.rank, self.size = comm.rank, comm.size
        self.calls: list[str] = []
        self.destinations: list[Any] = []  # where each send / sendrecv went: the ring's direction

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._comm, name)
        if not callable(value):
            return value

        def recorded(*args: Any, **kwargs: Any) -> Any:
            self.calls.append(name)
            if name in ("send", "sendrecv"):
                self.destinations.append(kwargs.get("dest", args[1] if len(args) > 1 else None))
            return value(*args, **kwargs)
        return recorded


class RankRun:
    """What the ranks returned, the calls each made, and whether an input array changed.

    ``probe``: the same function on one more rank (the averaging), to tell mistakes apart
    that look alike on 2 ranks; ``wrong_way``: the ring sent every message to the left.
    """

    def __init__(self, values: list[Any], calls: list[list[str]], inputs_changed: bool,
                 probe: "RankRun | None" = None, wrong_way: bool = False) -> None:
        self.values, self.calls, self.inputs_changed = values, calls, inputs_changed
        self.probe, self.wrong_way = probe, wrong_way

    def __repr__(self) -> str:
        return format_value(self.values)


def _leftwards(comms: list["RecordingComm"]) -> bool:
    """True when, on 3 or more ranks, every message went to the left neighbour (rank - 1)."""
    sent = [(c.rank, c.size, d) for c in comms for d in c.destinations]
    return bool(sent) and sent[0][1] > 2 and all(d == (rank - 1) % size for rank, size, d in sent)


def _on_ranks(fn: Callable[..., Any], inputs: list[Any]) -> RankRun:
    """``fn(comm, inputs[r])`` on every rank r, with recording comms; the inputs compared afterwards.

    A run that raised after sending every message leftwards is returned (``wrong_way``), not
    raised: the error is a consequence (chunks of different sizes meet), the direction the cause.
    """
    kept = [[np.array(a) for a in x] if isinstance(x, list) else np.array(x) for x in inputs]
    comms: list[RecordingComm] = []

    def on_rank(comm: Any, x: Any) -> Any:
        recording = RecordingComm(comm)
        comms.append(recording)
        return fn(recording, x)
    try:
        values = run_ranks(on_rank, inputs)
    except Exception:
        if not _leftwards(comms):
            raise
        return RankRun([None] * len(inputs), [c.calls for c in sorted(comms, key=lambda c: c.rank)], False,
                       wrong_way=True)
    changed = any(not np.array_equal(np.asarray(k, dtype=float), np.asarray(x, dtype=float))
                  for before, now in zip(kept, inputs)
                  for k, x in (zip(before, now) if isinstance(before, list) else [(before, now)]))
    calls = [c.calls for c in sorted(comms, key=lambda c: c.rank)]
    return RankRun(values, calls, changed, wrong_way=_leftwards(comms))


# ---------------------------------------------------------------------- exercise 1: average the gradients
def reference_average(comm: Any, grads: list[np.ndarray]) -> list[np.ndarray]:
    """Every gradient summed over the ranks and divided by their number."""
    return [comm.allreduce(g) / comm.size for g in grads]


def rank_gradients(n_ranks: int) -> list[list[np.ndarray]]:
    """Rank r's gradients: a (3, 2) weight and a (2,) bias, different on every rank."""
    rng = np.random.default_rng(n_ranks)
    return [[rng.normal(size=(3, 2)), rng.normal(size=2)] for _ in range(n_ranks)]


def averaging_on_ranks(fn: Callable[..., Any]) -> Callable[[int], RankRun]:
    """``run(n_ranks)``: ``fn(comm, grads)`` on ``n_ranks`` thread ranks (and, as a probe, on one more)."""
    def run(n_ranks: int) -> RankRun:
        result = _on_ranks(fn, rank_gradients(n_ranks))
        try:
            result.probe = _on_ranks(fn, rank_gradients(n_ranks + 1))
        except Exception:  # the probe only sharpens a hint; the run above is what is judged
            pass
        return result
    return run


def _divisor(got: list[Any], n: int) -> float | None:
    """What every rank divided the sum of ``n`` ranks' gradients by (None if not one number)."""
    expected = [[g / n for g in grads] for grads in _sums(n)]
    try:
        factors = [constant_factor(np.concatenate([np.ravel(a) for a in g]), np.concatenate([np.ravel(a) for a in e]))
                   for g, e in zip(got, expected)]
    except (TypeError, ValueError):
        return None
    divisors = {round(n / c, 6) for c in factors if c is not None}
    return divisors.pop() if len(divisors) == 1 and None not in factors else None


def _sums(n: int) -> list[list[np.ndarray]]:
    """Every rank's view of the summed gradients of ``n`` ranks."""
    grads = rank_gradients(n)
    total = [np.sum([g[k] for g in grads], axis=0) for k in range(len(grads[0]))]
    return [total for _ in range(n)]


def averaging_hint(run: RankRun, expected_run: RankRun) -> tuple[bool, str]:
    """``compare`` for the averaging: what a wrong (or in-place) average did."""
    got, expected = run.values, expected_run.values
    ok, hint = same(got, expected)
    if ok and run.inputs_changed:
        return False, _("the values are right, but you averaged in place: the arrays in grads changed. Return "
                        "new arrays (comm.allreduce(g) / comm.size) and leave this rank's own gradients as they were")
    if ok:
        return ok, hint
    n = len(expected)
    inputs = rank_gradients(n)
    if not all(isinstance(g, list) for g in got):
        kinds = sorted({type(g).__name__ for g in got if not isinstance(g, list)})
        return False, _("returned a {types}: return a list of arrays (write [... for g in grads])",
                        types=", ".join(kinds))
    probe = run.probe.values if run.probe is not None else None
    if probe is not None and _divisor(probe, n + 1) == n and (n == 2 or _divisor(got, n) == n - 1):
        return False, _("you divided the sum by comm.size - 1 ({d} here): divide by comm.size ({n})", d=n - 1, n=n)
    if same(got, [[g * n for g in grads] for grads in expected])[0]:
        return False, _("you summed but forgot to divide by the world size (comm.size = {n})", n=n)
    if same(got, inputs)[0]:
        return False, _("each rank kept its own gradients: all-reduce them first (comm.allreduce)")
    if same(got, [[g / n for g in grads] for grads in inputs])[0]:
        return False, _("you divided by the world size but never all-reduced (comm.allreduce sums over ranks)")
    n_arrays = len(expected[0])
    if any(len(g) != len(e) for g, e in zip(got, expected)):
        return False, _("returned {got} array(s) for {n} gradients: "
                        "return one averaged array per array in grads", got=len(got[0]), n=n_arrays)
    right_on_all_ranks = [all(same(g[k], e[k])[0] for g, e in zip(got, expected)) for k in range(n_arrays)]
    if any(right_on_all_ranks):
        right = [str(k) for k, ok in enumerate(right_on_all_ranks) if ok]
        wrong = [str(k) for k, ok in enumerate(right_on_all_ranks) if not ok]
        return False, _("gradient {right} is right but gradient {wrong} is not: "
                        "average every array in grads", right=", ".join(right), wrong=", ".join(wrong))
    factors = [constant_factor(np.concatenate([np.ravel(a) for a in g]), np.concatenate([np.ravel(a) for a in e]))
               for g, e in zip(got, expected)]
    if all(c is not None for c in factors):
        divisors = [n / c for c in factors if c is not None]
        if len({round(d, 6) for d in divisors}) > 1:
            shown = ", ".join(_("rank {rank} by {divisor:.3g}", rank=r, divisor=d) for r, d in enumerate(divisors))
            hint = _("each rank divided the sum by a different number ({shown}): did you divide by comm.rank + 1? "
                     "Every rank divides by comm.size ({n})", shown=shown, n=n)
            return False, hint
        return False, _("every gradient is {factor:.3g} times the average: you divided the sum by "
                        "{divisor:.3g}; divide by comm.size ({n})", factor=factors[0], divisor=divisors[0], n=n)
    return False, hint


# ---------------------------------------------------------------------- exercise 2: the ring all-reduce
RING_CASES = [(2, 6), (3, 7), (4, 10), (4, 3)]


def reference_ring(comm: Any, x: np.ndarray) -> np.ndarray:
    """The sum over the ranks of ``x``, by a reduce-scatter then an all-gather around the ring."""
    rank, size = comm.rank, comm.size
    right, left = (rank + 1) % size, (rank - 1) % size
    chunks = [c.copy() for c in np.array_split(x, size)]
    for s in range(size - 1):
        received = comm.sendrecv(chunks[(rank - s) % size], dest=right, source=left)
        chunks[(rank - s - 1) % size] = chunks[(rank - s - 1) % size] + received
    for s in range(size - 1):
        chunks[(rank - s) % size] = comm.sendrecv(chunks[(rank + 1 - s) % size], dest=right, source=left)
    return np.concatenate(chunks)


def ring_inputs(n_ranks: int, length: int) -> list[np.ndarray]:
    """Rank r's array is 2**r times one weight vector, so a sum shows which ranks it holds (its bits)."""
    weights = 1 + np.arange(length) / length
    return [2.0 ** r * weights for r in range(n_ranks)]


def ring_on_ranks(fn: Callable[..., Any]) -> Callable[[int, int], RankRun]:
    """``run(n_ranks, length)``: ``fn(comm, x)`` on ``n_ranks`` thread ranks."""
    return lambda n_ranks, length: _on_ranks(fn, ring_inputs(n_ranks, length))


def _calls_hint(calls: list[list[str]], size: int) -> str:
    """'' or what the calls say: a collective instead of the ring, send then recv, the wrong number of steps."""
    used = sorted({name for rank in calls for name in rank if name in COLLECTIVES})
    if used:
        return _("you called comm.{name}: the exercise builds the all-reduce itself, from comm.sendrecv "
                 "steps around the ring (a collective does it for you, so nothing is learned)", name=used[0])
    first = [next((n for n in rank if n in ("send", "recv", "sendrecv")), None) for rank in calls]
    if size > 1 and all(f == "send" for f in first):
        return _("every rank calls comm.send before comm.recv: with real MPI a large send waits for its recv, so "
                 "every rank waits for its neighbour forever: the deadlock the text warns about (here the thread "
                 "ranks buffer messages, so it seemed to work). Use comm.sendrecv")
    steps = [sum(1 for n in rank if n in ("sendrecv", "send")) for rank in calls]
    want = 2 * (size - 1)
    wrong = [r for r, s in enumerate(steps) if s != want]
    if wrong:
        return _("rank {rank} made {steps} ring step(s), expected {want}: each phase runs size - 1 "
                 "steps (size = {size})", rank=wrong[0], steps=steps[wrong[0]], want=want, size=size)
    return ""


def ring_hint(run: RankRun, expected_run: RankRun) -> tuple[bool, str]:
    """``compare`` for the ring: the calls first (collective, deadlock, steps), then what the sums hold."""
    got, expected = run.values, expected_run.values
    n = len(expected)
    if run.wrong_way and not same(got, expected)[0]:  # a mirrored ring that sums right is right too
        return False, _("the ring runs the wrong way: every rank sent to its left neighbour. Send to the right "
                        "(dest=right, rank + 1) and receive from the left (source=left): the chunk indices "
                        "(rank - s) % size follow the data around the ring in that direction")
    calls = _calls_hint(run.calls, n)
    if calls:
        return False, calls
    if any(isinstance(g, (list, tuple)) for g in got):
        return False, _("a rank returned a list of chunks: return one array (np.concatenate(chunks))")
    ok, hint = same(got, expected)
    if ok or len(got) != len(expected):
        return ok, hint
    try:
        masks = [np.asarray(g, dtype=float) / ring_inputs(1, len(expected[0]))[0] for g in got]
    except Exception:
        return ok, hint
    full = 2 ** n - 1
    if any(m.shape != expected[0].shape for m in masks):
        return False, hint
    if all(np.allclose(np.asarray(g) * n, e) for g, e in zip(got, expected)):
        return False, _("you divided by the world size ({n}): an all-reduce returns the sum", n=n)
    integral = all(np.allclose(m, np.round(m)) for m in masks)
    if integral and max(float(np.round(m).max()) for m in masks) > full:
        return False, _("some chunks hold more than the sum of the {n} ranks: the all-gather must replace its "
                        "chunk with the one it receives (chunks[i] = received), not add to it", n=n)
    if not (integral and all(np.round(m).min() >= 1 for m in masks)):
        return False, _("some chunks ended up at another chunk's position: a chunk index is off by one. "
                        "Reduce-scatter sends chunk (rank - s) % size and adds into (rank - s - 1) % size; the "
                        "all-gather sends chunk (rank + 1 - s) % size and stores into (rank - s) % size")
    if all(np.allclose(m, 2 ** r) for r, m in enumerate(masks)):
        return False, _("every rank still has only its own data: nothing was added (use the chunks you receive)")
    partial = sorted({int(v) for m in masks for v in np.round(m).ravel() if v != full})
    return False, _("some chunks hold only part of the sum ({partial} of {full}): "
                    "reduce-scatter adds what it receives into chunk (rank - s - 1) % size, and the all-gather "
                    "sends the complete chunk (rank + 1 - s) % size", partial=", ".join(map(str, partial[:4])),
                    full=full)


# ---------------------------------------------------------------------- running a script under MPI
MPIEXEC = Path(sys.executable).parent / "mpiexec"


def launch(script: str, n: int = 2, timeout: float = 120) -> str | None:
    """Run ``script`` on ``n`` MPI ranks for at most ``timeout`` seconds: rank 0's stdout, or None.

    Whatever stops it is printed: mpiexec missing, the time limit (every rank is killed,
    and the likely cause named), or a rank's error.
    """
    if not MPIEXEC.exists():
        print(_('mpiexec not found: pip install "mpi4py>=4" "mpich>=4" (or make setup), then rerun this cell'))
        return None
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "script.py"
        path.write_text(script)
        env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
        proc = subprocess.Popen([str(MPIEXEC), "-n", str(n), sys.executable, str(path)], cwd=folder, env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)  # mpiexec and every rank: they share its session
            proc.communicate()
            print(_("stopped after {timeout:g} s, still running: every rank was killed. If your ring passed the "
                    "check, this is most likely the deadlock the text warned about: each rank blocked in a send "
                    "(or recv) that waits for its neighbour, which waits too. Use comm.sendrecv for every step. "
                    "The cells below have no measurements to show.", timeout=timeout))
            return None
    if proc.returncode != 0:
        print(_("the MPI run failed (exit code {code}); the end of its error output:\n{error}", code=proc.returncode,
                error=err[-2000:]))
        return None
    return out


def describe_averaging_case(args: tuple[Any, ...]) -> str:
    """The table's name for a case ``(n_ranks,)`` of the averaging check."""
    return _("{n} ranks", n=args[0])


def describe_ring_case(args: tuple[Any, ...]) -> str:
    """The table's name for a case ``(n_ranks, length)`` of the ring check."""
    return _("{n} ranks, {length} numbers", n=args[0], length=args[1])
