"""``check_function``: any exercise that is not a backward, against a reference implementation.

    check_function("broadcast shape", my_broadcast_shape, minitorch.broadcast_shape,
                   cases=[((3, 1), (1, 5)), ((2, 3), (3,))])

A case is a tuple of arguments, or a zero-argument function returning one (fresh
arguments for each side: use this when the function mutates them, like ``SGD.step``).
``compare(got, expected) -> (ok, hint)`` replaces the default comparison.

It never raises into the notebook: the learner's exception is shown in the table, and
``raise NotImplementedError`` (the unsolved exercise) gives the status "not done". Every
check is recorded for ``widgets.exercises.lesson_score()``.
"""

import numpy as np

from minitorch.tensor import Tensor
from widgets import argcheck, exercises, style
from widgets.check_result import (
    FAILED,
    NOT_DONE,
    NOT_DONE_MESSAGE,
    PASSED,
    CheckResult,
    CheckRow,
    describe_exception,
    short,
    to_numpy,
)
from widgets.checker_args import BadArguments, bad_arguments_result

COLUMNS = ["case", "expected", "got"]


def same(got, expected, atol=1e-6, rtol=1e-5):
    """(ok, hint) for a default comparison: arrays/tensors by shape and value, the rest by ==."""
    if isinstance(expected, (Tensor, np.ndarray)) or isinstance(got, (Tensor, np.ndarray)):
        g, e = to_numpy(got), to_numpy(expected)
        if g is None or e is None:
            return False, f"expected {short(expected)}, got {short(got)}"
        if g.shape != e.shape:
            return False, f"shape {style.fmt_shape(g.shape)}, expected {style.fmt_shape(e.shape)}"
        if g.dtype.kind in "fc" or e.dtype.kind in "fc":
            ok = np.allclose(g, e, atol=atol, rtol=rtol, equal_nan=True)
        else:
            ok = np.array_equal(g, e)
        return bool(ok), "" if ok else "values differ"
    if isinstance(expected, (list, tuple)) and isinstance(got, (list, tuple)):
        if len(got) != len(expected):
            return False, f"{len(got)} items, expected {len(expected)}"
        for i, (a, b) in enumerate(zip(got, expected)):
            ok, hint = same(a, b, atol, rtol)
            if not ok:
                return False, f"item {i}: {hint}"
        return True, ""
    if isinstance(expected, float) and isinstance(got, (int, float)):
        ok = bool(np.isclose(got, expected, atol=atol, rtol=rtol))
        return ok, "" if ok else "values differ"
    ok = got == expected
    return bool(ok), "" if ok else "values differ"


def check_function(name, learner_fn, reference_fn, cases, compare=None, describe=None):
    """Run ``learner_fn`` and ``reference_fn`` on every case and compare; see the module docstring.

    ``describe(args) -> str`` names a case in the table (default: the arguments, shortened).
    A wrong call (no cases, a case that is not a tuple, a reference that fails on a case)
    gives a failed result whose message starts "Bad arguments".
    """
    try:
        cases = _check_arguments(name, learner_fn, reference_fn, cases, compare, describe)
    except BadArguments as exc:
        return bad_arguments_result("check_function", name, None, str(exc), COLUMNS)
    compare = compare or same
    rows, error, status = [], "", None
    for i, case in enumerate(cases, 1):
        try:
            args_l, args_r = (case(), case()) if callable(case) else (tuple(case), tuple(case))
            args_l, args_r = tuple(args_l), tuple(args_r)
            label = describe(args_r) if describe else ", ".join(short(a, 30) for a in args_r)
            expected = reference_fn(*args_r)
        except Exception as exc:  # the case itself is wrong: say so, never blame the learner's code
            return bad_arguments_result("check_function", name, None, f"case {i}: the reference failed on it "
                                        f"({type(exc).__name__}: {exc}); check the case's arguments", COLUMNS)
        try:
            got = learner_fn(*args_l)
        except NotImplementedError:
            status = NOT_DONE
            break
        except Exception as exc:
            text = describe_exception(exc)
            error = error or text
            rows.append(CheckRow(label, False, text.splitlines()[0], {"expected": short(expected), "got": "error"}))
            continue
        try:
            ok, hint = compare(got, expected)
        except Exception as exc:  # comparing itself failed: the result has an unexpected type
            ok, hint = False, f"could not compare: {type(exc).__name__}: {exc}"
        rows.append(CheckRow(label, bool(ok), hint, {"expected": short(expected), "got": short(got)},
                             expected=expected, got=got))
    if status == NOT_DONE:
        message = NOT_DONE_MESSAGE
    elif all(r.ok for r in rows):
        status = PASSED
        message = f"All {len(rows)} cases match the reference."
    else:
        status = FAILED
        message = f"{sum(1 for r in rows if not r.ok)} of {len(rows)} cases differ from the reference."
    result = CheckResult(name, COLUMNS, rows, status, message, "", error)
    exercises.record(result)
    return result


def _check_arguments(name, learner_fn, reference_fn, cases, compare, describe):
    """The cases as a list, or ``BadArguments`` saying what to pass."""
    if not isinstance(name, str) or not name:
        raise BadArguments(f"name must be the exercise's name (a string), got {argcheck.what(name)}")
    for arg, fn in (("learner_fn", learner_fn), ("reference_fn", reference_fn)):
        if not callable(fn):
            raise BadArguments(f"{arg} must be a function, got {argcheck.what(fn)} (pass the function, not its result)")
    for arg, fn in (("compare", compare), ("describe", describe)):
        if fn is not None and not callable(fn):
            raise BadArguments(f"{arg} must be a function or None, got {argcheck.what(fn)}")
    if isinstance(cases, (str, bytes, dict)) or not hasattr(cases, "__iter__"):
        raise BadArguments(f"cases must be a list of argument tuples, e.g. cases=[(1, 2), (3, 4)], "
                           f"got {argcheck.what(cases)}")
    cases = list(cases)
    if not cases:
        raise BadArguments("cases is empty, so nothing would be checked: give at least one tuple of arguments")
    for i, case in enumerate(cases, 1):
        if not callable(case) and not isinstance(case, (tuple, list)):
            raise BadArguments(f"case {i} is {argcheck.what(case)}: write each case as a tuple of arguments, "
                               f"e.g. ({case!r},) for one argument")
    return cases
