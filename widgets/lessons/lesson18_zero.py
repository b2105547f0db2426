"""Lesson 18's third check: one ZeRO-1 step (shard, update, broadcast) of Adam, on thread ranks.

    check_function("ZeRO-1 step", zero_on_ranks(zero1_step), zero_on_ranks(reference_zero1_step),
                   cases=ZERO_CASES, compare=zero_hint, describe=describe_zero_case)

Every rank holds the same parameters (a list of arrays) and the same averaged gradients;
parameter i belongs to rank ``i % size``. The learner's ``zero1_step(comm, params, grads,
states, lr)`` updates its own parameters with ``adam_update`` (keeping their Adam state in
``states``, a dict by parameter index) and then broadcasts every parameter from its owner.
``zero_on_ranks`` runs three steps on each rank and keeps the final parameters, which
parameters' state each rank kept (and its bytes) and each rank's calls, so ``zero_hint``
can name the mistake: state kept for every parameter, a broadcast missing or from the
wrong rank, parameters summed by an all-reduce, an update that was not in place.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from minitorch.distributed.threads import run_ranks
from widgets.check.function_checker import same
from widgets.i18n import _

SHAPES = [(4, 3), (4,), (3, 4), (3,), (2, 2)]  # the model's parameters
STEPS = 3
ZERO_CASES = [(2,), (3,), (4,)]


def adam_state(p: np.ndarray) -> dict[str, Any]:
    """A new parameter's Adam state: no steps yet, both moments zero."""
    return {"step": 0, "m": np.zeros_like(p), "v": np.zeros_like(p)}


def adam_update(p: np.ndarray, g: np.ndarray, state: dict[str, Any], lr: float = 0.01,
                betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8) -> None:
    """One Adam step of ``p`` in place (PyTorch's formula), updating ``state``."""
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
    """The parameters, and the averaged gradients of each of the ``STEPS`` steps."""
    rng = np.random.default_rng(seed)
    params = [rng.normal(size=shape) for shape in SHAPES]
    grads = [[rng.normal(size=shape) for shape in SHAPES] for _ in range(STEPS)]
    return params, grads


def one_process_adam(steps: int = STEPS) -> list[np.ndarray]:
    """The parameters after ``steps`` steps of plain Adam in one process (what every rank must hold)."""
    params, grads = model()
    states = [adam_state(p) for p in params]
    for step in grads[:steps]:
        for p, g, state in zip(params, step, states):
            adam_update(p, g, state)
    return params


class RecordingComm:
    """A rank's ``comm`` that notes each call's name and its ``root`` (``calls``)."""

    def __init__(self, comm: Any) -> None:
        self._comm = comm
        self.rank, self.size = comm.rank, comm.size
        self.calls: list[tuple[str, Any]] = []

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._comm, name)
        if not callable(value):
            return value

        def recorded(*args: Any, **kwargs: Any) -> Any:
            self.calls.append((name, kwargs.get("root", args[1] if len(args) > 1 else None)))
            return value(*args, **kwargs)
        return recorded


@dataclass
class ZeroRun:
    """Each rank's final parameters, the indices (and bytes) of the state it kept, and its calls."""

    params: list[list[np.ndarray]]
    kept: list[list[int]]
    state_bytes: list[int]
    calls: list[list[tuple[str, Any]]]

    def __repr__(self) -> str:
        return _("state kept per rank: {kept}", kept=self.kept)


def zero_on_ranks(fn: Callable[..., Any]) -> Callable[[int], ZeroRun]:
    """``run(ranks)``: ``STEPS`` calls of ``fn(comm, params, grads, states)`` on each of ``ranks`` thread ranks."""

    def run(ranks: int) -> ZeroRun:
        params, grads = model()
        comms: list[RecordingComm] = []

        def on_rank(comm: Any, _unused: Any) -> Any:
            recording = RecordingComm(comm)
            comms.append(recording)
            mine = [p.copy() for p in params]
            states: dict[int, Any] = {}
            for step in grads:
                fn(recording, mine, [g.copy() for g in step], states)
            kept = sorted(states) if isinstance(states, dict) else []
            size = sum(a.nbytes for s in states.values() if isinstance(s, dict) for a in s.values()
                       if isinstance(a, np.ndarray))
            return mine, kept, size

        results = run_ranks(on_rank, [None] * ranks)
        calls = [c.calls for c in sorted(comms, key=lambda c: c.rank)]
        return ZeroRun([r[0] for r in results], [r[1] for r in results], [r[2] for r in results], calls)

    return run


def zero_hint(run: ZeroRun, expected_run: ZeroRun) -> tuple[bool, str]:
    """``compare`` for the ZeRO-1 step: the parameters on every rank, then whose state each rank kept."""
    ranks = len(run.params)
    want = one_process_adam()
    start, _grads = model()
    used = {name for calls in run.calls for name, _root in calls}
    for r, params in enumerate(run.params):
        wrong = [i for i, (p, w) in enumerate(zip(params, want)) if not same(p, w)[0]]
        if not wrong:
            continue
        i = wrong[0]
        owner = i % ranks
        if "allreduce" in used or "Allreduce" in used:
            return False, _("you all-reduced the parameters: that adds up every rank's copy. Broadcast each "
                            "parameter from the rank that updated it: comm.bcast(p, root=i % comm.size)")
        if all(np.array_equal(p, s) for p, s in zip(params, start)):
            return False, _("the parameters never changed: update them in place (adam_update(p, ...) changes p; "
                            "p[...] = comm.bcast(...) writes into it, where p = ... only renames)")
        if all(not kept for kept in run.kept):
            return False, _("the states stayed empty, so Adam started afresh at every step: keep each parameter's "
                            "state in states[i] (states.setdefault(i, adam_state(p))) for the next step")
        if "bcast" not in used and "Bcast" not in used:
            return False, _("parameter {i} on rank {rank} is stale: only its owner, rank {owner}, updated it. After "
                            "the updates, broadcast each parameter from its owner (comm.bcast(p, root=i % comm.size))",
                            i=i, rank=r, owner=owner)
        roots = [root for name, root in run.calls[r] if name in ("bcast", "Bcast")]
        if roots != [k % ranks for _step in range(STEPS) for k in range(len(SHAPES))]:
            return False, _("parameter {i} on rank {rank} differs from one process's Adam: broadcast every parameter "
                            "from its owner, root=i % comm.size (rank {owner} for parameter {i}), after the updates",
                            i=i, rank=r, owner=owner)
        if np.array_equal(params[i], start[i]):
            return False, _("parameter {i} on rank {rank} never changed although you broadcast it: write the "
                            "broadcast value into the array, p[...] = comm.bcast(...) (p = ... only renames)",
                            i=i, rank=r)
        if same(params[i], one_process_adam(STEPS - 1)[i])[0]:
            return False, _("parameter {i} on rank {rank} is one step behind: the broadcast came before its owner's "
                            "update, so it sent the old values. Update first, then broadcast", i=i, rank=r)
        return False, _("parameter {i} on rank {rank} differs from one process's Adam: broadcast every parameter "
                        "from its owner, root=i % comm.size (rank {owner} for parameter {i}), after the updates",
                        i=i, rank=r, owner=owner)
    for r, kept in enumerate(run.kept):
        own = [i for i in range(len(SHAPES)) if i % ranks == r]
        if kept != own:
            if len(kept) == len(SHAPES):
                return False, _("the parameters are right, but rank {rank} keeps Adam's state for all {n} "
                                "parameters: ZeRO-1 keeps only those the rank owns (i % comm.size == comm.rank: "
                                "{own}), so each rank's state is about 1/{ranks} of it", rank=r, n=len(SHAPES),
                                own=own, ranks=ranks)
            return False, _("rank {rank} keeps state for parameters {kept}, but owns {own} (i % comm.size == "
                            "comm.rank)", rank=r, kept=kept, own=own)
    return True, ""


def describe_zero_case(args: tuple[Any, ...]) -> str:
    """The table's name for a case ``(ranks,)``."""
    return _("{ranks} ranks, {steps} steps", ranks=args[0], steps=STEPS)
