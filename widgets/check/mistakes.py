"""Hints that name the mistake: what a wrong answer's numbers say about how it was written.

The checkers call these when a value is wrong; lessons call them from their own compare
functions. Each returns a short sentence for the table's "hint" column.

    factor_hint(got, expected, sizes=(12, 4))   # "off by exactly 1/12: did you divide ...?"
    derivative_hint(got, expected, eps)         # lesson 00: which finite difference was written
    trajectory_compare(names)                   # lesson 07/08: which step, parameter, by how much
    not_done_message(exc)                       # which function (so which cell) still raises
"""

from collections.abc import Sequence
from typing import Any

import numpy as np

from widgets.check.check_result import Compare, learner_frames
from widgets.i18n import _
from widgets.style import format_pair


def constant_factor(got: Any, expected: Any, rtol: float = 1e-5, atol: float = 1e-8) -> float | None:
    """The number c with got == c * expected (within tolerance), or None when there is none."""
    got, expected = np.asarray(got, dtype=float), np.asarray(expected, dtype=float)
    if got.shape != expected.shape or not np.all(np.isfinite(got)) or not np.any(np.abs(expected) > atol):
        return None
    c = float(np.sum(got * expected) / np.sum(expected * expected))
    if np.allclose(got, c * expected, rtol=rtol, atol=atol):
        return c
    return None


def factor_hint(got: Any, expected: Any, sizes: Sequence[int] = ()) -> str | None:
    """Name a gradient off by a constant factor (sign, 2, the number of elements...), else None."""
    c = constant_factor(got, expected)
    if c is None or abs(c - 1) < 1e-6:
        return None
    if abs(c + 1) < 1e-6:
        return _("the sign is flipped")
    if abs(c) < 1e-12:
        return None
    sign = _("minus ") if c < 0 else ""
    for n in sorted({int(s) for s in sizes if s and int(s) > 1}, reverse=True):
        if np.isclose(abs(c), 1 / n, rtol=1e-6):
            return _("off by exactly {sign}1/{n}: did you divide by the number of elements ({n})? "
                     "(only a mean divides; check which count you divide by)", sign=sign, n=n)
        if np.isclose(abs(c), n, rtol=1e-6):
            return _("off by exactly a factor {sign}{n}: did you forget to divide by the number of "
                     "elements ({n})?", sign=sign, n=n)
    if np.isclose(abs(c), 2, rtol=1e-6):
        return _("{sign}twice the right values: is a factor 2 counted twice (or a term added twice)?", sign=sign)
    if np.isclose(abs(c), 0.5, rtol=1e-6):
        return _("{sign}half the right values: is a factor 2 missing?", sign=sign)
    whole = round(1 / abs(c)) if abs(c) < 1 else round(abs(c))
    if 2 < whole <= 1000 and np.isclose(abs(c) if abs(c) > 1 else 1 / abs(c), whole, rtol=1e-6):
        if abs(c) < 1:
            return _("off by exactly {sign}1/{whole}: is there a mean (or a division by {whole}) where a sum "
                     "belongs?", sign=sign, whole=whole)
        return _("{sign}{whole} times the right values: is a term counted {whole} times, or a division missing?",
                 sign=sign, whole=whole)
    return _("off by a constant factor {c:.3g} everywhere: the formula has a wrong constant", c=c)


def derivative_hint(got: Any, expected: float, eps: float = 1e-4) -> str:
    """Lesson 00: which finite difference ``got`` looks like, from its ratio and sign to ``expected``."""
    if got is None:
        return _("returned None: did you forget `return`?")
    if not isinstance(got, (int, float)) or isinstance(got, bool):
        return _("return a number, got {type}", type=type(got).__name__)
    if expected == 0:
        return _("off by {error:.1e}", error=abs(got))
    ratio = got / expected
    error = abs(got - expected)
    if np.isclose(ratio, -1, rtol=1e-3):
        return _("the sign is flipped: it is f(x + eps) - f(x - eps), in that order")
    if np.isclose(ratio, 2, rtol=1e-3):
        return _("twice the derivative: divide by 2 * eps (the two points are 2 * eps apart)")
    if np.isclose(ratio, 0.5, rtol=1e-3):
        return _("half the derivative: the two points are 2 * eps apart, divide by 2 * eps, not 4 * eps")
    if abs(ratio) > 0.1 / eps:
        return _("far too large: divide the difference by 2 * eps (in parentheses: / (2 * eps))")
    if abs(ratio) < 10 * eps:
        return _("far too small: is the difference multiplied by eps instead of divided?")
    if error < 1e-6 * max(1.0, abs(expected)) * 1e4 and error > 1e-2 * eps * max(1.0, abs(expected)):
        return _("off by {error:.1e}, about the size of eps: that is the one-sided difference's error; "
                 "use the central difference (f(x + eps) - f(x - eps)) / (2 * eps)", error=error)
    return _("off by {error:.1e} (ratio {ratio:.3g} to the true derivative): check the formula",
             error=error, ratio=ratio)


def trajectory_compare(names: Sequence[str], atol: float = 1e-6, rtol: float = 1e-5) -> Compare:
    """A ``compare`` for histories: one list entry per step, each the parameters' values flattened.

    ``names`` labels the flat entries (e.g. ["w[0,0]", ..., "b[1]"]). The hint says the first
    step and parameter that differ, the values, and whether the first step was already wrong.
    """
    def compare(got: Any, expected: Any) -> tuple[bool, str]:
        if got is None:
            return False, _("returned None: did you forget `return`?")
        if len(got) != len(expected):
            return False, _("{got} steps, expected {expected}", got=len(got), expected=len(expected))
        for step, (g, e) in enumerate(zip(got, expected), 1):
            g, e = np.asarray(g, dtype=float), np.asarray(e, dtype=float)
            if g.shape != e.shape:
                return False, _("step {step}: {got} values, expected {expected}", step=step, got=g.size,
                                expected=e.size)
            bad = ~np.isclose(g, e, atol=atol, rtol=rtol)
            if bad.any():
                i = int(np.argmax(bad))
                name = names[i] if i < len(names) else _("value {i}", i=i)
                where = (_("already at the first step") if step == 1
                         else _("steps 1-{last} matched", last=step - 1))
                shown, want = format_pair(g[i], e[i])
                return False, _("step {step}, {name}: got {got}, expected {expected} (off by {off:+.2g}); {where}",
                                step=step, name=name, got=shown, expected=want, off=g[i] - e[i], where=where)
        return True, ""
    return compare


def not_done_message(exc: BaseException | None = None) -> str:
    """'Not done yet' naming the function that still raises NotImplementedError (its cell is the one to edit)."""
    where = ""
    if exc is not None and exc.__traceback__ is not None:
        frames = learner_frames(exc)
        if frames:
            where = _("`{function}` still raises NotImplementedError. ", function=frames[-1])
    return _("Not done yet: {where}Edit the exercise cell above that defines it: replace `# YOUR CODE HERE` "
             "and `raise NotImplementedError()` with your code, run that cell, then run this one again.",
             where=where)
