"""Lesson 06's hints for log_softmax, forward and backward: which wrong formula an answer is.

    check_function("log_softmax forward", keep_inputs(my_log_softmax), keep_inputs(F.log_softmax), cases=...,
                   compare=forward_hint)
    check_backward(MyLogSoftmax, ..., args=(dim,), mistakes=backward_mistakes(dim))

The hints compute, from the case's input, the answers of the usual slips (softmax instead of
its log, the sum over the wrong axis, the softmax term without its sum, out used as the
softmax) and name the one the answer equals. ``describe_case`` names a case in the table.
"""

from collections.abc import Callable
from typing import Any

import numpy as np

from widgets.check.check_result import to_numpy
from widgets.check.function_checker import same
from widgets.check.outcome import Outcome
from widgets.i18n import _

Array = np.ndarray


def _log_softmax(x: Array, dim: int) -> Array:
    shifted = x - x.max(axis=dim, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=dim, keepdims=True))


def forward_hint(got: Outcome, expected: Outcome) -> tuple[bool, str]:
    """``compare`` for the forward: softmax instead of log_softmax, the wrong dim, exp overflowing."""
    ok, hint = same(got.value, expected.value)
    value = to_numpy(got.value)
    if ok or value is None:
        return ok, hint
    x, dim = np.asarray(to_numpy(expected.args[0]), dtype=np.float64), expected.args[1]
    if not np.all(np.isfinite(value)):
        return False, _("{hint}: exp overflowed (inf/NaN) for large x: subtract the max along dim before exp "
                        "(log_softmax(x) = log_softmax(x - max))", hint=hint)
    with np.errstate(all="ignore"):
        variants = [(np.exp(_log_softmax(x, dim)),
                     _("that is softmax: log_softmax is x - max - log(sum(exp(x - max)))"))]
        if x.ndim > 1:
            other = 0 if dim % x.ndim != 0 else 1
            variants.append((_log_softmax(x, other),
                             _("the sums run over dim {other}: use the dim argument ({dim})", other=other, dim=dim)))
    for wrong, text in variants:
        if wrong.shape == value.shape and np.allclose(value, wrong, rtol=1e-4, atol=1e-5):
            return False, text
    return False, hint


def backward_mistakes(dim: int) -> Callable[[int, Array, list[Any], Array], "str | None"]:
    """``mistakes`` for the backward with this ``dim``: the softmax term wrong or missing."""
    def mistakes(k: int, got: Array, inputs: list[Any], grad_output: Array) -> str | None:
        x = np.asarray(inputs[0], dtype=float)
        softmax = np.exp(_log_softmax(x, dim))
        out = _log_softmax(x, dim)
        g = grad_output
        other = -1 if dim % x.ndim != x.ndim - 1 else 0
        variants = [
            (g, _("the softmax term is missing: grad_x = grad_output - softmax * grad_output.sum(dim)")),
            (g - softmax * g, _("sum grad_output over dim first: every output depends on every input of its row")),
            (g - out * g.sum(axis=dim, keepdims=True), _("out is the log-softmax: the softmax is exp(out)")),
            (g - softmax * g.sum(axis=other, keepdims=True) if x.ndim > 1 else None,
             _("the sum runs over axis {other}, but dim = {dim}: use ctx.dim", other=other, dim=dim)),
        ]
        for wrong, text in variants:
            if wrong is not None and wrong.shape == got.shape and np.allclose(got, wrong, rtol=1e-5, atol=1e-6):
                return text
        return None
    return mistakes


def describe_case(args: tuple[Any, ...]) -> str:
    """The table's name for a case ``(x, dim)``: the shape, the dim and how large the values are."""
    x, dim = args
    return _("shape {shape}, dim={dim}, |x| up to {largest:.0f}", shape=tuple(x.shape), dim=dim,
             largest=float(np.abs(np.asarray(to_numpy(x))).max()))
