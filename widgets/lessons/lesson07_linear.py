"""Lesson 07's hint for ``Linear.forward``: which wrong formula the layer's output is.

    check_function("Linear.forward", keep_inputs(run_layer(mine)), keep_inputs(run_layer(reference)), cases=...,
                   compare=linear_hint)

The case's layer and input are kept, so the hint can compute x @ W.T without the bias, with
it added twice, or with W not transposed, and name the one the output equals.
``describe_linear`` names a case in the table: the layer and the input's shape.
"""

from typing import Any

import numpy as np

from widgets.check.check_result import to_numpy
from widgets.check.function_checker import same
from widgets.check.outcome import Outcome
from widgets.i18n import _


def linear_hint(got: Outcome, expected: Outcome) -> tuple[bool, str]:
    """``compare`` for ``[y, x.grad, weight.grad, bias.grad]``: names a wrong output first."""
    ok, hint = same(got.value, expected.value)
    if ok or not isinstance(got.value, list) or not got.value:
        return ok, hint
    layer, x = expected.args
    y = to_numpy(got.value[0])
    w = np.asarray(to_numpy(layer.weight), dtype=float)
    xs = np.asarray(to_numpy(x), dtype=float)
    b = None if layer.bias is None else np.asarray(to_numpy(layer.bias), dtype=float)
    variants: list[tuple[Any, str]] = []
    if b is not None:
        variants += [(xs @ w.T, _("the bias is missing: y = x @ weight.T + bias")),
                     (xs @ w.T + 2 * b, _("the bias is added twice"))]
    if w.shape[0] == w.shape[1]:
        variants.append((xs @ w + (0 if b is None else b),
                         _("weight is (out, in): multiply by weight.T, not weight")))
    for wrong, text in variants:
        if y is not None and y.shape == wrong.shape and np.allclose(y, wrong, rtol=1e-4, atol=1e-5):
            return False, text
    return False, hint


def describe_linear(args: tuple[Any, ...]) -> str:
    """The table's name for a case ``(layer, x)``: "Linear(4, 3, bias=False), x of shape (6, 4)"."""
    layer, x = args
    shown = f"Linear({layer.in_features}, {layer.out_features}{'' if layer.bias is not None else ', bias=False'})"
    return _("{layer}, x of shape {shape}", layer=shown, shape=tuple(x.shape))
