"""Lesson 10's ReLU kernel check: compare a kernel's output with max(x, 0), value for value.

    check_function("ReLU kernel", learner_relu, cpu_relu, cases, compare=same_as_relu, describe=describe_relu_case)

The comparison is exact (no tolerance): ``max(x, 0)`` has one right answer in every dtype, and
a body that computes in another precision or returns ``-0.0`` where it should not is a bug.
"""

from typing import Any

import numpy as np

from widgets.i18n import _


def same_as_relu(got: Any, expected: np.ndarray) -> tuple[bool, str]:
    """``compare``: (ok, hint) for the kernel's output ``got`` against ``max(x, 0)``: the shape, then each value."""
    got = np.asarray(got)
    if got.shape != expected.shape:
        return False, _("shape {got}, expected {expected}", got=got.shape, expected=expected.shape)
    wrong = got != expected
    if wrong.any():
        i = np.flatnonzero(wrong)[0]
        return False, _("{wrong} of {size} values differ from max(x, 0): got {got:g} where max(x, 0) = {expected:g}",
                        wrong=int(wrong.sum()), size=wrong.size, got=got.flat[i], expected=expected.flat[i])
    return True, ""


def describe_relu_case(args: tuple[Any, ...]) -> str:
    """The table's name for a case ``(x,)``: its dtype and shape."""
    (x,) = args
    return _("{dtype} of shape {shape}", dtype=x.dtype, shape=x.shape)
