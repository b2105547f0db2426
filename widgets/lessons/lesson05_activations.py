"""Lesson 05's hints for the activation backwards: which derivative a wrong gradient used.

    check_backward(Sigmoid, sigmoid_backward, install=True, mistakes=activation_mistakes("sigmoid"))

The hint computes, from the case's input and ``grad_output``, the wrong local derivatives
learners write (the input instead of the output, a missing factor, another activation's
derivative) and names the one the answer equals.
"""

from collections.abc import Callable
from typing import Any

import numpy as np

from widgets.i18n import _

Array = np.ndarray
Mistakes = Callable[[int, Array, list[Any], Array], "str | None"]

# op -> its output from the input
_FORWARD: dict[str, Callable[[Array], Array]] = {
    "exp": np.exp,
    "log": np.log,
    "relu": lambda x: np.maximum(x, 0),
    "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
    "tanh": np.tanh,
}


def _wrong(op: str) -> list[tuple[Callable[[Array, Array], Array], str]]:
    """[(a wrong local derivative from (x, out), what to say)] for ``op``, in the learner's language now."""
    if op == "exp":
        return [
            (lambda x, out: x, _("d exp(x)/dx is exp(x) itself: multiply grad_output by out, not by the input")),
            (lambda x, out: out * x, _("d exp(x)/dx is exp(x): no extra factor x (that is the power rule, not exp)")),
        ]
    if op == "log":
        return [
            (lambda x, out: x, _("d log(a)/da is 1 / a: divide grad_output by a, do not multiply")),
            (lambda x, out: 1 / (x * x), _("d log(a)/da is 1 / a, not 1 / a**2")),
            (lambda x, out: out, _("d log(a)/da is 1 / a: the output log(a) is not the derivative")),
        ]
    if op == "relu":
        return [
            (lambda x, out: out,
             _("the ReLU derivative is 1 where x > 0 and 0 elsewhere: multiply by (out > 0), not by out")),
            (lambda x, out: np.ones_like(x), _("the gradient passes only where x > 0: mask it with (out > 0)")),
            (lambda x, out: (out <= 0).astype(float), _("the mask is inverted: the gradient passes where out > 0")),
        ]
    if op == "sigmoid":
        return [
            (lambda x, out: out, _("sigmoid' = out * (1 - out): the factor (1 - out) is missing")),
            (lambda x, out: 1 - out, _("sigmoid' = out * (1 - out): the factor out is missing")),
            (lambda x, out: 1 - out * out, _("1 - out**2 is tanh's derivative; sigmoid's is out * (1 - out)")),
            (lambda x, out: x * (1 - x),
             _("use the output: sigmoid' = out * (1 - out), with out the saved sigmoid(x)")),
        ]
    return [  # tanh
        (lambda x, out: 1 - out, _("tanh' = 1 - out**2: square out")),
        (lambda x, out: out * (1 - out), _("out * (1 - out) is sigmoid's derivative; tanh's is 1 - out**2")),
        (lambda x, out: 1 - x * x, _("use the output: tanh' = 1 - out**2, with out the saved tanh(x)")),
    ]


def activation_mistakes(op: str) -> Mistakes:
    """``mistakes`` for the backward of ``op`` ("exp", "log", "relu", "sigmoid" or "tanh")."""
    forward = _FORWARD[op]

    def mistakes(k: int, got: Array, inputs: list[Any], grad_output: Array) -> str | None:
        x = np.asarray(inputs[0], dtype=float)
        with np.errstate(all="ignore"):
            out = forward(x)
            for local, text in _wrong(op):
                value = grad_output * local(x, out)
                if value.shape == got.shape and np.allclose(got, value, rtol=1e-5, atol=1e-6):
                    return text
        return None
    return mistakes
