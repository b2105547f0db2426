"""Lesson 18's third check: one ZeRO-1 step (shard, update, broadcast) of Adam, on thread ranks.

    check_function("ZeRO-1 step", zero_on_ranks(zero1_step), zero_on_ranks(reference_zero1_step),
                   cases=ZERO_CASES, compare=zero_hint, describe=describe_zero_case)

Every rank holds the same parameters (a list of arrays) and the same averaged gradients;
parameter i belongs to rank ``i % size``. The learner's ``zero1_step(comm, params, grads,
states, lr)`` updates its own parameters with ``adam_update`` (keeping their Adam state in
``states``, a dict by parameter index) and then broadcasts every parameter from its owner.
``zero_on_ranks`` runs three steps on each rank, with ``lr=LR`` (not the default, so an
ignored ``lr`` shows) and one parameter whose gradients are tiny (there Adam's ``eps``
matters, so gradients divided once more by the world size show: elsewhere Adam does not
see a gradient's scale). It keeps the final values of the arrays it passed (the model's
parameters), which parameters' state each rank kept (and its bytes), each rank's calls,
which parameters a rank changed that it does not own before its first collective, and
which list entries were replaced by new arrays. So ``zero_hint`` can name the mistake: state
kept for every parameter, kept under other keys or started afresh each step, a broadcast
missing, from the wrong rank or skipped by the root, parameters summed by an all-reduce,
an update that was not in place, other ranks' parameters updated, ``lr`` ignored, the
gradients divided again.
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from minitorch.distributed.threads import run_ranks
from widgets import style
from widgets.check.function_checker import same
from widgets.i18n import _
from widgets.lessons.lesson18_ranks import COLLECTIVES, Call, RecordingComm, disagreement

SHAPES = [(4, 3), (4,), (3, 4), (3,), (2, 2)]  # the model's parameters
STEPS = 3
LR = 0.05  # the check's learning rate: not zero1_step's default
TINY = 3  # the parameter whose gradients are about 1e-7, comparable to Adam's eps
ZERO_CASES = [(2,), (3,), (4,)]


def adam_state(p: np.ndarray) -> dict[str, Any]:
    """A new parameter's Adam state: no steps yet, both moments zero."""
    return {"step": 0, "m": np.zeros_like(p), "v": np.zeros_like(p)}


def adam_update(p: np.ndarray, g: np.ndarray, state: dict[str, Any], lr: float = 0.01,
                betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8) -> None:
    """One Adam step of ``p`` in place (PyTorch's formula), updating ``state``.

    A gradient or a state of another shape than ``p`` is another parameter's: that is said
    here, rather than by NumPy's broadcasting error (or silently, where the shapes broadcast).
    """
    if np.shape(g) != np.shape(p):
        raise ValueError(_("adam_update: the gradient has shape {g} but the parameter {p}: is it another parameter's "
                           "gradient? Pass params[i] with grads[i]", g=style.fmt_shape(np.shape(g)),
                           p=style.fmt_shape(np.shape(p))))
    if np.shape(state["m"]) != np.shape(p):
        raise ValueError(_("adam_update: this state's moments have shape {m} but the parameter {p}: is it another "
                           "parameter's state? Keep one state per parameter, states[i]",
                           m=style.fmt_shape(np.shape(state["m"])), p=style.fmt_shape(np.shape(p))))
    state["step"] += 1
    state["m"] = betas[0] * state["m"] + (1 - betas[0]) * g
    state["v"] = betas[1] * state["v"] + (1 - betas[1]) * g * g
    m_hat = state["m"] / (1 - betas[0] ** state["step"])
    v_hat = state["v"] / (1 - betas[1] ** state["step"])
    p -= lr * m_hat / (np.sqrt(v_hat) + eps)


def reference_zero1_step(comm: Any, params: list[np.ndarray], grads: list[np.ndarray], states: dict[int, Any],
                         lr: float = 0.01) -> None:
    """Update this rank's parameters (i % size == rank), keeping their state only; broadcast each from its owner."""
    for i, (p, g) in enumerate(zip(params, grads)):
        if i % comm.size == comm.rank:
            adam_update(p, g, states.setdefault(i, adam_state(p)), lr)
    for i, p in enumerate(params):
        p[...] = comm.bcast(p, root=i % comm.size)


def model(seed: int = 0) -> tuple[list[np.ndarray], list[list[np.ndarray]]]:
    """The parameters, and the averaged gradients of each of the ``STEPS`` steps (parameter ``TINY``'s tiny)."""
    rng = np.random.default_rng(seed)
    params = [rng.normal(size=shape) for shape in SHAPES]
    grads = [[rng.normal(size=shape) * (1e-7 if i == TINY else 1.0) for i, shape in enumerate(SHAPES)]
             for _ in range(STEPS)]
    return params, grads


def one_process_adam(steps: int = STEPS, lr: float = LR, scale: float = 1.0, restart: bool = False) -> list[np.ndarray]:
    """The parameters after ``steps`` steps of plain Adam in one process (what every rank must hold).

    ``scale`` multiplies the gradients and ``restart`` starts Adam's state afresh at every
    step: two usual mistakes, replayed to be recognised.
    """
    params, grads = model()
    states = [adam_state(p) for p in params]
    for step in grads[:steps]:
        for i, (p, g) in enumerate(zip(params, step)):
            if restart:
                states[i] = adam_state(p)
            adam_update(p, g * scale, states[i], lr)
    return params


@dataclass
class ZeroRun:
    """Each rank's final parameters, the keys (and bytes) of the state it kept, its calls, and what else it did.

    ``params`` are the arrays the check passed in (the model's parameters), ``listed`` what the
    list held at the end; ``touched`` the parameters a rank changed, though another rank owns
    them, before its first collective call of a step; ``problem`` why the ranks stopped, when
    they did not make the same collective calls.
    """

    params: list[list[np.ndarray]]
    kept: list[list[Any]]
    state_bytes: list[int]
    calls: list[list[Call]]
    listed: list[list[Any]] = field(default_factory=list)
    touched: list[list[int]] = field(default_factory=list)
    problem: str = ""

    def __repr__(self) -> str:
        return self.problem or _("state kept per rank: {kept}", kept=self.kept)


def zero_on_ranks(fn: Callable[..., Any]) -> Callable[[int], ZeroRun]:
    """``run(ranks)``: ``STEPS`` calls of ``fn(comm, params, grads, states, LR)`` on each of ``ranks`` thread ranks."""

    def run(ranks: int) -> ZeroRun:
        params, grads = model()
        comms: list[RecordingComm] = []

        def on_rank(comm: Any, _unused: Any) -> Any:
            mine = [p.copy() for p in params]
            given = list(mine)
            states: dict[int, Any] = {}
            touched: set[int] = set()
            at_step_start: list[list[np.ndarray]] = []  # the parameters as the step began, until its first collective

            def before_call(name: str) -> None:
                # the step's first collective: so far this rank may only have changed its own parameters
                if name in COLLECTIVES and at_step_start:
                    was = at_step_start.pop()
                    touched.update(i for i, (p, before) in enumerate(zip(given, was))
                                   if i % comm.size != comm.rank and not np.array_equal(p, before))

            recording = RecordingComm(comm, before_call)
            comms.append(recording)
            for step in grads:
                at_step_start[:] = [[p.copy() for p in given]]
                fn(recording, mine, [g.copy() for g in step], states, LR)
            kept = list(states) if isinstance(states, dict) else []
            if all(isinstance(k, (int, np.integer)) for k in kept):
                kept.sort()
            size = sum(a.nbytes for s in states.values() if isinstance(s, dict) for a in s.values()
                       if isinstance(a, np.ndarray))
            return given, kept, size, list(mine), sorted(touched)

        def calls() -> list[list[Call]]:
            return [c.calls for c in sorted(comms, key=lambda c: c.rank)]

        try:
            results = run_ranks(on_rank, [None] * ranks)
        except NotImplementedError:
            raise
        except Exception:
            problem = disagreement(calls())
            if not problem:
                raise
            return ZeroRun([], [], [], calls(), problem=problem)
        return ZeroRun([r[0] for r in results], [r[1] for r in results], [r[2] for r in results], calls(),
                       [r[3] for r in results], [r[4] for r in results])

    return run


def _state_keys_hint(run: ZeroRun) -> str:
    """'' or what is wrong with the keys of the states the ranks kept."""
    for r, kept in enumerate(run.kept):
        odd = [k for k in kept if not isinstance(k, (int, np.integer)) or not 0 <= k < len(SHAPES)]
        if odd:
            return _("rank {rank} keeps its states under the key(s) {keys}: key each parameter's state by its index "
                     "in params, states[i], so that the next step finds it", rank=r,
                     keys=", ".join(style.format_number(k) if isinstance(k, (int, float)) else repr(k)
                                    for k in odd[:3]))
    return ""


def _ownership_hint(run: ZeroRun, ranks: int) -> str:
    """'' or a rank that keeps state for parameters it does not own (and not for all of them)."""
    for r, kept in enumerate(run.kept):
        own = [i for i in range(len(SHAPES)) if i % ranks == r]
        theirs = sorted(k for k in kept if k not in own)
        if theirs and len(kept) < len(SHAPES):
            return _("rank {rank} updated parameters {kept} (it keeps their state), but it owns {own}: parameter i "
                     "belongs to rank i % comm.size, so update it where i % comm.size == comm.rank", rank=r,
                     kept=sorted(kept), own=own)
    return ""


def zero_hint(run: ZeroRun, expected_run: ZeroRun) -> tuple[bool, str]:
    """``compare`` for the ZeRO-1 step: the parameters on every rank, then whose state each rank kept."""
    if run.problem:
        return False, run.problem
    ranks = len(run.params)
    want = one_process_adam()
    start, _grads = model()
    used = {c.name for calls in run.calls for c in calls}
    keys = _state_keys_hint(run)
    for r, params in enumerate(run.params):
        wrong = [i for i, (p, w) in enumerate(zip(params, want)) if not same(p, w)[0]]
        if not wrong:
            continue
        i = wrong[0]
        owner = i % ranks
        if "allreduce" in used or "Allreduce" in used:
            return False, _("you all-reduced the parameters: that adds up every rank's copy. Broadcast each "
                            "parameter from the rank that updated it: comm.bcast(p, root=i % comm.size)")
        if keys:
            return False, keys
        if all(not kept for kept in run.kept):
            return False, _("the states stayed empty, so Adam started afresh at every step: keep each parameter's "
                            "state in states[i] (states.setdefault(i, adam_state(p))) for the next step")
        ownership = _ownership_hint(run, ranks)
        if ownership:
            return False, ownership
        if "bcast" not in used and "Bcast" not in used:
            return False, _("parameter {i} on rank {rank} is stale: only its owner, rank {owner}, updated it. After "
                            "the updates, broadcast each parameter from its owner (comm.bcast(p, root=i % comm.size))",
                            i=i, rank=r, owner=owner)
        if all(same(p, w)[0] for p, w in zip(run.listed[r], want)):
            return False, _("params holds the right values on rank {rank}, but in new arrays: params[i] = ... put "
                            "another array in the list, and the arrays you were given (the model's parameters) kept "
                            "the old values. Write into them: params[i][...] = comm.bcast(...)", rank=r)
        roots = [c.root for c in run.calls[r] if c.name in ("bcast", "Bcast")]
        if roots != [k % ranks for _step in range(STEPS) for k in range(len(SHAPES))]:
            return False, _("parameter {i} on rank {rank} differs from one process's Adam: broadcast every parameter "
                            "from its owner, root=i % comm.size (rank {owner} for parameter {i}), after the updates",
                            i=i, rank=r, owner=owner)
        if all(np.array_equal(p, s) for p, s in zip(params, start)):
            return False, _("the parameters never changed: update them in place (adam_update(p, ...) changes p; "
                            "p[...] = comm.bcast(...) writes into it, where p = ... only renames)")
        if np.array_equal(params[i], start[i]):
            return False, _("parameter {i} on rank {rank} never changed although you broadcast it: write the "
                            "broadcast value into the array, p[...] = comm.bcast(...) (p = ... only renames)",
                            i=i, rank=r)
        if same(params[i], one_process_adam(STEPS - 1)[i])[0]:
            return False, _("parameter {i} on rank {rank} is one step behind: the broadcast came before its owner's "
                            "update, so it sent the old values. Update first, then broadcast", i=i, rank=r)
        if all(same(p, w)[0] for p, w in zip(params, one_process_adam(lr=0.01))):
            return False, _("the parameters moved by Adam with lr=0.01, but this step was called with lr={lr}: pass "
                            "the lr argument on, adam_update(p, g, state, lr)", lr=LR)
        if all(same(p, w)[0] for p, w in zip(params, one_process_adam(scale=1 / ranks))):
            return False, _("the parameters are Adam's with the gradients divided by {ranks}: grads are already "
                            "averaged over the ranks, so use them as they are. (Adam barely sees a gradient's scale: "
                            "only parameter {tiny}, whose gradients are tiny, showed it)", ranks=ranks, tiny=TINY)
        if all(same(p, w)[0] for p, w in zip(params, one_process_adam(restart=True))):
            return False, _("Adam started afresh at every step: you made a new state each time. Create a parameter's "
                            "state once, the first time (states.setdefault(i, adam_state(p)), or `if i not in "
                            "states`), and keep using it")
        return False, _("parameter {i} on rank {rank} differs from one process's Adam, though every parameter was "
                        "broadcast from its owner after the updates: look at the update (adam_update(p, g, "
                        "states[i], lr) with the state kept from step to step) and at the write, which must replace "
                        "p (p[...] = comm.bcast(...), not p += ...)", i=i, rank=r)
    if keys:
        return False, keys
    for r, kept in enumerate(run.kept):
        own = [i for i in range(len(SHAPES)) if i % ranks == r]
        if sorted(kept) != own:
            if len(kept) == len(SHAPES):
                return False, _("the parameters are right, but rank {rank} keeps Adam's state for all {n} "
                                "parameters: ZeRO-1 keeps only those the rank owns (i % comm.size == comm.rank: "
                                "{own}), so each rank's state is about 1/{ranks} of it", rank=r, n=len(SHAPES),
                                own=own, ranks=ranks)
            return False, _("rank {rank} keeps state for parameters {kept}, but owns {own} (i % comm.size == "
                            "comm.rank)", rank=r, kept=sorted(kept), own=own)
    for r, touched in enumerate(run.touched):
        if touched:
            i = touched[0]
            return False, _("the parameters are right, but rank {rank} changed parameter {i}, which rank {owner} owns, "
                            "before broadcasting: ZeRO-1 updates only this rank's shard (the broadcast overwrites the "
                            "rest, so that work is wasted, and an optimizer without their state gets it wrong)",
                            rank=r, i=i, owner=i % ranks)
    return True, ""


def describe_zero_case(args: tuple[Any, ...]) -> str:
    """The table's name for a case ``(ranks,)``."""
    return _("{ranks} ranks, {steps} steps", ranks=args[0], steps=STEPS)
