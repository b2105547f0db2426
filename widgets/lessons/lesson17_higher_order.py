"""Lesson 17's parts and checks: a double backward by hand, a Hessian-vector product, a jvp from two vjps.

    check_backward(TanhGrad, tanh_grad_backward, shapes=TANH_GRAD_SHAPES, install=True,
                   mistakes=double_backward_mistakes)
    check_function("Hessian-vector product", hvp_runs(hvp), hvp_runs(reference_hvp),
                   cases=HVP_CASES, compare=hvp_hint, describe=describe_case)
    check_function("jvp from two vjps", jvp_runs(jvp), jvp_runs(reference_jvp),
                   cases=JVP_CASES, compare=jvp_hint, describe=describe_case)

``TanhGrad(x, g) = g * (1 - tanh(x)**2)`` is what tanh's backward computes, made an op of
its own (PyTorch's ``tanh_backward``); its backward is tanh's *double* backward, which the
learner derives. ``Tanh`` is tanh with that op as its backward, so that ``gradgradcheck``
on it checks the learner's formula.

The other two checks run the learner's function on fresh inputs (``*_runs``) and keep what
came out in an ``Outcome`` (``lesson17_outcome.py``); the reference's also holds the values
of the wrong answers learners write (the Hessian times ones instead of v, the vjp instead of
the jvp...), and ``*_hint`` names the one the learner's value equals, or says what an error
means here (``create_graph`` missing, a tensor that does not require grad). The gradient
penalty's part is ``lesson17_penalty.py``.
"""

from collections.abc import Callable
from typing import Any

import numpy as np

import minitorch
from minitorch import autograd
from minitorch.autograd import Function
from minitorch.tensor import Tensor
from widgets.i18n import _
from widgets.lessons.lesson17_outcome import (
    Outcome,
    as_tensor,
    common_hint,
    grad_error_hint,
    named_wrong,
    outcome_of,
)


# ---------------------------------------------------------------------- exercise 1: tanh's double backward
class TanhGrad(Function):
    """``g * (1 - tanh(x)**2)``: tanh's backward as an op (PyTorch: ``tanh_backward``).

    Its backward, the double backward of tanh: d/dx = grad * g * (-2 t (1 - t**2)) and
    d/dg = grad * (1 - t**2), with t = tanh(x).
    """

    @staticmethod
    def forward(ctx: Any, x: Any, g: Any) -> Any:
        ctx.save_for_backward(x, g)
        t = ctx.xp.tanh(x)
        return g * (1 - t * t)

    @staticmethod
    def backward(ctx: Any, grad_output: Any) -> Any:
        x, g = ctx.saved_tensors
        t = ctx.xp.tanh(x)
        slope = 1 - t * t
        return grad_output * g * (-2 * t * slope), grad_output * slope


class Tanh(Function):
    """tanh, whose backward calls the op ``TanhGrad``: its second derivative is TanhGrad's backward."""

    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        ctx.save_for_backward(x)
        return ctx.xp.tanh(x)

    @staticmethod
    def backward(ctx: Any, grad_output: Any) -> Any:
        (x,) = ctx.saved_tensors
        grad_x = TanhGrad.apply(x, grad_output)  # recorded when x and grad_output are graph values
        # on plain arrays (a first-order backward) apply gives a Tensor with no graph: hand back its array
        return grad_x.data if isinstance(grad_x, Tensor) else grad_x


TANH_GRAD_SHAPES = [((4,), (4,)), ((2, 3), (2, 3))]


def _double_backward_wrong(k: int) -> list[tuple[Callable[[Any, Any, Any], Any], str]]:
    """[(a wrong d/dx (k=0) or d/dg (k=1) from (t, g, grad_output), what to say)], in the learner's language now."""
    if k == 0:
        return [
            (lambda t, g, go: go * (-2 * t * (1 - t * t)),
             _("d/dx of g * (1 - tanh(x)**2) keeps the factor g: multiply by g too")),
            (lambda t, g, go: go * g * (1 - t * t),
             _("that is tanh'(x) = 1 - t**2; d/dx needs the derivative of 1 - t**2, which is -2 t (1 - t**2)")),
            (lambda t, g, go: go * g * (-2 * t),
             _("the chain rule's inner factor is missing: d(t**2)/dx = 2 t * dt/dx = 2 t (1 - t**2)")),
            (lambda t, g, go: go * g * (-2 * np.arctanh(t) * (1 - t * t)),
             _("use t = tanh(x), not x: d/dx (1 - tanh(x)**2) = -2 tanh(x) (1 - tanh(x)**2)")),
            (lambda t, g, go: go * g * (-2 * t * (1 - t)), _("square t: 1 - tanh(x)**2 is 1 - t * t, not 1 - t")),
            (lambda t, g, go: go * (1 - t * t), _("this is d/dg, the gradient of input 1: return (d/dx, d/dg) in "
                                                  "the order of forward's inputs (x, g)")),
        ]
    return [
        (lambda t, g, go: go * g * (-2 * t * (1 - t * t)),
         _("this is d/dx, the gradient of input 0: return (d/dx, d/dg) in the order of forward's inputs (x, g)")),
        (lambda t, g, go: go * g * (1 - t * t), _("d/dg of g * (1 - t**2) is 1 - t**2: no factor g")),
        (lambda t, g, go: go * (-2 * t * (1 - t * t)),
         _("d/dg of g * (1 - t**2) is 1 - t**2: g appears only once, so nothing of x is differentiated here")),
    ]


def double_backward_mistakes(k: int, got: np.ndarray, inputs: list[Any], grad_output: np.ndarray) -> str | None:
    """``mistakes`` for TanhGrad's backward: which wrong derivative the gradient of input ``k`` equals."""
    x, g = (np.asarray(a, dtype=float) for a in inputs)
    t = np.tanh(x)
    for wrong, text in _double_backward_wrong(k):
        value = wrong(t, g, grad_output)
        if value.shape == got.shape and np.allclose(got, value, rtol=1e-5, atol=1e-6):
            return text
    return None


# ---------------------------------------------------------------------- the cases of exercises 2 and 4
def describe_case(args: tuple[Any, ...]) -> str:
    """The table's name for a case, in the learner's language."""
    names = {
        "quadratic": _("a quadratic, 0.5 x.Ax + b.x"),
        "tanh layer": _("a tanh layer, x of shape (3, 2)"),
        "mlp loss": _("a small MLP's loss, first-layer weights (2, 8)"),
        "2 outputs, 3 inputs": _("f: 3 numbers to 2"),
        "3 outputs, 3 inputs": _("f: 3 numbers to 3 (a square Jacobian)"),
        "elementwise (2, 3)": _("f elementwise on a (2, 3) tensor"),
    }
    return names.get(args[0], str(args[0]))



# ---------------------------------------------------------------------- exercise 2: a Hessian-vector product
def hvp_problem(case: str) -> tuple[Callable[[Tensor], Tensor], Tensor, Tensor]:
    """(f, x, v) for a case: f a scalar function of x, x a leaf that requires grad, v x's shape."""
    rng = np.random.default_rng({"quadratic": 1, "tanh layer": 2, "mlp loss": 3}[case])
    if case == "quadratic":
        m = rng.standard_normal((4, 4))
        a, b = as_tensor(m @ m.T / 4 + np.eye(4)), as_tensor(rng.standard_normal(4))

        def f(x: Tensor) -> Tensor:
            return 0.5 * (x * (a @ x)).sum() + (b * x).sum()

        shape: tuple[int, ...] = (4,)
    elif case == "tanh layer":
        data, weights = as_tensor(rng.standard_normal((5, 3))), as_tensor(rng.standard_normal((5, 2)))

        def f(x: Tensor) -> Tensor:
            return (weights * minitorch.tanh(data @ x)).sum()

        shape = (3, 2)
    else:
        data, w2 = as_tensor(rng.standard_normal((6, 2))), as_tensor(rng.standard_normal((8, 1)) / 3)
        target = as_tensor(rng.standard_normal((6, 1)))

        def f(x: Tensor) -> Tensor:
            return ((minitorch.tanh(data @ x) @ w2 - target) ** 2).mean()

        shape = (2, 8)
    x = as_tensor(rng.standard_normal(shape), requires_grad=True)
    v = as_tensor(rng.standard_normal(shape))
    return f, x, v


HVP_CASES = [("quadratic",), ("tanh layer",), ("mlp loss",)]


def reference_hvp(f: Callable[[Tensor], Tensor], x: Tensor, v: Tensor) -> Tensor:
    """H v: the gradient recorded (create_graph=True), then the gradient of (gradient . v)."""
    (g,) = autograd.grad(f(x), x, create_graph=True)
    (hv,) = autograd.grad((g * v).sum(), x)
    return hv


def _hvp_wrong(f: Callable[[Tensor], Tensor], x: Tensor, v: Tensor) -> dict[str, Any]:
    """The values of the wrong Hessian-vector products learners write."""
    (g,) = autograd.grad(f(x), x, create_graph=True)
    (h_ones,) = autograd.grad(g.sum(), x)
    gv = (g * v).detach().numpy()
    return {
        "H ones": h_ones.numpy(),
        "H ones * v": h_ones.numpy() * v.numpy(),
        "g * v": gv,
        "g": g.detach().numpy(),
        "2 H v": 2 * reference_hvp(f, x, v).numpy(),
    }


def hvp_runs(hvp_fn: Callable[..., Any]) -> Callable[[str], Outcome]:
    """``run(case)``: ``hvp_fn(f, x, v)`` on the case's fresh (f, x, v), as an Outcome."""
    reference = hvp_fn is reference_hvp

    def run(case: str) -> Outcome:
        f, x, v = hvp_problem(case)
        try:
            outcome = outcome_of(hvp_fn(f, x, v))
        except NotImplementedError:
            raise
        except Exception as exc:  # the error is the learner's answer here: the hint explains it
            return Outcome(error=f"{type(exc).__name__}: {exc}")
        if reference:
            outcome.wrong = _hvp_wrong(*hvp_problem(case))
        return outcome

    return run


def hvp_hint(got: Outcome, expected: Outcome) -> tuple[bool, str]:
    """``compare``: H v within rounding, or the mistake named."""
    if got.error:
        if "inner dimensions do not match" in got.error:
            return False, _("the dot product of two tensors of the same shape is (g * v).sum(), not a matrix "
                            "product g @ v")
        scalar = _("autograd.grad needs a scalar to differentiate (or grad_outputs): sum the products, "
                   "(g * v).sum()")
        return False, grad_error_hint(got.error, scalar) or got.error.splitlines()[0]
    common = common_hint(got, expected)
    if common:
        return common
    if np.allclose(got.value, expected.value, rtol=1e-7, atol=1e-10):
        return True, ""
    named = named_wrong(got, expected, {
        "H ones": _("that is H times a vector of ones: multiply the gradient by v before the second grad, "
                    "(g * v).sum()"),
        "H ones * v": _("that is (H 1) * v elementwise: v goes inside the second grad, as (g * v).sum(), "
                        "not multiplied afterwards"),
        "g * v": _("that is the gradient times v, not differentiated again: take autograd.grad of (g * v).sum() "
                   "with respect to x"),
        "g": _("that is the gradient itself: differentiate (g * v).sum() with respect to x once more"),
        "2 H v": _("twice H v: is a factor 2 counted twice (or the product added twice)?"),
    })
    return False, named or _("differs from H v (the reference and finite differences of the gradient agree): "
                             "first (g,) = grad(f(x), x, create_graph=True), then grad((g * v).sum(), x)")


# ---------------------------------------------------------------------- exercise 4 (section 6): jvp from two vjps
def jvp_problem(case: str) -> tuple[Callable[[Tensor], Tensor], Tensor, Tensor]:
    """(f, x, v) for a case: f of x, x a leaf that requires grad, v of x's shape."""
    rng = np.random.default_rng(len(case))
    if case == "2 outputs, 3 inputs":
        a = as_tensor(rng.standard_normal((2, 3)))

        def f(x: Tensor) -> Tensor:
            return minitorch.tanh(a @ x)

        shape: tuple[int, ...] = (3,)
    elif case == "3 outputs, 3 inputs":
        b = as_tensor(rng.standard_normal((3, 3)))

        def f(x: Tensor) -> Tensor:
            return minitorch.tanh(b @ x) * x

        shape = (3,)
    else:
        def f(x: Tensor) -> Tensor:
            return x * minitorch.exp(-x * x)

        shape = (2, 3)
    x = as_tensor(rng.uniform(-1, 1, shape), requires_grad=True)
    v = as_tensor(rng.standard_normal(shape))
    return f, x, v


JVP_CASES = [("2 outputs, 3 inputs",), ("3 outputs, 3 inputs",), ("elementwise (2, 3)",)]


def reference_jvp(f: Callable[[Tensor], Tensor], x: Tensor, v: Tensor) -> Tensor:
    """J v from two vjps: g(u) = J^T u (recorded), then the gradient of g(u) . v with respect to u."""
    out = f(x)
    u = minitorch.zeros(*out.shape, dtype=out.dtype, requires_grad=True)
    (g,) = autograd.grad(out, x, u, create_graph=True)
    (jv,) = autograd.grad(g, u, v)
    return jv


def _jvp_wrong(f: Callable[[Tensor], Tensor], x: Tensor, v: Tensor) -> dict[str, Any]:
    out = f(x)
    wrong: dict[str, Any] = {"zeros": np.zeros(out.shape)}
    if out.shape == x.shape:
        (vjp,) = autograd.grad(f(x), x, v)
        wrong["vjp"] = vjp.numpy()
    return wrong


def jvp_runs(jvp_fn: Callable[..., Any]) -> Callable[[str], Outcome]:
    """``run(case)``: ``jvp_fn(f, x, v)`` on the case's fresh (f, x, v), as an Outcome."""
    reference = jvp_fn is reference_jvp

    def run(case: str) -> Outcome:
        f, x, v = jvp_problem(case)
        try:
            outcome = outcome_of(jvp_fn(f, x, v))
        except NotImplementedError:
            raise
        except Exception as exc:
            return Outcome(error=f"{type(exc).__name__}: {exc}")
        if reference:
            outcome.wrong = _jvp_wrong(*jvp_problem(case))
        return outcome

    return run


def jvp_hint(got: Outcome, expected: Outcome) -> tuple[bool, str]:
    """``compare``: J v within rounding, or the mistake named."""
    if got.error:
        if "input 0 does not require grad" in got.error:
            return False, _("u must require grad (requires_grad=True): the second grad differentiates J^T u with "
                            "respect to u")
        if "appears to not have been used" in got.error:
            return False, _("the first gradient does not depend on u: give u as grad_outputs of the first grad "
                            "(with create_graph=True), so that the second grad can differentiate with respect to u")
        if "a grad_output has shape" in got.error:
            return False, _("v has x's shape, not f(x)'s: the first grad takes u (f(x)'s shape) as grad_outputs, "
                            "the second one takes v")
        scalar = _("f(x) is not a scalar: give u (zeros of f(x)'s shape that require grad) as grad_outputs of the "
                   "first grad")
        return False, grad_error_hint(got.error, scalar) or got.error.splitlines()[0]
    if got.value is not None and got.value.shape != expected.value.shape:
        return False, _("shape {got}, expected {expected}: J v has f(x)'s shape; did you differentiate with respect "
                        "to x instead of u, or return J^T u?", got=got.value.shape, expected=expected.value.shape)
    common = common_hint(got, expected)
    if common:
        return common
    if np.allclose(got.value, expected.value, rtol=1e-7, atol=1e-10):
        return True, ""
    named = named_wrong(got, expected, {
        "vjp": _("that is v^T J, a vjp: for J v, give u as grad_outputs of the first grad and v to the second, "
                 "which differentiates with respect to u"),
        "zeros": _("all zeros: J^T u at u = 0 (or its derivative with respect to x) is zero; differentiate J^T u "
                   "with respect to u, with v as grad_outputs"),
    })
    return False, named or _("differs from J v: (g,) = grad(f(x), x, u, create_graph=True) with u zeros that "
                             "require grad, then grad(g, u, v)")


__all__ = [
    "HVP_CASES",
    "JVP_CASES",
    "TANH_GRAD_SHAPES",
    "Tanh",
    "TanhGrad",
    "describe_case",
    "double_backward_mistakes",
    "hvp_hint",
    "hvp_problem",
    "hvp_runs",
    "jvp_hint",
    "jvp_problem",
    "jvp_runs",
    "reference_hvp",
    "reference_jvp",
]
