"""Lesson 02's hints for the backwards of Div and Pow: which derivative rule a wrong gradient broke.

    check_backward(Div, div_backward, install=True, mistakes=div_mistakes)
    check_backward(Pow, pow_backward, shapes=..., install=True, mistakes=pow_mistakes)

Each computes, from the case's inputs and ``grad_output``, the wrong gradients learners
write (the quotient rule without its square, the power rule without its factor b...) and
names the one the answer equals.
"""

from collections.abc import Callable
from typing import Any

import numpy as np

from widgets.i18n import _

Array = np.ndarray


def _first(got: Array, variants: list[tuple[Callable[[], Any], str]]) -> str | None:
    with np.errstate(all="ignore"):
        for wrong, text in variants:
            value = np.asarray(wrong(), dtype=float)
            if value.shape == got.shape and np.all(np.isfinite(value)) and np.allclose(got, value, rtol=1e-5,
                                                                                      atol=1e-6):
                return text
    return None


def div_mistakes(k: int, got: Array, inputs: list[Any], grad_output: Array) -> str | None:
    """``mistakes`` for a / b: d/da = 1 / b, d/db = -a / b**2."""
    a, b = (np.asarray(v, dtype=float) for v in inputs)
    g = grad_output
    if k == 0:
        return _first(got, [
            (lambda: g * b, _("d(a / b)/da is 1 / b: divide grad_output by b, do not multiply")),
            (lambda: g * a / (b * b), _("that is the size of b's gradient: for a it is grad_output / b")),
        ])
    return _first(got, [
        (lambda: -g * a / b, _("d(a / b)/db is -a / b**2: the square of b is missing")),
        (lambda: -g / (b * b), _("d(a / b)/db is -a / b**2: the factor a is missing")),
        (lambda: g / b, _("that is a's gradient; b's is -grad_output * a / b**2")),
    ])


def pow_mistakes(k: int, got: Array, inputs: list[Any], grad_output: Array) -> str | None:
    """``mistakes`` for a ** b: d/da = b * a**(b - 1), d/db = a**b * log(a)."""
    a, b = (np.asarray(v, dtype=float) for v in inputs)
    g = grad_output
    if k == 0:
        return _first(got, [
            (lambda: g * a ** (b - 1), _("the power rule is b * a**(b - 1): the factor b is missing")),
            (lambda: g * b * a ** b, _("the power rule is b * a**(b - 1): the exponent is b - 1")),
            (lambda: g * b * a ** (b - 1) * np.log(a), _("the log(a) belongs to b's gradient only")),
        ])
    return _first(got, [
        (lambda: g * a ** b, _("d(a**b)/db is a**b * log(a): the log(a) is missing")),
        (lambda: g * np.log(a), _("d(a**b)/db is a**b * log(a): the factor a**b (out) is missing")),
        (lambda: g * b * a ** (b - 1), _("that is a's gradient (the power rule); b's is out * log(a)")),
    ])
