"""``check_function``: any exercise that is not a backward, against a reference implementation.

    check_function("broadcast shape", my_broadcast_shape, minitorch.broadcast_shape,
                   cases=[((3, 1), (1, 5)), ((2, 3), (3,))])

A case is a tuple of arguments, or a zero-argument function returning one (fresh
arguments for each side: use this when the function mutates them, like ``SGD.step``).
``compare(got, expected) -> (ok, hint)`` replaces the default comparison, which is strict
about types where a lesson asks for one: a tuple is not a list, a float not a Tensor.
``raises=ValueError``: where the reference raises, the learner's function must raise that type.

It never raises into the notebook: the learner's exception is shown in the table, and
``raise NotImplementedError`` (the unsolved exercise) gives the status "not done". Every
check is recorded for ``widgets.lesson_score()``.
"""

import inspect
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from minitorch.tensor import Tensor
from widgets import style
from widgets.check import scoreboard
from widgets.check.arguments import BadArguments, bad_arguments_result, what
from widgets.check.check_result import (
    FAILED,
    NOT_DONE,
    PASSED,
    CheckResult,
    CheckRow,
    Compare,
    describe_exception,
    short,
    to_numpy,
)
from widgets.check.mistakes import factor_hint, not_done_message
from widgets.i18n import _

COLUMNS = ["case", "expected", "got"]


def same(got: Any, expected: Any, atol: float = 1e-6, rtol: float = 1e-5) -> tuple[bool, str]:
    """(ok, hint) for a default comparison: arrays/tensors by shape and value, the rest by ==."""
    if got is None and expected is not None:
        return False, _("returned None: did you forget `return`?")
    # a NumPy scalar (np.float64: what summing to shape () gives) is a value like a 0-d array, so a
    # 0-d array matches it; only a real Python number asks for a Python number back
    python_number = isinstance(expected, (float, int)) and not isinstance(expected, (bool, np.generic))
    if python_number and isinstance(got, (Tensor, np.ndarray)):
        return False, _("returned a {type}; return a Python number (tensor.item() gives one, and keeps no "
                        "graph alive)", type=type(got).__name__)
    if isinstance(expected, tuple) and isinstance(got, list):
        return False, _("returned a list: return a tuple (write tuple(...) around it)")
    if isinstance(expected, (Tensor, np.ndarray, np.generic)) or isinstance(got, (Tensor, np.ndarray)):
        g, e = to_numpy(got), to_numpy(expected)
        if g is None or e is None:
            return False, _("expected {expected}, got {got}", expected=short(expected), got=short(got))
        if g.shape != e.shape:
            return False, _shape_hint(g.shape, e.shape)
        if g.dtype.kind in "fc" or e.dtype.kind in "fc":
            ok = np.allclose(g, e, atol=atol, rtol=rtol, equal_nan=True)
        else:
            ok = np.array_equal(g, e)
        return bool(ok), "" if ok else _array_hint(g, e, atol, rtol)
    if isinstance(expected, (list, tuple)) and isinstance(got, (list, tuple)):
        if len(got) != len(expected):
            return False, _("{got} items, expected {expected}", got=len(got), expected=len(expected))
        path, hint = _item_difference(got, expected, atol, rtol)
        if path:  # nested lists: "item 0, item 1: ...", not "item 0: item 1: ..."
            return False, _("{items}: {hint}", items=", ".join(_("item {i}", i=i) for i in path), hint=hint)
        return True, ""
    if isinstance(expected, float) and isinstance(got, (int, float)):
        ok = bool(np.isclose(got, expected, atol=atol, rtol=rtol))
        shown, want = style.format_pair(got, expected)
        return ok, "" if ok else _("got {got}, expected {expected}", got=shown, expected=want)
    ok = got == expected
    return bool(ok), "" if ok else _("got {got}, expected {expected}", got=short(got, 30), expected=short(expected, 30))


def _item_difference(got: Any, expected: Any, atol: float, rtol: float) -> tuple[list[int], str]:
    """([i, j, ...], hint) for the first differing item of two equally long sequences; ([], "") when none differs."""
    for i, (a, b) in enumerate(zip(got, expected)):
        nested = (isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and len(a) == len(b)
                  and not (isinstance(b, tuple) and isinstance(a, list)))
        if nested:  # go down, so the hint names the whole path
            path, hint = _item_difference(a, b, atol, rtol)
            if path:
                return [i, *path], hint
            continue
        ok, hint = same(a, b, atol, rtol)
        if not ok:
            return [i], hint
    return [], ""


def _shape_hint(got: tuple[int, ...], expected: tuple[int, ...]) -> str:
    """A wrong shape, and what the shapes say about it: size-1 axes dropped, leading axes not summed."""
    text = _("shape {got}, expected {expected}", got=style.fmt_shape(got), expected=style.fmt_shape(expected))
    if got and expected and len(got) < len(expected) and [n for n in got if n != 1] == [
            n for n in expected if n != 1]:
        return text + _(": the size-1 axes are missing (sum with keepdims=True, or reshape to the expected shape)")
    extra = len(got) - len(expected)
    if extra > 0 and tuple(got[extra:]) == tuple(expected):
        return text + _(": the {extra} leading axis(es) that broadcasting added are still there: sum them away",
                        extra=extra)
    return text


def _array_hint(got: np.ndarray, expected: np.ndarray, atol: float, rtol: float) -> str:
    """How two arrays of the same shape differ: a constant factor, or the first wrong element."""
    if got.dtype.kind in "fc" and expected.dtype.kind in "fc":
        factor = factor_hint(got, expected, sizes=expected.shape + (expected.size,))
        if factor:
            return factor
        bad = ~np.isclose(got, expected, atol=atol, rtol=rtol, equal_nan=True)
    else:
        bad = got != expected
    index = tuple(int(i) for i in np.unravel_index(int(np.argmax(bad)), got.shape)) if got.ndim else ()
    shown, want = style.format_pair(got[index], expected[index])
    return _("values differ at {index}: got {got}, expected {expected} ({bad} of {size} differ)",
             index=list(index), got=shown, expected=want, bad=int(bad.sum()), size=bad.size)


def _snapshot(value: Any) -> Any:
    """A copy of an argument's array values (arrays, tensors, lists of them), or None for anything else."""
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, Tensor):
        return np.array(to_numpy(value))
    if type(value) is list and value and all(isinstance(v, (np.ndarray, Tensor)) for v in value):
        return [_snapshot(v) for v in value]
    return None


def _same_values(before: Any, value: Any) -> bool:
    if isinstance(before, list):
        return isinstance(value, list) and len(value) == len(before) and all(
            _same_values(b, v) for b, v in zip(before, value))
    now = to_numpy(value)
    return now is not None and now.shape == before.shape and bool(np.array_equal(now, before, equal_nan=True))


def _changed_argument(fn: Callable[..., Any], before: list[Any] | None, args: tuple[Any, ...]) -> str:
    """'' or a hint naming the argument the learner's function changed in place (``h += ...``, ``g /= n``)."""
    if before is None:
        return ""
    for i, (snap, value) in enumerate(zip(before, args)):
        if snap is not None and not _same_values(snap, value):
            try:
                name = f"`{list(inspect.signature(fn).parameters)[i]}`"
            except (TypeError, ValueError, IndexError):
                name = _("argument {i}", i=i)
            return _("your function changed its input {name} in place (+=, *=, /=, [...] = or out=): the caller "
                     "still needs it. Compute a new array instead (x = x + ..., not x += ...)", name=name)
    return ""


def _is_one_pass(value: Any) -> bool:
    """True for an iterator (a generator such as model.named_parameters()): it can be read only once."""
    return hasattr(value, "__next__") and iter(value) is value


def check_function(name: str, learner_fn: Callable[..., Any], reference_fn: Callable[..., Any], cases: Iterable[Any],
                   compare: Compare | None = None, describe: Callable[[tuple[Any, ...]], str] | None = None,
                   raises: type[BaseException] | None = None) -> CheckResult:
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
    rows, error, status, not_done = [], "", None, None
    for i, case in enumerate(cases, 1):
        try:
            args_l, args_r = (case(), case()) if callable(case) else (tuple(case), tuple(case))
            args_l, args_r = tuple(args_l), tuple(args_r)
            label = describe(args_r) if describe else ", ".join(short(a, 30) for a in args_r)
            expected = _expected_value(reference_fn, args_r, raises)
        except Exception as exc:  # the case itself is wrong: say so, never blame the learner's code
            return bad_arguments_result("check_function", name, None, _(
                "case {i}: the reference failed on it ({error}); check the case's arguments",
                i=i, error=f"{type(exc).__name__}: {exc}"), COLUMNS)
        one_pass = any(_is_one_pass(a) for a in args_l)
        # a tuple case's arrays are shared with the reference and the hints: the learner must not change them
        before = None if callable(case) else [_snapshot(a) for a in args_l]
        try:
            got = learner_fn(*args_l)
        except NotImplementedError as exc:
            status, not_done = NOT_DONE, exc
            break
        except Exception as exc:
            if isinstance(expected, _Raises) and isinstance(exc, expected.type):
                rows.append(CheckRow(label, True, "", {"expected": str(expected), "got": type(exc).__name__}))
                continue
            if isinstance(expected, _Raises):
                rows.append(CheckRow(label, False, _("raised {got}, expected {expected}", got=type(exc).__name__,
                                                     expected=expected.type.__name__),
                                     {"expected": str(expected), "got": type(exc).__name__}))
                continue
            text = describe_exception(exc)
            error = error or text
            hint = text.splitlines()[0]
            if raises is not None:  # errors are part of this exercise: say that these arguments are not one
                hint += _("; but these arguments are valid: the reference returns {value}", value=short(expected, 30))
            rows.append(CheckRow(label, False, hint, {"expected": short(expected), "got": _("error")}))
            continue
        if isinstance(expected, _Raises):
            hint = _("no error raised: these arguments must raise {type} (returned {value})",
                     type=expected.type.__name__, value=short(got, 30))
            rows.append(CheckRow(label, False, hint, {"expected": str(expected), "got": short(got)}))
            continue
        try:
            ok, hint = compare(got, expected)
        except Exception as exc:  # comparing itself failed: the result has an unexpected type
            ok, hint = False, _("could not compare: {error}", error=f"{type(exc).__name__}: {exc}")
        changed = _changed_argument(learner_fn, before, args_l)
        if changed:
            ok, hint = False, changed + (f" ({hint})" if hint else "")
        if not ok and one_pass:
            hint += _("; the argument here is a generator (like model.named_parameters()): it can be read only "
                      "once, so go through it in a single loop")
        rows.append(CheckRow(label, bool(ok), hint, {"expected": short(expected), "got": short(got)},
                             expected=expected, got=got))
    if status == NOT_DONE:
        message = not_done_message(not_done)
    elif all(r.ok for r in rows):
        status = PASSED
        message = _("All {n} cases match the reference.", n=len(rows))
    else:
        status = FAILED
        message = _("{bad} of {n} cases differ from the reference.", bad=sum(1 for r in rows if not r.ok), n=len(rows))
    result = CheckResult(name, COLUMNS, rows, status, message, "", error)
    scoreboard.record(result)
    return result


class _Raises:
    """The reference raised: the learner's function must raise ``type`` too."""

    def __init__(self, exc_type: type[BaseException]) -> None:
        self.type = exc_type

    def __str__(self) -> str:
        return _("raises {type}", type=self.type.__name__)


def _expected_value(reference_fn: Callable[..., Any], args: tuple[Any, ...], raises: type[BaseException] | None) -> Any:
    """The reference's result, or ``_Raises`` when it raises and ``raises`` says that is expected."""
    if raises is None:
        return reference_fn(*args)
    try:
        return reference_fn(*args)
    except Exception:
        return _Raises(raises)


def _check_arguments(name: Any, learner_fn: Any, reference_fn: Any, cases: Any, compare: Any,
                     describe: Any) -> list[Any]:
    """The cases as a list, or ``BadArguments`` saying what to pass."""
    if not isinstance(name, str) or not name:
        raise BadArguments(_("name must be the exercise's name (a string), got {value}", value=what(name)))
    for arg, fn in (("learner_fn", learner_fn), ("reference_fn", reference_fn)):
        if not callable(fn):
            raise BadArguments(_("{arg} must be a function, got {value} (pass the function, not its result)",
                                 arg=arg, value=what(fn)))
    for arg, fn in (("compare", compare), ("describe", describe)):
        if fn is not None and not callable(fn):
            raise BadArguments(_("{arg} must be a function or None, got {value}", arg=arg, value=what(fn)))
    if isinstance(cases, (str, bytes, dict)) or not hasattr(cases, "__iter__"):
        raise BadArguments(_("cases must be a list of argument tuples, e.g. cases=[(1, 2), (3, 4)], got {value}",
                             value=what(cases)))
    cases = list(cases)
    if not cases:
        raise BadArguments(_("cases is empty, so nothing would be checked: give at least one tuple of arguments"))
    for i, case in enumerate(cases, 1):
        if not callable(case) and not isinstance(case, (tuple, list)):
            raise BadArguments(_("case {i} is {value}: write each case as a tuple of arguments, e.g. ({case},) "
                                 "for one argument", i=i, value=what(case), case=repr(case)))
    return cases
