"""Lesson 05's hints for the activation backwards: which derivative a wrong gradient used.

    check_backward(Sigmoid, sigmoid_backward, install=True, mistakes=activation_mistakes("sigmoid"))

The hint computes, from the case's input and ``grad_output``, the wrong local derivatives
learners write (the input instead of the output, a missing factor, another activation's
derivative) and names the one the answer equals.
"""

from collections.abc import Callable
from typing import Any

import numpy as np

Array = np.ndarray
Mistakes = Callable[[int, Array, list[Any], Array], "str | None"]

# op -> (its output from the input, [(a wrong local derivative from (x, out), what to say)])
_WRONG: dict[str, tuple[Callable[[Array], Array], list[tuple[Callable[[Array, Array], Array], str]]]] = {
    "exp": (np.exp, [
        (lambda x, out: x, "d exp(x)/dx is exp(x) itself: multiply grad_output by out, not by the input"),
        (lambda x, out: out * x, "d exp(x)/dx is exp(x): no extra factor x (that is the power rule, not exp)"),
    ]),
    "log": (np.log, [
        (lambda x, out: x, "d log(a)/da is 1 / a: divide grad_output by a, do not multiply"),
        (lambda x, out: 1 / (x * x), "d log(a)/da is 1 / a, not 1 / a**2"),
        (lambda x, out: out, "d log(a)/da is 1 / a: the output log(a) is not the derivative"),
    ]),
    "relu": (lambda x: np.maximum(x, 0), [
        (lambda x, out: out, "the ReLU derivative is 1 where x > 0 and 0 elsewhere: multiply by (out > 0), not by out"),
        (lambda x, out: np.ones_like(x), "the gradient passes only where x > 0: mask it with (out > 0)"),
        (lambda x, out: (out <= 0).astype(float), "the mask is inverted: the gradient passes where out > 0"),
    ]),
    "sigmoid": (lambda x: 1 / (1 + np.exp(-x)), [
        (lambda x, out: out, "sigmoid' = out * (1 - out): the factor (1 - out) is missing"),
        (lambda x, out: 1 - out, "sigmoid' = out * (1 - out): the factor out is missing"),
        (lambda x, out: 1 - out * out, "1 - out**2 is tanh's derivative; sigmoid's is out * (1 - out)"),
        (lambda x, out: x * (1 - x), "use the output: sigmoid' = out * (1 - out), with out the saved sigmoid(x)"),
    ]),
    "tanh": (np.tanh, [
        (lambda x, out: 1 - out, "tanh' = 1 - out**2: square out"),
        (lambda x, out: out * (1 - out), "out * (1 - out) is sigmoid's derivative; tanh's is 1 - out**2"),
        (lambda x, out: 1 - x * x, "use the output: tanh' = 1 - out**2, with out the saved tanh(x)"),
    ]),
}


def activation_mistakes(op: str) -> Mistakes:
    """``mistakes`` for the backward of ``op`` ("exp", "log", "relu", "sigmoid" or "tanh")."""
    forward, wrong = _WRONG[op]

    def mistakes(k: int, got: Array, inputs: list[Any], grad_output: Array) -> str | None:
        x = np.asarray(inputs[0], dtype=float)
        with np.errstate(all="ignore"):
            out = forward(x)
            for local, text in wrong:
                value = grad_output * local(x, out)
                if value.shape == got.shape and np.allclose(got, value, rtol=1e-5, atol=1e-6):
                    return text
        return None
    return mistakes
