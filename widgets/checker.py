"""Check a learner's code and show, in a table, what is right, what is wrong and why.

Two checkers, one result type (``CheckResult``), one look in the notebook:

``check_backward`` -- a backward against float64 finite differences and the reference op::

    from minitorch.functions import Mul, unbroadcast
    from widgets import check_backward

    def mul_backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        return unbroadcast(grad_output * b, a.shape), unbroadcast(grad_output * a, b.shape)

    check_backward(Mul, mul_backward, shapes=[((3,), (3,)), ((3, 1), (1, 5))], install=True)

  * ``check_backward(Mul, fn)``: ``fn(ctx, grad_output)`` is checked as ``Mul``'s backward.
    With ``install=True`` and a pass, ``Mul`` keeps using it for the rest of the notebook
    (``draw_graph`` marks those nodes); otherwise the reference backward is (re)installed,
    and the table says which one is in use.
  * ``check_backward(MyOp)``: a whole Function the learner wrote; compared with finite
    differences, and with ``reference=`` (a built-in Function, found by name when omitted).
  * ``check_backward(lambda a, b: ..., shapes=...)``: any function of tensors; its gradients
    (through the engine) against finite differences, and ``reference=`` when given.
  * ``shapes``: a list of cases; a case is one shape (one input) or a tuple of shapes.
    Defaults to elementwise cases with broadcasting. ``args``: extra non-tensor arguments
    passed after the tensors (``check_backward(Sum, fn, shapes=[(3, 4)], args=((1,), False))``).

``check_function`` -- any other exercise, against a reference implementation::

    check_function("broadcast shape", my_broadcast_shape, minitorch.broadcast_shape,
                   cases=[((3, 1), (1, 5)), ((2, 3), (3,))])

  A case is a tuple of arguments, or a zero-argument function returning one (fresh
  arguments for each side: use this when the function mutates them, like ``SGD.step``).
  ``compare(got, expected) -> (ok, hint)`` replaces the default comparison.

Neither ever raises into the notebook: the learner's exception is shown in the table.
``raise NotImplementedError`` (the unsolved exercise) gives the status "not done".
The result has ``.passed``, ``.status`` ("passed" / "failed" / "not done"), ``.rows``,
``.message``; every check is recorded for ``widgets.exercises.lesson_score()``.
The HTML contains no timings or addresses, so notebooks compare cleanly under nbval.
"""

import html
import inspect
import os
import sys
import traceback

import numpy as np

import minitorch
from minitorch import autograd
from minitorch.autograd import Function, overridden_functions
from minitorch.autograd.gradcheck import numerical_jacobian
from minitorch.tensor import Tensor
from widgets import exercises, style

PASSED, FAILED, NOT_DONE = "passed", "failed", "not done"
# Table cells: left-aligned, top-aligned (JupyterLab's default right-aligns table cells)
_CELL = "text-align:left;vertical-align:top;padding:2px 8px"

DEFAULT_SHAPES = {
    1: [(4,), (2, 3), ()],
    2: [((4,), (4,)), ((2, 3), (2, 3)), ((3, 1), (1, 4)), ((2, 3), (3,)), ((), (2, 2))],
    3: [((3,), (3,), (3,)), ((2, 3), (2, 1), (3,))],
}
# Ops whose inputs must stay positive (log, sqrt of negatives; division by ~0).
POSITIVE_OPS = {"Log", "Sqrt", "Div", "Pow"}


class CheckRow:
    """One line of the table: one input of one case (``check_backward``) or one case."""

    def __init__(self, case, ok, hint="", cells=None, **values):
        self.case = case
        self.ok = ok
        self.hint = hint
        self.cells = dict(cells or {}, case=case)  # column name -> shown text
        for key, value in values.items():  # raw values a test can assert on (input, error_fd, ...)
            setattr(self, key, value)

    def __repr__(self):
        return f"CheckRow({self.case}, ok={self.ok}, hint={self.hint!r})"


class CheckResult:
    """What a check found: ``status``, ``rows``, ``message``; shows itself as a table."""

    def __init__(self, name, columns, rows, status, message, note="", error=""):
        self.name = name
        self.columns = columns
        self.rows = rows
        self.status = status
        self.message = message
        self.note = note  # e.g. which backward is now in use
        self.error = error  # a learner's exception, formatted for reading

    @property
    def passed(self):
        return self.status == PASSED

    def __bool__(self):
        return self.passed

    def __repr__(self):
        lines = [f"{self.name}: {self.status.upper()} - {self.message}"]
        for row in self.rows:
            mark = "ok  " if row.ok else "FAIL"
            what = row.case + (f", {row.cells['input']}" if row.cells.get("input", "-") != "-" else "")
            lines.append(f"  [{mark}] {what}" + (f": {row.hint}" if row.hint and not row.ok else ""))
        if self.error:
            lines.append(self.error)
        if self.note:
            lines.append(self.note)
        return "\n".join(lines)

    def _repr_html_(self):
        colour = {PASSED: style.PASS_COLOUR, FAILED: style.FAIL_COLOUR}.get(self.status, style.TODO_COLOUR)
        icon = {PASSED: "&#10004;", FAILED: "&#10008;"}.get(self.status, "&#8230;")
        e = html.escape
        parts = [
            f'<div class="minitorch-check minitorch-check-{self.status.replace(" ", "-")}" '
            f'style="border-left:6px solid {colour};padding:6px 10px;margin:4px 0;font-family:sans-serif">',
            f'<div style="font-size:1.1em;color:{colour};font-weight:bold">{icon} {e(self.name)}: '
            f"{e(self.status)}</div>",
            f'<div style="margin:4px 0">{e(self.message)}</div>',
        ]
        if self.error:
            parts.append(
                f'<pre style="background:#fff3f3;border:1px solid #f0c0c0;padding:6px;white-space:pre-wrap">'
                f"{e(self.error)}</pre>"
            )
        if self.rows:
            head = "".join(f'<th style="{_CELL}">{e(c)}</th>' for c in [*self.columns, "result", "hint"])
            parts.append(f'<table style="border-collapse:collapse;font-size:0.9em"><tr>{head}</tr>')
            for row in self.rows:
                cells = "".join(f'<td style="{_CELL};font-family:monospace;white-space:nowrap">'
                                f'{e(str(row.cells.get(c, "")))}</td>' for c in self.columns)
                verdict = (f'<td style="{_CELL};color:{style.PASS_COLOUR}">pass</td>' if row.ok
                           else f'<td style="{_CELL};color:{style.FAIL_COLOUR};font-weight:bold">FAIL</td>')
                parts.append(f'<tr>{cells}{verdict}<td style="{_CELL}">{e(row.hint)}</td></tr>')
            parts.append("</table>")
        if self.note:
            parts.append(f'<div style="margin-top:4px;font-style:italic">{e(self.note)}</div>')
        parts.append("</div>")
        return "".join(parts)


# ---------------------------------------------------------------------- formatting
def describe_exception(exc):
    """``TypeError: message`` plus the line of the learner's code it came from."""
    text = f"{type(exc).__name__}: {exc}"
    frames = traceback.extract_tb(exc.__traceback__)
    # The learner's line: the last frame outside minitorch, widgets and NumPy (else the last one).
    own = [f for f in frames if not f.filename.startswith(_LIBRARY_DIRS)]
    frames = own or frames
    if frames:
        last = frames[-1]
        where = f"line {last.lineno} in {last.name}"
        if last.line:
            where += f":  {last.line.strip()}"
        text += f"\n  ({where})"
    return text


def _fmt_err(err):
    """Worst error, 2 digits; rounding noise shows as '< 1e-08' (its exact value varies by machine)."""
    if err is None:
        return "-"
    if not np.isfinite(err):
        return "NaN/Inf"
    return "< 1e-08" if err < 1e-8 else f"{err:.2g}"


def _short(value, limit=60):
    if isinstance(value, Tensor):
        value = value.data
    if isinstance(value, np.ndarray):
        text = np.array2string(value, precision=4, separator=", ", threshold=12)
    else:
        text = repr(value)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _case_label(shapes):
    return " & ".join(style.fmt_shape(s) for s in shapes)


_LIBRARY_DIRS = tuple(
    os.path.dirname(module.__file__) + os.sep for module in (minitorch, np, sys.modules["widgets"])
)


class _NotDone(Exception):
    """The learner's code raised NotImplementedError: the exercise is not attempted yet."""


# ---------------------------------------------------------------------- check_backward
class _reference_backwards:
    """Run a block with every op on its reference backward, then put the overrides back."""

    def __enter__(self):
        self.saved = {cls: cls.backward for cls in overridden_functions()}
        for cls in self.saved:
            cls.backward = staticmethod(cls.reference_backward)
        return self

    def __exit__(self, *exc):
        for cls, fn in self.saved.items():
            cls.backward = staticmethod(fn)
        return False


def _normalise_cases(shapes, n_operands):
    if shapes is None:
        shapes = DEFAULT_SHAPES.get(n_operands, DEFAULT_SHAPES[1])
    cases = []
    for case in shapes:
        case = tuple(case)
        if all(isinstance(s, (int, np.integer)) for s in case):  # one input given as one shape
            case = (case,)
        cases.append(tuple(tuple(int(v) for v in s) for s in case))
    return cases


def _n_operands(function):
    from widgets.graph import _is_operand, _operand_names

    try:
        names = _operand_names(function)
    except (TypeError, ValueError):
        return 2
    return sum(1 for i in range(len(names)) if _is_operand(function, i)) or 1


def _as_tuple(grads):
    if isinstance(grads, tuple):
        return grads
    if isinstance(grads, list):
        return tuple(grads)
    return (grads,)


def _to_numpy(g):
    if g is None:
        return None
    if isinstance(g, Tensor):
        g = g.data
    if hasattr(g, "get") and not isinstance(g, np.ndarray):
        g = g.get()
    return np.asarray(g)


class _Target:
    """What is checked, seen the same way in all three modes: forward, learner grads, reference grads."""

    def __init__(self, op, backward, reference, args):
        self.args = tuple(args)
        self.is_function = isinstance(op, type) and issubclass(op, Function)
        self.op = op
        if self.is_function:
            self.learner_backward = backward if backward is not None else op.backward
            self.label = f"{op.__name__}.backward"
            if reference is None:
                if backward is not None or op.__module__.startswith("minitorch."):
                    reference = op  # the built-in's reference_backward
                else:  # a learner's own Function: compare with the built-in of the same name
                    builtin = getattr(minitorch.functions, op.__name__, None)
                    reference = builtin if isinstance(builtin, type) and builtin is not op else None
        else:
            self.learner_backward = None
            self.label = getattr(op, "__name__", "function")
            if self.label == "<lambda>":
                self.label = "your function"
        self.reference = reference

    def forward(self, tensors):
        if self.is_function:
            return self.op.apply(*tensors, *self.args)
        return self.op(*tensors, *self.args)

    def learner_grads(self, tensors, grad_output):
        """The learner's gradient per input (raw: may be None, the wrong shape, ...)."""
        out = self.forward(tensors)
        if self.is_function:
            node = out.grad_fn
            raw = _as_tuple(self.learner_backward(node, grad_output.copy()))
            slots = [self._slot(node, t) for t in tensors]
            if len(raw) != len(node.next_functions):
                return raw, (
                    f"backward returned {len(raw)} gradient(s) but forward has {len(node.next_functions)} "
                    "input(s): return one per input (None for inputs that need no gradient)"
                )
            return tuple(raw[s] for s in slots), None
        out.backward(Tensor._make(grad_output, None, False))
        return tuple(None if t.grad is None else t.grad.data for t in tensors), None

    @staticmethod
    def _slot(node, tensor):
        for i, nxt in enumerate(node.next_functions):
            if nxt is tensor:
                return i
        raise RuntimeError("input not found in the graph")

    def reference_grads(self, arrays, grad_output):
        """The reference gradient per input, or None when there is no reference."""
        ref = self.reference
        if ref is None:
            return None
        tensors = [Tensor(a.copy(), requires_grad=True) for a in arrays]
        if isinstance(ref, type) and issubclass(ref, Function):
            out = ref.apply(*tensors, *self.args)
            raw = _as_tuple(ref.reference_backward(out.grad_fn, grad_output.copy()))
            return tuple(_to_numpy(raw[self._slot(out.grad_fn, t)]) for t in tensors)
        with _reference_backwards():
            ref(*tensors, *self.args).backward(Tensor._make(grad_output, None, False))
        return tuple(_to_numpy(t.grad) for t in tensors)


def check_backward(op, backward=None, shapes=None, *, args=(), reference=None, domain=None, install=False,
                   atol=1e-6, rtol=1e-5, seed=0, name=None):
    """Check a backward against float64 finite differences and the reference; see the module docstring.

    Returns a ``CheckResult``; shows a pass/fail table in a notebook; never raises.
    """
    target = _Target(op, backward, reference, args)
    name = name or target.label
    n_ops = _n_operands(op) if target.is_function else _n_callable_inputs(op)
    cases = _normalise_cases(shapes, n_ops)
    if domain is None:
        domain = (0.5, 2.0) if getattr(op, "__name__", "") in POSITIVE_OPS else (-2.0, 2.0)
    rng = np.random.default_rng(seed)
    rows, error, not_done = [], "", False
    columns = ["case", "input", "input shape", "your grad shape", "error vs finite diff", "error vs reference"]
    for shapes_ in cases:
        try:
            rows.extend(_check_case(target, shapes_, rng, domain, atol, rtol))
        except (_NotDone, NotImplementedError):
            not_done = True
            break
        except Exception as exc:  # the learner's code failed: show it, go on with the next case
            text = describe_exception(exc)
            error = error or text
            rows.append(CheckRow(_case_label(shapes_), False, text.splitlines()[0], {"input": "-"},
                                 input=None, error_fd=None, error_ref=None))
    if not_done:
        status = NOT_DONE
        message = "Not done yet: replace `raise NotImplementedError` with your code and run this cell again."
    elif all(r.ok for r in rows):
        status = PASSED
        checks = "finite differences" + (" and the reference backward" if target.reference is not None else "")
        message = f"All {len(rows)} checks passed on {len(cases)} case(s): your gradients match {checks}."
    else:
        status = FAILED
        bad = sum(1 for r in rows if not r.ok)
        message = f"{bad} of {len(rows)} checks failed. The hints below say what to look at."
    note = _install(target, backward, status, install)
    result = CheckResult(name, columns, rows, status, message, note, error)
    exercises.record(result)
    return result


def _n_callable_inputs(fn):
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return 1
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return sum(1 for p in params if p.default is p.empty and p.kind in positional) or 1


def _install(target, backward, status, install):
    """Keep the learner's backward (install=True and passed) or put the reference back; say which."""
    if not (target.is_function and backward is not None):
        return ""
    op = target.op
    if install and status == PASSED:
        autograd.override_backward(op, backward)
        return f"Installed: from here on {op.__name__} runs your backward (purple in draw_graph)."
    if op.backward_overridden:
        autograd.restore_backward(op)
    if status == NOT_DONE:
        return f"The reference {op.__name__}.backward is used from here on, so the rest of the notebook still works."
    if install:
        return f"Not installed: {op.__name__} keeps the reference backward until yours passes."
    return f"{op.__name__} uses the reference backward (pass install=True to run the rest of the notebook on yours)."


def _check_case(target, shapes, rng, domain, atol, rtol):
    """Rows (one per input) for one case of input shapes."""
    arrays = [np.asarray(rng.uniform(domain[0], domain[1], size=s)) for s in shapes]
    tensors = [Tensor(a.copy(), requires_grad=True) for a in arrays]
    with autograd.no_grad():
        out_shape = tuple(target.forward([Tensor(a.copy()) for a in arrays]).shape)
    grad_output = np.asarray(rng.standard_normal(out_shape))
    try:
        learner, count_problem = target.learner_grads(tensors, grad_output)
    except NotImplementedError as exc:
        raise _NotDone() from exc
    reference = target.reference_grads(arrays, grad_output)
    ones_reference = target.reference_grads(arrays, np.ones(out_shape)) if reference is not None else None
    label = _case_label(shapes)
    rows = []
    for k, shape in enumerate(shapes):
        fn = _numeric_fn(target)
        fd_inputs = [Tensor(a.copy(), requires_grad=True) for a in arrays]
        numeric = (numerical_jacobian(fn, fd_inputs, k, 1e-6) @ grad_output.reshape(-1)).reshape(shape)
        got = None if count_problem else _to_numpy(learner[k])
        ref = None if reference is None else reference[k].reshape(shape)
        ok, hint, err_fd, err_ref = _judge(got, numeric, ref, shape, out_shape, k, reference, ones_reference,
                                           grad_output, atol, rtol)
        if count_problem:
            ok, hint = False, count_problem
        cells = {
            "input": f"input {k}",
            "input shape": style.fmt_shape(shape),
            "your grad shape": "None" if got is None else style.fmt_shape(got.shape),
            "error vs finite diff": _fmt_err(err_fd),
            "error vs reference": "-" if ref is None else _fmt_err(err_ref),
        }
        rows.append(CheckRow(label, ok, hint, cells, input=k, error_fd=err_fd, error_ref=err_ref))
    return rows


def _numeric_fn(target):
    def fn(*tensors):
        # finite differences measure the forward only; any backward is irrelevant here
        return target.forward(list(tensors))

    return fn


def _judge(got, numeric, ref, shape, out_shape, k, reference, ones_reference, grad_output, atol, rtol):
    """(ok, hint, error vs finite differences, error vs reference) for one input's gradient."""
    if got is None:
        return False, f"backward returned None for input {k}, which needs a gradient", None, None
    if tuple(got.shape) != tuple(shape):
        if got.size > int(np.prod(shape)) or got.ndim > len(shape):
            hint = (f"your gradient has the output's broadcast shape {style.fmt_shape(got.shape)}: did you reduce "
                    f"the broadcast dimensions? (unbroadcast(grad, {style.fmt_shape(shape)}))")
        else:
            hint = f"the gradient of an input must have that input's shape {style.fmt_shape(shape)}"
        return False, hint, None, None
    if got.dtype != numeric.dtype:  # inputs are float64; so must their gradients be
        return False, f"your gradient is {got.dtype}, the input is {numeric.dtype}: keep the input's dtype", None, None
    if not np.all(np.isfinite(got)):
        return False, "your gradient contains NaN or Inf", float("nan"), float("nan")
    err_fd = float(np.max(np.abs(got - numeric), initial=0))
    err_ref = None if ref is None else float(np.max(np.abs(got - ref), initial=0))
    ok_fd = np.allclose(got, numeric, atol=atol, rtol=rtol)
    ok_ref = ref is None or np.allclose(got, ref, atol=atol, rtol=rtol)
    if ok_fd and ok_ref:
        return True, "", err_fd, err_ref
    expected = ref if ref is not None else numeric
    if np.allclose(got, -expected, atol=atol, rtol=rtol):
        hint = "the sign is flipped"
    elif ones_reference is not None and np.allclose(got, ones_reference[k].reshape(shape), atol=atol, rtol=rtol):
        hint = "did you multiply by grad_output? (chain rule: upstream gradient times the local derivative)"
    elif reference is not None and any(
        j != k and r is not None and r.shape == got.shape and np.allclose(got, r, atol=atol, rtol=rtol)
        for j, r in enumerate(reference)
    ):
        hint = "this is another input's gradient: return them in the order of forward's inputs"
    elif ok_ref and not ok_fd:
        hint = "matches the reference but not finite differences (is forward differentiable here?)"
    else:
        hint = "the values differ from the true derivative: check the formula"
    return False, hint, err_fd, err_ref


# ---------------------------------------------------------------------- check_function
def _same(got, expected, atol=1e-6, rtol=1e-5):
    """(ok, hint) for a default comparison: arrays/tensors by shape and value, the rest by ==."""
    if isinstance(expected, (Tensor, np.ndarray)) or isinstance(got, (Tensor, np.ndarray)):
        g, e = _to_numpy(got), _to_numpy(expected)
        if g is None or e is None:
            return False, f"expected {_short(expected)}, got {_short(got)}"
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
            ok, hint = _same(a, b, atol, rtol)
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
    """
    compare = compare or _same
    rows, error, status = [], "", None
    for case in cases:
        args_l, args_r = (case(), case()) if callable(case) else (tuple(case), tuple(case))
        label = describe(args_r) if describe else ", ".join(_short(a, 30) for a in args_r)
        expected = reference_fn(*args_r)
        try:
            got = learner_fn(*args_l)
        except NotImplementedError:
            status = NOT_DONE
            break
        except Exception as exc:
            text = describe_exception(exc)
            error = error or text
            rows.append(CheckRow(label, False, text.splitlines()[0], {"expected": _short(expected), "got": "error"}))
            continue
        try:
            ok, hint = compare(got, expected)
        except Exception as exc:  # comparing itself failed: the result has an unexpected type
            ok, hint = False, f"could not compare: {type(exc).__name__}: {exc}"
        rows.append(CheckRow(label, bool(ok), hint, {"expected": _short(expected), "got": _short(got)},
                             expected=expected, got=got))
    if status == NOT_DONE:
        message = "Not done yet: replace `raise NotImplementedError` with your code and run this cell again."
    elif all(r.ok for r in rows):
        status = PASSED
        message = f"All {len(rows)} cases match the reference."
    else:
        status = FAILED
        message = f"{sum(1 for r in rows if not r.ok)} of {len(rows)} cases differ from the reference."
    result = CheckResult(name, ["case", "expected", "got"], rows, status, message, "", error)
    exercises.record(result)
    return result
