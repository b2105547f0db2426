"""Lesson 18's first check: the two all-reduces of Megatron's column/row-parallel MLP, on thread ranks.

    check_function("Megatron MLP", megatron_on_ranks(megatron_mlp), megatron_on_ranks(reference_megatron),
                   cases=MEGATRON_CASES, compare=megatron_hint, describe=describe_megatron_case)

The MLP is ``y = relu(x @ W1.T + B1) @ W2.T + B2`` with ``HIDDEN`` hidden units. Rank r of
N gets rows r of W1 and B1 and the same columns of W2 (its slice of the hidden units), the
whole B2, and the same ``x`` and ``grad_y`` as every rank; it returns ``(y, grad_x)``,
which must be the whole MLP's on every rank. Each rank's ``comm`` notes its calls, and its
arguments are compared afterwards, so the hint can say more than the values: how many
all-reduces, where a value went wrong (a partial sum left alone, the bias added on every
rank or forgotten, an average instead of a sum, the all-reduce of the wrong array, a ReLU
or its derivative left out), which rank skipped a collective, and an argument changed in place.
"""

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from minitorch.distributed.threads import run_ranks
from widgets import style
from widgets.check.check_result import describe_exception, format_value
from widgets.check.function_checker import same
from widgets.i18n import _
from widgets.lessons.lesson18_ranks import Call, RecordingComm, disagreement

D_IN, HIDDEN, D_OUT = 4, 8, 3
MEGATRON_CASES = [(2, 3), (4, 3), (2, 5)]  # (ranks, batch)
ARGUMENTS = ("x", "w1", "b1", "w2", "b2", "grad_y")


class MLPRun:
    """What every rank returned, the calls each made, the arguments it changed, or why the ranks stopped."""

    def __init__(self, values: list[Any], calls: list[list[Call]], case: tuple[int, int],
                 changed: list[list[str]] | None = None, problem: str = "") -> None:
        self.values, self.calls, self.case = values, calls, case
        self.changed = changed or [[] for _ in values]
        self.problem = problem

    def __repr__(self) -> str:
        return self.problem or format_value(self.values)


def whole_mlp(batch: int, seed: int = 0) -> dict[str, np.ndarray]:
    """The whole MLP's weights, an input and the loss's gradient with respect to the output."""
    rng = np.random.default_rng(seed + batch)
    return {"W1": rng.normal(size=(HIDDEN, D_IN)), "B1": rng.normal(size=HIDDEN),
            "W2": rng.normal(size=(D_OUT, HIDDEN)), "B2": rng.normal(size=D_OUT),
            "x": rng.normal(size=(batch, D_IN)), "grad_y": rng.normal(size=(batch, D_OUT))}


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
    """``run(ranks, batch)``: ``fn(comm, x, w1, b1, w2, b2, grad_y)`` on ``ranks`` thread ranks.

    A run stopped by ranks that did not make the same collective calls (a deadlock, or
    all-reduces of different arrays) gives an ``MLPRun`` whose ``problem`` says where.
    """

    def run(ranks: int, batch: int) -> MLPRun:
        whole = whole_mlp(batch)
        comms: list[RecordingComm] = []
        given = [rank_arguments(whole, r, ranks) for r in range(ranks)]
        passed = [[a.copy() for a in args] for args in given]

        def on_rank(comm: Any, args: list[np.ndarray]) -> Any:
            recording = RecordingComm(comm)
            comms.append(recording)
            return fn(recording, *args)

        def calls() -> list[list[Call]]:
            return [c.calls for c in sorted(comms, key=lambda c: c.rank)]

        try:
            values = run_ranks(on_rank, passed)
        except NotImplementedError:
            raise
        except Exception as exc:
            problem = disagreement(calls()) or _shapes_hint(exc, given[0])
            if not problem:
                raise
            return MLPRun([None] * ranks, calls(), (ranks, batch), problem=problem)
        changed = [[name for name, before, now in zip(ARGUMENTS, g, p) if not np.array_equal(before, now)]
                   for g, p in zip(given, passed)]
        return MLPRun(values, calls(), (ranks, batch), changed)

    return run


def _shapes_hint(exc: Exception, args: Sequence[np.ndarray]) -> str:
    """'' or, for NumPy's shape error in the learner's code, the error and the shapes each argument has."""
    if not isinstance(exc, ValueError) or not any(w in str(exc) for w in ("matmul", "broadcast", "shapes", "align")):
        return ""
    shapes = ", ".join(f"{name} {style.fmt_shape(a.shape)}" for name, a in zip(ARGUMENTS, args))
    return _("{error}. On rank 0 of this case the arguments are {shapes}: w1, b1 and w2 are already this rank's "
             "slices (its hidden units), x, b2 and grad_y are whole", error=describe_exception(exc).replace("\n", ""),
             shapes=shapes)


def _mistakes(ranks: int, batch: int, rank: int) -> dict[str, list[tuple[np.ndarray | None, str]]]:
    """Per value, the usual wrong answers: (what rank ``rank`` would return, the hint naming the mistake).

    Each is computed from the same slices the ranks get, so a learner's value can be matched
    against it. The hints are built here, in the course's language.
    """
    whole = whole_mlp(batch)
    b2, n, r = whole["B2"], ranks, rank
    parts = [rank_arguments(whole, q, ranks) for q in range(ranks)]
    w1s, w2s = [p[1] for p in parts], [p[3] for p in parts]
    x, grad_y = whole["x"], whole["grad_y"]
    no_relu = [x @ w1.T + b1 for _x, w1, b1, _w2, _b2, _g in parts]
    h = [np.maximum(z, 0) for z in no_relu]
    grad_h = [(grad_y @ w2) * (hq > 0) for w2, hq in zip(w2s, h)]
    own_y = [hq @ w2.T for hq, w2 in zip(h, w2s)]
    own_dx = [gh @ w1 for gh, w1 in zip(grad_h, w1s)]
    y_sum, dx_sum = sum(own_y), sum(own_dx)
    partial = _("y on rank {rank} is only this rank's partial product h @ w2.T: each rank holds some of the hidden "
                "units, so y is the sum of every rank's product: all-reduce it (then add b2)", rank=r)
    average = _("y is the average of the ranks' products, not their sum: the partial products add up to y, so do "
                "not divide by comm.size")
    y = [
        (own_y[r] + b2, partial),
        (own_y[r], partial),
        (y_sum + n * b2, _("y holds b2 {ranks} times instead of once: you added b2 before the all-reduce, which "
                           "summed every rank's copy of it. All-reduce h @ w2.T, then add b2", ranks=n)),
        (y_sum / n + b2, average),
        ((y_sum + b2) / n, average),
        (y_sum, _("y on rank {rank} has no bias: add b2 once, after the all-reduce "
                  "(y = comm.allreduce(h @ w2.T) + b2)", rank=r)),
        (y_sum + b2 / n, _("y on rank {rank} holds b2 / comm.size: the all-reduce sums the products, not the bias, "
                           "so add b2 whole, after it", rank=r)),
        (sum(h) @ w2s[r].T + b2, _("you all-reduced h, but each rank's h are different hidden units, so adding them "
                                   "mixes units: multiply first, and all-reduce the product h @ w2.T")),
        (sum(z @ w2.T for z, w2 in zip(no_relu, w2s)) + b2,
         _("y on rank {rank} has no ReLU: the hidden units are relu(x @ w1.T + b1), h as given", rank=r)),
    ]
    dx = [
        (own_dx[r], _("grad_x on rank {rank} is only this rank's share, grad_h @ w1: x feeds every rank's hidden "
                      "units, so its gradient is the sum of every rank's share: all-reduce it", rank=r)),
        (dx_sum / n, _("grad_x is the average of the ranks' shares, not their sum: do not divide by comm.size")),
        (sum(grad_h) @ w1s[r], _("you all-reduced grad_h, but each rank's grad_h belongs to different hidden units, "
                                 "so adding them mixes units: multiply first, and all-reduce grad_h @ w1")),
        (sum((grad_y @ w2) @ w1 for w1, w2 in zip(w1s, w2s)),
         _("grad_x on rank {rank} has no ReLU derivative: grad_h = (grad_y @ w2) * (h > 0), as given", rank=r)),
        (sum(gh @ w1.T for gh, w1 in zip(grad_h, w1s)) if HIDDEN // n == D_IN else None,
         _("grad_x = grad_h @ w1, without a transpose: w1 is (hidden units, inputs), so grad_h @ w1 already has x's "
           "shape")),
    ]
    return {"y": y, "grad_x": dx}


def megatron_hint(run: MLPRun, expected_run: MLPRun) -> tuple[bool, str]:
    """``compare`` for the Megatron MLP: the values first (which one, and how it is wrong), then the calls."""
    if run.problem:
        return False, run.problem
    got, expected = run.values, expected_run.values
    ranks, batch = run.case
    if all(v is None for v in got):
        return False, _("returned None: did you forget `return y, grad_x`?")
    if not all(isinstance(v, (tuple, list)) and len(v) == 2 for v in got):
        return False, _("return a tuple of two arrays, (y, grad_x), on every rank")
    if all(same(v[0], e[1])[0] and same(v[1], e[0])[0] for v, e in zip(got, expected)):
        return False, _("you returned (grad_x, y): return y first, then grad_x")
    reduces = [sum(1 for c in calls if c.name in ("allreduce", "Allreduce")) for calls in run.calls]
    for index, name in ((0, "y"), (1, "grad_x")):
        for r, (value, want) in enumerate(zip((v[index] for v in got), (v[index] for v in expected))):
            ok, hint = same(value, want)
            if ok:
                continue
            value = np.asarray(value, dtype=float) if isinstance(value, np.ndarray) else value
            if isinstance(value, np.ndarray) and value.shape == want.shape:
                for wrong, why in _mistakes(ranks, batch, r)[name]:
                    if wrong is not None and np.allclose(value, wrong):
                        return False, why
                if reduces[r] == 0:
                    return False, _("{name} on rank {rank} is wrong, and this rank made no all-reduce: the other "
                                    "ranks' hidden units count too, and comm.allreduce is how their share arrives",
                                    name=name, rank=r)
                if name == "y":
                    return False, _("y on rank {rank} is wrong: y = (the all-reduce of h @ w2.T) + b2, with h this "
                                    "rank's hidden units", rank=r)
                return False, _("grad_x on rank {rank} is wrong: it is the all-reduce of grad_h @ w1 (each rank's "
                                "share of x's gradient)", rank=r)
            return False, _("{name} on rank {rank}: {hint}", name=name, rank=r, hint=hint)
    for r, names in enumerate(run.changed):
        if names:
            return False, _("the values are right, but your function changed its argument {name} in place on rank "
                            "{rank} (+=, /=, [...] =): the layer keeps it for the next step. Compute a new array "
                            "instead (b = b / n, not b /= n)", name=names[0], rank=r)
    others = sorted({c.name for calls in run.calls for c in calls if c.name not in ("allreduce", "Allreduce")})
    if others:
        return False, _("the values are right, but you also called comm.{name}: the MLP needs only the two "
                        "all-reduces", name=others[0])
    if any(n != 2 for n in reduces):
        return False, _("the values are right, but rank 0 made {n} all-reduce(s): Megatron's MLP needs exactly two, "
                        "one of y's partial products in forward and one of x's gradient shares in backward",
                        n=reduces[0])
    return True, ""


def describe_megatron_case(args: tuple[Any, ...]) -> str:
    """The table's name for a case ``(ranks, batch)``."""
    return _("{ranks} ranks, batch {batch}", ranks=args[0], batch=args[1])
