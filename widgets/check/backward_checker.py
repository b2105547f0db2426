"""``check_backward``: a backward against float64 finite differences and the reference op.

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
  Defaults to elementwise cases with broadcasting. In a case, a Python float stands for a
  number operand (``((4,), 2.0)`` checks ``x * 2.0``: the backward must return None for it,
  as ``ctx.needs_input_grad`` says) and a NumPy array gives an input's exact values (ties).
  The first case is also run in float32: a gradient must keep its input's dtype. ``args``: extra non-tensor arguments
  passed after the tensors (``check_backward(Sum, fn, shapes=[(3, 4)], args=((1,), False))``).

It never raises into the notebook: the learner's exception is shown in the table, and
``raise NotImplementedError`` (the unsolved exercise) gives the status "not done". The
result is a ``CheckResult`` (``widgets.check_result``); every check is recorded for
``widgets.lesson_score()``.
"""

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from minitorch import autograd
from minitorch.autograd.gradcheck import numerical_jacobian
from minitorch.hints import Shape
from minitorch.tensor import Tensor
from widgets import style
from widgets.check import scoreboard
from widgets.check.arguments import BadArguments, bad_arguments_result, check_backward_arguments, normalise_cases
from widgets.check.backward_target import Target, make_inputs
from widgets.check.check_result import (
    FAILED,
    NOT_DONE,
    PASSED,
    CheckResult,
    CheckRow,
    describe_exception,
    fmt_err,
    to_numpy,
)
from widgets.check.dtype_culprits import calls_np_sqrt, float64_hint, locals_at_return
from widgets.check.mistakes import factor_hint, not_done_message
from widgets.i18n import _

DEFAULT_SHAPES = {
    1: [(4,), (2, 3), ()],
    2: [((4,), (4,)), ((2, 3), (2, 3)), ((3, 1), (1, 4)), ((2, 3), (3,)), ((), (2, 2))],
    3: [((3,), (3,), (3,)), ((2, 3), (2, 1), (3,))],
}
# Ops whose inputs must stay positive (log, sqrt of negatives; division by ~0).
POSITIVE_OPS = {"Log", "Sqrt", "Div", "Pow"}
# a lesson's hint for a wrong gradient: (input k, its gradient, the case's inputs, grad_output) -> hint or None
Mistakes = Callable[[int, np.ndarray, list[Any], np.ndarray], "str | None"]
Spec = Any  # one input of a case: a shape (tuple), a Python number (float) or given values (array)
COLUMNS = ["case", "input", "input shape", "your grad shape", "error vs finite diff", "error vs reference"]


class _NotDone(Exception):
    """The learner's code raised NotImplementedError: the exercise is not attempted yet."""


class _Tolerance:
    """``atol`` and ``rtol`` of ``np.allclose``, kept together."""

    def __init__(self, atol: float, rtol: float) -> None:
        self.atol = atol
        self.rtol = rtol

    def close(self, got: Any, expected: Any) -> bool:
        """True when ``got`` matches ``expected`` within the tolerance."""
        return bool(np.allclose(got, expected, atol=self.atol, rtol=self.rtol))


class _Expected:
    """What one input's gradient should be in one case, and what else helps name a mistake.

    ``numeric``: finite differences. ``reference``: the reference gradient of every input
    (None without a reference). ``ones_reference``: the same with ``grad_output`` all ones,
    to recognise a backward that forgot to multiply by ``grad_output``.
    """

    def __init__(self, k: int, shape: Shape, numeric: np.ndarray, reference: tuple[Any, ...] | None,
                 ones_reference: tuple[Any, ...] | None, out_shape: Shape | None = None) -> None:
        self.k = k
        self.shape = shape
        self.out_shape = out_shape
        self.numeric = numeric
        self.reference = reference
        self.ones_reference = ones_reference
        self.ref = None if reference is None else reference[k].reshape(shape)


# ---------------------------------------------------------------------- the check
def check_backward(op: Any, backward: Callable[..., Any] | None = None, shapes: Any = None, *, args: Any = (),
                   reference: Any = None, domain: Any = None, install: bool = False, atol: float = 1e-6,
                   rtol: float = 1e-5, seed: int = 0, name: str | None = None,
                   mistakes: Mistakes | None = None) -> CheckResult:
    """Check a backward against float64 finite differences and the reference; see the module docstring.

    Returns a ``CheckResult``; shows a pass/fail table in a notebook; never raises. Wrong
    arguments (a shape that is not a shape, ``args=1``, ...) give a failed result whose
    message starts "Bad arguments" and says how to call it. ``mistakes(k, got, inputs, grad_output)``:
    a lesson's own names for wrong gradients (``got`` for input ``k`` of the case ``inputs``),
    a hint or None, asked before the generic hints.
    """
    try:
        check_backward_arguments(op, backward, reference, args, domain, atol, rtol, name)
        if mistakes is not None and not callable(mistakes):
            raise BadArguments(_("mistakes must be a function (k, got, inputs, grad_output) -> hint or None, "
                                 "got {type}", type=type(mistakes).__name__))
        target = Target(op, backward, reference, args)
        name = name or target.label
        if shapes is None:
            shapes = DEFAULT_SHAPES.get(target.n_tensor_inputs(), DEFAULT_SHAPES[1])
        cases = normalise_cases(shapes, target.exact_inputs())
    except BadArguments as exc:
        return bad_arguments_result("check_backward", name, op, str(exc), COLUMNS)
    if domain is None:
        domain = (0.5, 2.0) if getattr(op, "__name__", "") in POSITIVE_OPS else (-2.0, 2.0)
    tol = _Tolerance(atol, rtol)
    rng = np.random.default_rng(seed)
    rows: list[CheckRow] = []
    error, not_done = "", None
    for case_shapes in cases:
        try:
            rows.extend(_check_case(target, case_shapes, rng, domain, tol, mistakes))
        except (_NotDone, NotImplementedError) as exc:
            not_done = exc.__cause__ or exc
            break
        except Exception as exc:  # the learner's code failed: show it, go on with the next case
            text = describe_exception(exc)
            error = error or text
            hint = text.splitlines()[0]
            if isinstance(exc, TypeError) and "'tuple'" in str(exc):
                hint += _(" (ctx.saved_tensors is a tuple: unpack it, e.g. `(out,) = ctx.saved_tensors`)")
            elif isinstance(exc, TypeError) and "expected a Tensor, got ndarray" in str(exc):
                hint += _(" (in a backward, grad_output and ctx.saved_tensors are arrays: use operators and "
                          "ctx.xp (NumPy) functions on them, e.g. ctx.xp.exp(a), not minitorch.exp(a))")
            elif isinstance(exc, TypeError) and "converted to Python scalars" in str(exc):
                hint += _(" (float() and .item() give one number: a gradient is a whole array, so keep it one "
                          "and leave out float())")
            numbers = [i for i, s in enumerate(case_shapes) if isinstance(s, float)]
            if numbers:
                hint += _(" (input {k} is a Python number here: check ctx.needs_input_grad and return None for it)",
                          k=numbers[0])
            rows.append(CheckRow(_case_label(case_shapes), False, hint, {"input": "-"},
                                 input=None, error_fd=None, error_ref=None))
    if not_done is None and rows and all(r.ok for r in rows):
        rows.extend(_check_float32(target, cases, domain))
    status, message = _verdict(rows, len(cases), not_done, target.reference is not None)
    note = _install(target, backward, status, install)
    result = CheckResult(name, COLUMNS, rows, status, message, note, error)
    scoreboard.record(result)
    return result


def _case_label(shapes: Sequence[Spec]) -> str:
    return " & ".join(_spec_label(s) for s in shapes)


def _spec_label(spec: Spec) -> str:
    if isinstance(spec, float):
        return _("number {value:g}", value=spec)  # as the case was written (6 digits at most)
    if isinstance(spec, np.ndarray):
        return _("{shape} with ties", shape=style.fmt_shape(spec.shape))
    return style.fmt_shape(spec)


def _verdict(rows: list[CheckRow], n_cases: int, not_done: BaseException | None,
             has_reference: bool) -> tuple[str, str]:
    """(status, message) for the whole check."""
    if not_done is not None:
        return NOT_DONE, not_done_message(not_done)
    if all(r.ok for r in rows):
        if has_reference:
            return PASSED, _("All {n} checks passed on {cases} case(s): your gradients match finite differences "
                             "and the reference backward.", n=len(rows), cases=n_cases)
        return PASSED, _("All {n} checks passed on {cases} case(s): your gradients match finite differences.",
                         n=len(rows), cases=n_cases)
    bad = sum(1 for r in rows if not r.ok)
    return FAILED, _("{bad} of {n} checks failed. The hints below say what to look at.", bad=bad, n=len(rows))


def _install(target: Target, backward: Callable[..., Any] | None, status: str, install: bool) -> str:
    """Keep the learner's backward (install=True and passed) or put the reference back; say which."""
    if not (target.is_function and backward is not None):
        return ""
    op = target.op
    if install and status == PASSED:
        autograd.override_backward(op, backward)
        return _("Installed: from here on {op} runs your backward (purple in draw_graph).", op=op.__name__)
    if op.backward_overridden:
        autograd.restore_backward(op)
    if status == NOT_DONE:
        return _("The reference {op}.backward is used from here on, so the rest of the notebook still works.",
                 op=op.__name__)
    if install:
        return _("Not installed: {op} keeps the reference backward until yours passes.", op=op.__name__)
    return _("{op} uses the reference backward (pass install=True to run the rest of the notebook on yours).",
             op=op.__name__)


def _case_arrays(shapes: Sequence[Spec], rng: np.random.Generator, domain: Sequence[float],
                 dtype: Any = np.float64) -> list[Any]:
    """The inputs of one case: random in ``domain``, given values (ties), or Python numbers."""
    arrays: list[Any] = []
    for spec in shapes:
        if isinstance(spec, float):
            arrays.append(spec)
        elif isinstance(spec, np.ndarray):
            arrays.append(spec.astype(dtype))
        else:
            arrays.append(np.asarray(rng.uniform(domain[0], domain[1], size=spec)).astype(dtype))
    return arrays


def _check_float32(target: Target, cases: list[tuple[Spec, ...]], domain: Sequence[float]) -> list[CheckRow]:
    """A failing row when the learner's gradient of a float32 input is not float32 (none when it is)."""
    if not (target.is_function and target.learner_backward is not None):
        return []
    shapes = next((c for c in cases if all(isinstance(s, tuple) for s in c)), None)
    if shapes is None:
        return []
    arrays = _case_arrays(shapes, np.random.default_rng(1), domain, np.float32)
    try:
        with autograd.no_grad():
            out_shape = tuple(target.forward(make_inputs(arrays, False)).shape)
        grad_output = np.ones(out_shape, dtype=np.float32)
        learner: tuple[Any, ...] | None
        inputs = make_inputs(arrays)
        # the backward's own variables, kept to name the one that made a gradient float64
        (learner, problem), local_values = locals_at_return(
            target.learner_backward, lambda: target.learner_grads(inputs, grad_output))
    except Exception:  # float64 passed; an error only in float32 is reported by the rows below
        learner, problem, local_values = None, _("your backward raised an error on float32 inputs"), {}
    rows = []
    for k, shape in enumerate(shapes):
        got = None if learner is None or problem else to_numpy(learner[k])
        if got is not None and got.dtype == np.float32:
            continue
        if problem or got is None:
            hint = problem or _("returned None for a float32 input")
        elif got.dtype == np.float64:
            hint = float64_hint(local_values, calls_np_sqrt(target.learner_backward))
        else:
            hint = _("your gradient is {dtype} for a float32 input: keep the input's dtype (.astype(a.dtype))",
                     dtype=got.dtype)

        cells = {"input": _("input {k}", k=k), "input shape": style.fmt_shape(shape) + " float32",
                 "your grad shape": "-" if got is None else style.fmt_shape(got.shape),
                 "error vs finite diff": "-", "error vs reference": "-"}
        rows.append(CheckRow(_case_label(shapes) + " float32", False, hint, cells, input=k,
                             error_fd=None, error_ref=None))
    return rows


def _check_case(target: Target, shapes: tuple[Spec, ...], rng: np.random.Generator, domain: Sequence[float],
                tol: _Tolerance, mistakes: "Mistakes | None" = None) -> list[CheckRow]:
    """Rows (one per input) for one case of input shapes."""
    arrays = _case_arrays(shapes, rng, domain)
    tensors = make_inputs(arrays)
    with autograd.no_grad():
        out_shape = tuple(target.forward(make_inputs(arrays, False)).shape)
    grad_output = np.asarray(rng.standard_normal(out_shape))
    try:
        learner, count_problem = target.learner_grads(tensors, grad_output)
    except NotImplementedError as exc:
        raise _NotDone() from exc
    reference = target.reference_grads(arrays, grad_output)
    ones_reference = target.reference_grads(arrays, np.ones(out_shape)) if reference is not None else None
    label = _case_label(shapes)
    rows = []
    positions = [i for i, a in enumerate(arrays) if isinstance(a, np.ndarray)]

    def forward_of_tensors(*ts: Tensor) -> Tensor:
        inputs = list(arrays)
        for i, t in zip(positions, ts):
            inputs[i] = t
        return target.forward(inputs)

    for k, spec in enumerate(shapes):
        got = None if count_problem else to_numpy(learner[k])
        if isinstance(spec, float):  # a Python number: it needs no gradient
            rows.append(_number_row(label, k, spec, got, count_problem))
            continue
        shape = arrays[k].shape
        fd_inputs = [Tensor(arrays[i].copy(), requires_grad=True) for i in positions]
        # finite differences measure the forward only; any backward is irrelevant here
        jacobian = numerical_jacobian(forward_of_tensors, fd_inputs, positions.index(k), 1e-6)
        numeric = (jacobian @ grad_output.reshape(-1)).reshape(shape)
        expected = _Expected(k, shape, numeric, reference, ones_reference, out_shape)
        ok, hint, err_fd, err_ref = _judge(got, expected, tol)
        if not ok and mistakes is not None and got is not None and not count_problem:
            hint = _lesson_hint(mistakes, k, got, arrays, grad_output) or hint
        if not ok and isinstance(spec, np.ndarray):
            hint += _("; this case has ties (equal values): tied elements share the gradient equally")
        if count_problem:
            ok, hint = False, count_problem
        cells = {
            "input": _("input {k}", k=k),
            "input shape": style.fmt_shape(shape),
            "your grad shape": "None" if got is None else style.fmt_shape(got.shape),
            "error vs finite diff": fmt_err(err_fd),
            "error vs reference": "-" if expected.ref is None else fmt_err(err_ref),
        }
        rows.append(CheckRow(label, ok, hint, cells, input=k, error_fd=err_fd, error_ref=err_ref))
    return rows


def _lesson_hint(mistakes: "Mistakes", k: int, got: np.ndarray, arrays: list[Any], grad_output: np.ndarray) -> str:
    """The lesson's name for a wrong gradient, or "" (a failing ``mistakes`` only loses its hint)."""
    try:
        return mistakes(k, got, arrays, grad_output) or ""
    except Exception:
        return ""


def _number_row(label: str, k: int, value: float, got: Any, count_problem: str | None) -> CheckRow:
    """The row of a Python-number input: its gradient must be None (``ctx.needs_input_grad[k]`` is False)."""
    ok = got is None and not count_problem
    hint = count_problem or ("" if ok else _("input {k} is the Python number {value:g}, so "
                                            "ctx.needs_input_grad[{k}] is False: return None for it", k=k, value=value))
    cells = {"input": _("input {k}", k=k), "input shape": _("number"), "your grad shape": "None" if got is None else
             style.fmt_shape(got.shape), "error vs finite diff": "-", "error vs reference": "-"}
    return CheckRow(label, ok, hint, cells, input=k, error_fd=None, error_ref=None)


# ---------------------------------------------------------------------- judging one gradient
def _judge(got: np.ndarray | None, expected: _Expected, tol: _Tolerance
           ) -> tuple[bool, str, float | None, float | None]:
    """(ok, hint, error vs finite differences, error vs reference) for one input's gradient."""
    if got is None:
        return False, _("backward returned None for input {k}, which needs a gradient", k=expected.k), None, None
    if tuple(got.shape) != tuple(expected.shape):
        reference = expected.reference or ()
        other = [j for j, r in enumerate(reference)
                 if j != expected.k and r is not None and r.shape == got.shape and np.allclose(got, r)]
        if other:
            return False, _("this is another input's gradient (input {k}'s shape and values): return the "
                            "gradients in the order of forward's inputs, each reduced to its own input's shape",
                            k=other[0]), None, None
        return False, _shape_hint(got, expected.shape, expected.out_shape), None, None
    if got.dtype != expected.numeric.dtype:  # inputs are float64; so must their gradients be
        hint = _("your gradient is {got}, the input is {expected}: keep the input's dtype", got=got.dtype,
                 expected=expected.numeric.dtype)
        return False, hint, None, None
    if not np.all(np.isfinite(got)):
        return False, _("your gradient contains NaN or Inf"), float("nan"), float("nan")
    ref = expected.ref
    err_fd = float(np.max(np.abs(got - expected.numeric), initial=0))
    err_ref = None if ref is None else float(np.max(np.abs(got - ref), initial=0))
    ok_fd = tol.close(got, expected.numeric)
    ok_ref = ref is None or tol.close(got, ref)
    if ok_fd and ok_ref:
        return True, "", err_fd, err_ref
    return False, _values_hint(got, expected, tol, ok_fd, ok_ref), err_fd, err_ref


def _shape_hint(got: np.ndarray, shape: Shape, out_shape: Shape | None = None) -> str:
    """Why a gradient of the wrong shape is wrong: a stray axis from ctx.saved_tensors, an unreduced broadcast."""
    got_shape, want = style.fmt_shape(got.shape), style.fmt_shape(shape)
    if tuple(got.shape) == (1, *shape) or (out_shape is not None and tuple(got.shape) == (1, *out_shape)):
        return _("your gradient has a stray leading axis of size 1 ({got} for an input of shape {want}): did you "
                 "unpack ctx.saved_tensors? (write `a, b = ctx.saved_tensors` or `(a,) = ctx.saved_tensors`)",
                 got=got_shape, want=want)
    extra = got.ndim - len(shape)  # leading (batch) axes of the output kept, as in a @ b's gradient
    if out_shape is not None and (tuple(got.shape) == tuple(out_shape) or (
            extra > 0 and tuple(got.shape[:extra]) == tuple(out_shape[:extra]) and got.shape[extra:] == shape)):
        return _("your gradient has the output's broadcast shape {got}: did you reduce the broadcast dimensions? "
                 "(unbroadcast(grad, {want}))", got=got_shape, want=want)
    return _("your gradient has shape {got}, but the gradient of an input must have that input's shape {want}",
             got=got_shape, want=want)


def _values_hint(got: np.ndarray, expected: _Expected, tol: _Tolerance, ok_fd: bool, ok_ref: bool) -> str:
    """Name the likely mistake behind a gradient with the right shape but wrong values."""
    k, reference, ones_reference = expected.k, expected.reference, expected.ones_reference
    target = expected.ref if expected.ref is not None else expected.numeric
    if tol.close(got, -target):
        return _("the sign is flipped")
    if ones_reference is not None and tol.close(got, ones_reference[k].reshape(expected.shape)):
        return _("did you multiply by grad_output? (chain rule: upstream gradient times the local derivative)")
    if reference is not None and any(
        j != k and r is not None and r.shape == got.shape and tol.close(got, r) for j, r in enumerate(reference)
    ):
        return _("this is another input's gradient: return them in the order of forward's inputs")
    if ok_ref and not ok_fd:
        return _("matches the reference but not finite differences (is forward differentiable here?)")
    n_in = int(np.prod(expected.shape))
    n_out = int(np.prod(expected.out_shape)) if expected.out_shape is not None else 1
    factor = factor_hint(got, target, sizes=(n_in, n_out, n_in // max(n_out, 1)))
    if factor:
        return factor
    return _where_hint(got, target)


def _where_hint(got: np.ndarray, target: np.ndarray) -> str:
    """Which elements are wrong: all, or only some (ties, zeros, one position)."""
    bad = ~np.isclose(got, target, atol=1e-6, rtol=1e-5)
    index = tuple(int(i) for i in np.unravel_index(int(np.argmax(bad)), got.shape)) if got.ndim else ()
    shown, want = style.format_pair(got[index], target[index])
    first = _("at {index}: got {got}, expected {expected}", index=list(index), got=shown, expected=want)
    if bad.all():
        return _("the values differ from the true derivative everywhere ({first}): check the formula", first=first)
    return _("{bad} of {size} values differ from the true derivative ({first}): check the formula",
             bad=int(bad.sum()), size=bad.size, first=first)
