"""Lesson 11's hint for ``find_nonfinite``: which names are missing or extra, and why.

    check_function("find_nonfinite", keep_inputs(find_nonfinite), keep_inputs(reference), cases=...,
                   compare=nonfinite_hint)

With the case's (name, tensor) pairs kept, the hint can say that a missed tensor held inf only
(a test with np.isnan) or NaN only (np.isinf), or that the gradients were not looked at.
``describe_pairs`` names a case in the table: each name, its values and its gradient.
"""

from typing import Any

import numpy as np

from widgets.check.check_result import to_numpy
from widgets.check.function_checker import same
from widgets.check.outcome import Outcome
from widgets.i18n import _


def _values(pairs: Any, name: str) -> np.ndarray | None:
    """The array behind ``name`` ("p0" or "p0.grad") in the case's pairs, or None."""
    if not isinstance(pairs, list):
        return None
    base, _dot, part = name.partition(".")
    for n, t in pairs:
        if n == base:
            return to_numpy(t.grad) if part == "grad" else to_numpy(t)
    return None


def nonfinite_hint(got: Outcome, expected: Outcome) -> tuple[bool, str]:
    """``compare``: a name missed (inf only, NaN only, a gradient), one listed wrongly, or the order."""
    ok, hint = same(got.value, expected.value)
    if ok or not isinstance(got.value, list):
        return ok, hint
    pairs = expected.args[0]
    missing = [n for n in expected.value if n not in got.value]
    extra = [n for n in got.value if n not in expected.value]
    if extra:
        return False, _("{name} is listed but holds no inf or NaN: list a name only when "
                        "np.isfinite(...).all() is False", name=extra[0])
    if missing:
        name = missing[0]
        values = _values(pairs, name)
        if values is not None and np.isinf(values).any() and not np.isnan(values).any():
            return False, _("{name} holds inf (no NaN) and was missed: np.isnan misses inf, np.isfinite catches "
                            "both", name=name)
        if values is not None and np.isnan(values).any() and not np.isinf(values).any():
            return False, _("{name} holds NaN (no inf) and was missed: np.isinf misses NaN, np.isfinite catches "
                            "both", name=name)
        if name.endswith(".grad"):
            return False, _("{name} was missed: check each gradient too (when t.grad is not None) and list "
                            "name + '.grad'", name=name)
        return False, _("{name} was missed: {hint}", name=name, hint=hint)
    if sorted(got.value) == sorted(expected.value):
        return False, _("the right names in another order: list them as named_tensors gives them, a value before "
                        "its .grad")
    return False, hint


def describe_pairs(args: tuple[Any, ...]) -> str:
    """The table's name for a case ``(named_tensors,)``: "p0=[1.0, nan] grad=None, ...", or that it is a generator."""
    (pairs,) = args
    if not isinstance(pairs, list):
        return _("a generator, as model.named_parameters() (read once)")
    return ", ".join(f"{n}={t.data.tolist()} grad={None if t.grad is None else t.grad.data.tolist()}"
                     for n, t in pairs)
