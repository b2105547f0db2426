"""Lesson 18's first check: the two all-reduces of Megatron's column/row-parallel MLP, on thread ranks.

    check_function("Megatron MLP", megatron_on_ranks(megatron_mlp), megatron_on_ranks(reference_megatron),
                   cases=MEGATRON_CASES, compare=megatron_hint, describe=describe_megatron_case)

The MLP is ``y = relu(x @ W1.T + B1) @ W2.T + B2`` with ``HIDDEN`` hidden units. Rank r of
N gets rows r of W1 and B1 and the same columns of W2 (its slice of the hidden units), the
whole B2, and the same ``x`` and ``grad_y`` as every rank; it returns ``(y, grad_x)``,
which must be the whole MLP's on every rank. Each rank's ``comm`` notes its calls, so the
hint can say more than the values: how many all-reduces, and where a value went wrong (a
partial sum left alone, the bias added on every rank, an average instead of a sum).
"""

from collections.abc import Callable
from typing import Any

import numpy as np

from minitorch.distributed.threads import run_ranks
from widgets.check.check_result import format_value
from widgets.check.function_checker import same
from widgets.i18n import _

D_IN, HIDDEN, D_OUT = 4, 8, 3
MEGATRON_CASES = [(2, 3), (4, 3), (2, 5)]  # (ranks, batch)


class RecordingComm:
    """A rank's ``comm`` that notes the name of every method called on it (``calls``)."""

    def __init__(self, comm: Any) -> None:
        self._comm = comm
        self.rank, self.size = comm.rank, comm.size
        self.calls: list[str] = []

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._comm, name)
        if not callable(value):
            return value

        def recorded(*args: Any, **kwargs: Any) -> Any:
            self.calls.append(name)
            return value(*args, **kwargs)
        return recorded


class MLPRun:
    """What every rank returned, and the calls each made."""

    def __init__(self, values: list[Any], calls: list[list[str]], case: tuple[int, int]) -> None:
        self.values, self.calls, self.case = values, calls, case

    def __repr__(self) -> str:
        return format_value(self.values)


def whole_mlp(batch: int, seed: int = 0) -> dict[str, np.ndarray]:
    """The whole MLP's weights, an input and the loss's gradient with respect to the output."""
    rng = np.random.default_rng(seed + batch)
    return {"W1": rng.normal(size=(HIDDEN, D_IN)), "B1": rng.normal(size=HIDDEN), "W2": rng.normal(size=(D_OUT, HIDDEN)),
            "B2": rng.normal(size=D_OUT), "x": rng.normal(size=(batch, D_IN)), "grad_y": rng.normal(size=(batch, D_OUT))}


def rank_arguments(whole: dict[str, np.ndarray], rank: int, ranks: int) -> tuple[np.ndarray, ...]:
    """Rank ``rank``'s (x, w1, b1, w2, b2, grad_y): its slice of the hidden units, the rest whole."""
    part = slice(rank * HIDDEN // ranks, (rank + 1) * HIDDEN // ranks)
    return (whole["x"], whole["W1"][part], whole["B1"][part], whole["W2"][:, part], whole["B2"], whole["grad_y"])


def reference_megatron(comm: Any, x: np.ndarray, w1: np.ndarray, b1: np.ndarray, w2: np.ndarray, b2: np.ndarray,
                       grad_y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """This rank's forward and backward; ``(y, grad_x)`` of the whole MLP on every rank."""
    h = np.maximum(x @ w1.T + b1, 0)
    grad_h = (grad_y @ w2) * (h > 0)
    y = comm.allreduce(h @ w2.T) + b2
    grad_x = comm.allreduce(grad_h @ w1)
    return y, grad_x


def megatron_on_ranks(fn: Callable[..., Any]) -> Callable[[int, int], MLPRun]:
    """``run(ranks, batch)``: ``fn(comm, x, w1, b1, w2, b2, grad_y)`` on ``ranks`` thread ranks."""

    def run(ranks: int, batch: int) -> MLPRun:
        whole = whole_mlp(batch)
        comms: list[RecordingComm] = []

        def on_rank(comm: Any, args: tuple[np.ndarray, ...]) -> Any:
            recording = RecordingComm(comm)
            comms.append(recording)
            return fn(recording, *[a.copy() for a in args])

        values = run_ranks(on_rank, [rank_arguments(whole, r, ranks) for r in range(ranks)])
        calls = [c.calls for c in sorted(comms, key=lambda c: c.rank)]
        return MLPRun(values, calls, (ranks, batch))

    return run


def _partials(ranks: int, batch: int) -> dict[str, list[np.ndarray]]:
    """Each rank's own shares: its partial product of y and its share of x's gradient."""
    whole = whole_mlp(batch)
    shares: dict[str, list[np.ndarray]] = {"y": [], "grad_x": []}
    for r in range(ranks):
        x, w1, b1, w2, _b2, grad_y = rank_arguments(whole, r, ranks)
        h = np.maximum(x @ w1.T + b1, 0)
        shares["y"].append(h @ w2.T)
        shares["grad_x"].append(((grad_y @ w2) * (h > 0)) @ w1)
    return shares


def megatron_hint(run: MLPRun, expected_run: MLPRun) -> tuple[bool, str]:
    """``compare`` for the Megatron MLP: the values first (which one, and how it is wrong), then the calls."""
    got, expected = run.values, expected_run.values
    ranks, batch = run.case
    if not all(isinstance(v, tuple) and len(v) == 2 for v in got):
        return False, _("return a tuple of two arrays, (y, grad_x), on every rank")
    b2 = whole_mlp(batch)["B2"]
    shares = _partials(ranks, batch)
    for index, name in ((0, "y"), (1, "grad_x")):
        for r, (value, want) in enumerate(zip((v[index] for v in got), (v[index] for v in expected))):
            ok, hint = same(value, want)
            if ok:
                continue
            return False, _why_wrong(name, r, np.asarray(value, dtype=float), want, shares[name][r], b2, ranks) or \
                _("{name} on rank {rank}: {hint}", name=name, rank=r, hint=hint)
    reduces = [sum(1 for c in calls if c in ("allreduce", "Allreduce")) for calls in run.calls]
    others = sorted({c for calls in run.calls for c in calls if c not in ("allreduce", "Allreduce")})
    if others:
        return False, _("the values are right, but you also called comm.{name}: the MLP needs only the two "
                        "all-reduces", name=others[0])
    if any(n != 2 for n in reduces):
        return False, _("the values are right, but rank 0 made {n} all-reduce(s): Megatron's MLP needs exactly two, "
                        "one of y's partial products in forward and one of x's gradient shares in backward",
                        n=reduces[0])
    return True, ""


def _why_wrong(name: str, rank: int, value: np.ndarray, want: np.ndarray, own_share: np.ndarray, b2: np.ndarray,
               ranks: int) -> str:
    """'' or the mistake ``value`` (rank ``rank``'s ``name``) shows."""
    if value.shape != want.shape:
        return ""
    if name == "y":
        if np.allclose(value, own_share + b2) or np.allclose(value, own_share):
            return _("y on rank {rank} is only this rank's partial product h @ w2.T: each rank holds some of the "
                     "hidden units, so y is the sum of every rank's product: all-reduce it (then add b2)", rank=rank)
        if np.allclose(value, want + (ranks - 1) * b2):
            return _("y holds b2 {ranks} times instead of once: you added b2 before the all-reduce, which summed "
                     "every rank's copy of it. All-reduce h @ w2.T, then add b2", ranks=ranks)
        if np.allclose(value, (want - b2) / ranks + b2) or np.allclose(value, want / ranks):
            return _("y is the average of the ranks' products, not their sum: the partial products add up to y, so "
                     "do not divide by comm.size")
        return _("y on rank {rank} is wrong: y = (the all-reduce of h @ w2.T) + b2, with h this rank's hidden "
                 "units", rank=rank)
    if np.allclose(value, own_share):
        return _("grad_x on rank {rank} is only this rank's share, grad_h @ w1: x feeds every rank's hidden units, "
                 "so its gradient is the sum of every rank's share: all-reduce it", rank=rank)
    if np.allclose(value, want / ranks):
        return _("grad_x is the average of the ranks' shares, not their sum: do not divide by comm.size")
    return _("grad_x on rank {rank} is wrong: it is the all-reduce of grad_h @ w1 (each rank's share of x's "
             "gradient)", rank=rank)


def describe_megatron_case(args: tuple[Any, ...]) -> str:
    """The table's name for a case ``(ranks, batch)``."""
    return _("{ranks} ranks, batch {batch}", ranks=args[0], batch=args[1])
