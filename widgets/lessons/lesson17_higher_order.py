"""Lesson 17's parts and checks: a double backward by hand, a Hessian-vector product, the
WGAN-GP gradient penalty and a jvp from two vjps.

    check_backward(TanhGrad, tanh_grad_backward, shapes=TANH_GRAD_SHAPES, install=True,
                   mistakes=double_backward_mistakes)
    check_function("Hessian-vector product", hvp_runs(hvp), hvp_runs(reference_hvp),
                   cases=HVP_CASES, compare=hvp_hint, describe=describe_case)
    check_function("gradient penalty", penalty_runs(gradient_penalty), penalty_runs(reference_penalty),
                   cases=PENALTY_CASES, compare=penalty_hint, describe=describe_case)
    check_function("jvp from two vjps", jvp_runs(jvp), jvp_runs(reference_jvp),
                   cases=JVP_CASES, compare=jvp_hint, describe=describe_case)

``TanhGrad(x, g) = g * (1 - tanh(x)**2)`` is what tanh's backward computes, made an op of
its own (PyTorch's ``tanh_backward``); its backward is tanh's *double* backward, which the
learner derives. ``Tanh`` is tanh with that op as its backward, so that ``gradgradcheck``
on it checks the learner's formula.

The three other checks run the learner's function on fresh inputs (``*_runs``) and keep
what came out — the value, or the error it raised — in a record; the reference's record
also holds the values of the wrong answers learners write (the Hessian times ones instead
of v, a norm over the whole batch, the vjp instead of the jvp...), and ``*_hint`` names
the one the learner's value equals, or says what an error means here (``create_graph``
missing, a tensor that does not require grad).
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import minitorch
from minitorch import autograd, nn
from minitorch.autograd import Function
from minitorch.tensor import Tensor
from widgets.i18n import _

F64 = minitorch.float64


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


# ---------------------------------------------------------------------- shared: what a learner's call gave
@dataclass
class Outcome:
    """What one call of a learner's function gave: an array (``value``), or what else it returned or raised.

    ``kind`` is the type of a result that is not one tensor (``"tuple"``, ``"NoneType"``...;
    ``count`` its length for a tuple or list), ``error`` the message of an exception it
    raised, ``graph`` whether the result was in a graph, ``grads`` gradients its backward
    gave (the penalty's critic); ``wrong`` (reference side only) holds the values of typical
    wrong answers, by name.
    """

    value: Any = None
    kind: str = ""
    count: int = 0
    error: str = ""
    graph: bool = False
    grads: list[Any] = field(default_factory=list)
    wrong: dict[str, Any] = field(default_factory=dict)

    def __repr__(self) -> str:
        if self.error:
            return _("error: {error}", error=self.error.splitlines()[0][:80])
        if self.kind:
            return self.kind
        return np.array2string(np.asarray(self.value), precision=4, threshold=6)


def _outcome(result: Any) -> Outcome:
    """An ``Outcome`` for a learner's result that should be one tensor."""
    if isinstance(result, Tensor):
        return Outcome(value=result.detach().numpy().copy(), graph=result.requires_grad)
    count = len(result) if isinstance(result, (tuple, list)) else 0
    return Outcome(kind=type(result).__name__, count=count)


def _common_hint(got: Outcome, expected: Outcome) -> tuple[bool, str] | None:
    """The hint for a result that is not one tensor of the right shape, or None to go on."""
    if got.kind in ("tuple", "list"):
        return False, _("returned a {type} of {n}: autograd.grad returns a tuple with one gradient per input; "
                        "unpack it, (g,) = autograd.grad(...)", type=got.kind, n=got.count)
    if got.kind == "NoneType":
        return False, _("returned None: did you forget `return`?")
    if got.kind:
        return False, _("returned a {type}: return the tensor", type=got.kind)
    if got.value.shape != expected.value.shape:
        return False, _("shape {got}, expected {expected}", got=got.value.shape, expected=expected.value.shape)
    return None


def _named_wrong(got: Outcome, expected: Outcome, texts: dict[str, str]) -> str | None:
    """The text of the first wrong answer (by name, in ``texts``' order) that the learner's value equals."""
    for name, text in texts.items():
        value = expected.wrong.get(name)
        if value is not None and np.shape(value) == got.value.shape and np.allclose(got.value, value, rtol=1e-6,
                                                                                   atol=1e-9):
            return text
    return None


def describe_case(args: tuple[Any, ...]) -> str:
    """The table's name for a case, in the learner's language."""
    names = {
        "quadratic": _("a quadratic, 0.5 x.Ax + b.x"),
        "tanh layer": _("a tanh layer, x of shape (3, 2)"),
        "mlp loss": _("a small MLP's loss, first-layer weights (2, 8)"),
        "critic, 6 points": _("a critic on 6 points"),
        "critic, 32 points": _("a critic on 32 points"),
        "2 outputs, 3 inputs": _("f: 3 numbers to 2"),
        "3 outputs, 3 inputs": _("f: 3 numbers to 3 (a square Jacobian)"),
        "elementwise (2, 3)": _("f elementwise on a (2, 3) tensor"),
    }
    return names.get(args[0], str(args[0]))


def _tensor(values: Any, requires_grad: bool = False) -> Tensor:
    return minitorch.tensor(np.asarray(values, dtype=np.float64), dtype=F64, requires_grad=requires_grad)


# ---------------------------------------------------------------------- exercise 2: a Hessian-vector product
def hvp_problem(case: str) -> tuple[Callable[[Tensor], Tensor], Tensor, Tensor]:
    """(f, x, v) for a case: f a scalar function of x, x a leaf that requires grad, v x's shape."""
    rng = np.random.default_rng({"quadratic": 1, "tanh layer": 2, "mlp loss": 3}[case])
    if case == "quadratic":
        m = rng.standard_normal((4, 4))
        a, b = _tensor(m @ m.T / 4 + np.eye(4)), _tensor(rng.standard_normal(4))

        def f(x: Tensor) -> Tensor:
            return 0.5 * (x * (a @ x)).sum() + (b * x).sum()

        shape: tuple[int, ...] = (4,)
    elif case == "tanh layer":
        data, weights = _tensor(rng.standard_normal((5, 3))), _tensor(rng.standard_normal((5, 2)))

        def f(x: Tensor) -> Tensor:
            return (weights * minitorch.tanh(data @ x)).sum()

        shape = (3, 2)
    else:
        data, w2 = _tensor(rng.standard_normal((6, 2))), _tensor(rng.standard_normal((8, 1)) / 3)
        target = _tensor(rng.standard_normal((6, 1)))

        def f(x: Tensor) -> Tensor:
            return ((minitorch.tanh(data @ x) @ w2 - target) ** 2).mean()

        shape = (2, 8)
    x = _tensor(rng.standard_normal(shape), requires_grad=True)
    v = _tensor(rng.standard_normal(shape))
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
            outcome = _outcome(hvp_fn(f, x, v))
        except NotImplementedError:
            raise
        except Exception as exc:  # the error is the learner's answer here: the hint explains it
            return Outcome(error=f"{type(exc).__name__}: {exc}")
        if reference:
            outcome.wrong = _hvp_wrong(*hvp_problem(case))
        return outcome

    return run


def _grad_error_hint(error: str, scalar: str = "") -> str | None:
    """What an error of ``autograd.grad`` means in these exercises, or None. ``scalar``: the hint for
    a non-scalar output given no grad_outputs."""
    if "does not have a grad_fn" in error:
        return _("the first gradient has no graph: call the first autograd.grad with create_graph=True, so that "
                 "its backward is recorded and can be differentiated again (and never .detach() it)")
    if "only for scalar outputs" in error and scalar:
        return scalar
    return None


def hvp_hint(got: Outcome, expected: Outcome) -> tuple[bool, str]:
    """``compare``: H v within rounding, or the mistake named."""
    if got.error:
        if "inner dimensions do not match" in got.error:
            return False, _("the dot product of two tensors of the same shape is (g * v).sum(), not a matrix "
                            "product g @ v")
        scalar = _("autograd.grad needs a scalar to differentiate (or grad_outputs): sum the products, "
                   "(g * v).sum()")
        return False, _grad_error_hint(got.error, scalar) or got.error.splitlines()[0]
    common = _common_hint(got, expected)
    if common:
        return common
    if np.allclose(got.value, expected.value, rtol=1e-7, atol=1e-10):
        return True, ""
    named = _named_wrong(got, expected, {
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


# ---------------------------------------------------------------------- exercise 3: the WGAN-GP gradient penalty
class Critic(nn.Module):
    """A tiny WGAN critic for 2-D points: tanh(x @ W1 + b1) @ W2 + b2, one score per point."""

    def __init__(self, hidden: int = 16, dtype: Any = minitorch.float32) -> None:
        super().__init__()
        self.W1 = nn.Parameter((minitorch.randn(2, hidden) * 0.8).to(dtype))
        self.b1 = nn.Parameter(minitorch.zeros(hidden).to(dtype))
        self.W2 = nn.Parameter((minitorch.randn(hidden, 1) * hidden ** -0.5).to(dtype))
        self.b2 = nn.Parameter(minitorch.zeros(1).to(dtype))

    def forward(self, x: Tensor) -> Tensor:
        """Scores of shape (n, 1) for points of shape (n, 2)."""
        return minitorch.tanh(x @ self.W1 + self.b1) @ self.W2 + self.b2


def ring_and_blob(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``n`` real points (a noisy unit circle) and ``n`` fake ones (a blob centred at (2.5, 0)), float32."""
    angle = rng.uniform(0, 2 * np.pi, n)
    real = np.stack([np.cos(angle), np.sin(angle)], axis=1) + rng.normal(0, 0.05, (n, 2))
    fake = rng.normal(0, 0.3, (n, 2)) + np.array([2.5, 0.0])
    return real.astype(np.float32), fake.astype(np.float32)


def _penalty_problem(case: str) -> tuple[Critic, Tensor, Tensor, Tensor]:
    """(critic, real, fake, eps) in float64 for a case ``"critic, N points"``."""
    n = int(case.split(", ")[1].split()[0])
    minitorch.manual_seed(n)
    critic = Critic(dtype=F64)
    rng = np.random.default_rng(n)
    real, fake = ring_and_blob(n, rng)
    eps = rng.uniform(0, 1, (n, 1))
    return critic, _tensor(real), _tensor(fake), _tensor(eps)


PENALTY_CASES = [("critic, 6 points",), ("critic, 32 points",)]


def reference_penalty(critic: Any, real: Tensor, fake: Tensor, eps: Tensor) -> Tensor:
    """mean over the batch of (|d critic / d x_hat| - 1)**2, x_hat = eps real + (1 - eps) fake."""
    x_hat = (eps * real + (1 - eps) * fake).requires_grad_()
    (g,) = autograd.grad(critic(x_hat).sum(), x_hat, create_graph=True)
    norm = (g * g).sum(dim=1).sqrt()
    return ((norm - 1) ** 2).mean()


def _penalty_wrong(critic: Any, real: Tensor, fake: Tensor, eps: Tensor) -> dict[str, Any]:
    """The values of the wrong penalties learners write."""

    def slopes(points: Tensor) -> Tensor:
        points = points.detach().requires_grad_()
        (g,) = autograd.grad(critic(points).sum(), points)
        return g

    g = slopes(eps * real + (1 - eps) * fake)
    squares = (g * g).sum(dim=1)
    norm = squares.sqrt()
    at = {name: ((slopes(p) * slopes(p)).sum(dim=1).sqrt() - 1) ** 2
          for name, p in (("real", real), ("fake", fake), ("reversed", (1 - eps) * real + eps * fake))}
    return {
        "whole batch": (((g * g).sum().sqrt() - 1) ** 2).numpy(),
        "no sqrt": ((squares - 1) ** 2).mean().numpy(),
        "no minus 1": (norm ** 2).mean().numpy(),
        "sum": ((norm - 1) ** 2).sum().numpy(),
        "abs": (norm - 1).abs().mean().numpy(),
        "mean first": ((norm.mean() - 1) ** 2).numpy(),
        "norm over dim 0": (((g * g).sum(dim=0).sqrt() - 1) ** 2).mean().numpy(),
        "reversed": at["reversed"].mean().numpy(),
        "real": at["real"].mean().numpy(),
        "fake": at["fake"].mean().numpy(),
    }


def penalty_runs(penalty_fn: Callable[..., Any]) -> Callable[[str], Outcome]:
    """``run(case)``: the penalty of a fresh critic, and the critic's parameter gradients from its backward."""
    reference = penalty_fn is reference_penalty

    def run(case: str) -> Outcome:
        critic, real, fake, eps = _penalty_problem(case)
        try:
            penalty = penalty_fn(critic, real, fake, eps)
            outcome = _outcome(penalty)
            if outcome.value is not None and outcome.graph:
                penalty.backward()
                outcome.grads = [None if p.grad is None else p.grad.numpy().copy() for p in critic.parameters()]
        except NotImplementedError:
            raise
        except Exception as exc:
            return Outcome(error=f"{type(exc).__name__}: {exc}")
        if reference:
            outcome.wrong = _penalty_wrong(*_penalty_problem(case))
        return outcome

    return run


def penalty_hint(got: Outcome, expected: Outcome) -> tuple[bool, str]:
    """``compare``: the penalty's value and the critic's gradients, or the mistake named."""
    if got.error:
        if "input 0 does not require grad" in got.error:
            return False, _("x_hat does not require grad, so there is no gradient with respect to it: make it a "
                            "leaf that does, x_hat = (...).requires_grad_()")
        scalar = _("the critic gives one score per point, shape (n, 1): differentiate their sum, "
                   "critic(x_hat).sum() (each score depends on its own point only, so row i of the gradient is "
                   "still the gradient of score i)")
        return False, _grad_error_hint(got.error, scalar) or got.error.splitlines()[0]
    common = _common_hint(got, expected)
    if common:
        return common
    if np.allclose(got.value, expected.value, rtol=1e-7, atol=1e-10):
        if not got.graph:
            return False, _("the right value, but the critic's weights get no gradient from it: call autograd.grad "
                            "with create_graph=True, so that the penalty can be trained")
        for p, (g, e) in enumerate(zip(got.grads, expected.grads)):
            if e is None and g is None:  # b2: the slopes do not depend on the critic's last bias
                continue
            if g is None or e is None or not np.allclose(g, e, rtol=1e-6, atol=1e-9):
                return False, _("the right value, but the gradient of the critic's parameter {p} differs: build "
                                "the penalty from the gradient autograd.grad(..., create_graph=True) returns, "
                                "without .detach() or .item()", p=p)
        return True, ""
    named = _named_wrong(got, expected, {
        "whole batch": _("one norm for the whole batch: the penalty takes each point's own gradient norm, "
                         "sum over dim=1 only, then the mean of (norm - 1)**2"),
        "norm over dim 0": _("the norm is over each point's coordinates, dim=1 (the gradient has shape (n, 2))"),
        "no sqrt": _("(|g|**2 - 1)**2: take the square root of the sum of squares, the norm |g|, before "
                     "subtracting 1"),
        "no minus 1": _("the penalty pulls the norm towards 1: (norm - 1)**2, not norm**2"),
        "sum": _("the sum over the batch: take the mean of (norm - 1)**2"),
        "abs": _("|norm - 1|: WGAN-GP squares it, (norm - 1)**2"),
        "mean first": _("(mean of the norms - 1)**2: square each point's (norm - 1) first, then take the mean"),
        "reversed": _("x_hat = eps * real + (1 - eps) * fake: eps weighs the real point"),
        "real": _("that is the penalty at the real points: take it at the interpolates x_hat between real and fake"),
        "fake": _("that is the penalty at the fake points: take it at the interpolates x_hat between real and fake"),
    })
    return False, named or _("differs from the penalty mean((|d critic(x_hat) / d x_hat| - 1)**2), x_hat = eps * "
                             "real + (1 - eps) * fake")


def gradient_norms(critic: Any, real: Tensor, fake: Tensor, eps: Tensor) -> np.ndarray:
    """Each interpolate's gradient norm |d critic / d x_hat|, as a NumPy array (for the plots)."""
    x_hat = (eps * real + (1 - eps) * fake).requires_grad_()
    (g,) = autograd.grad(critic(x_hat).sum(), x_hat)
    return np.sqrt((g.numpy() ** 2).sum(axis=1))


# ---------------------------------------------------------------------- exercise 4: jvp from two vjps
def jvp_problem(case: str) -> tuple[Callable[[Tensor], Tensor], Tensor, Tensor]:
    """(f, x, v) for a case: f of x, x a leaf that requires grad, v of x's shape."""
    rng = np.random.default_rng(len(case))
    if case == "2 outputs, 3 inputs":
        a = _tensor(rng.standard_normal((2, 3)))

        def f(x: Tensor) -> Tensor:
            return minitorch.tanh(a @ x)

        shape: tuple[int, ...] = (3,)
    elif case == "3 outputs, 3 inputs":
        b = _tensor(rng.standard_normal((3, 3)))

        def f(x: Tensor) -> Tensor:
            return minitorch.tanh(b @ x) * x

        shape = (3,)
    else:
        def f(x: Tensor) -> Tensor:
            return x * minitorch.exp(-x * x)

        shape = (2, 3)
    x = _tensor(rng.uniform(-1, 1, shape), requires_grad=True)
    v = _tensor(rng.standard_normal(shape))
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
            outcome = _outcome(jvp_fn(f, x, v))
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
        return False, _grad_error_hint(got.error, scalar) or got.error.splitlines()[0]
    if got.value is not None and got.value.shape != expected.value.shape:
        return False, _("shape {got}, expected {expected}: J v has f(x)'s shape; did you differentiate with respect "
                        "to x instead of u, or return J^T u?", got=got.value.shape, expected=expected.value.shape)
    common = _common_hint(got, expected)
    if common:
        return common
    if np.allclose(got.value, expected.value, rtol=1e-7, atol=1e-10):
        return True, ""
    named = _named_wrong(got, expected, {
        "vjp": _("that is v^T J, a vjp: for J v, give u as grad_outputs of the first grad and v to the second, "
                 "which differentiates with respect to u"),
        "zeros": _("all zeros: J^T u at u = 0 (or its derivative with respect to x) is zero; differentiate J^T u "
                   "with respect to u, with v as grad_outputs"),
    })
    return False, named or _("differs from J v: (g,) = grad(f(x), x, u, create_graph=True) with u zeros that "
                             "require grad, then grad(g, u, v)")


__all__ = [
    "Critic",
    "HVP_CASES",
    "JVP_CASES",
    "Outcome",
    "PENALTY_CASES",
    "TANH_GRAD_SHAPES",
    "Tanh",
    "TanhGrad",
    "describe_case",
    "double_backward_mistakes",
    "gradient_norms",
    "hvp_hint",
    "hvp_problem",
    "hvp_runs",
    "jvp_hint",
    "jvp_problem",
    "jvp_runs",
    "penalty_hint",
    "penalty_runs",
    "reference_hvp",
    "reference_jvp",
    "reference_penalty",
    "ring_and_blob",
]
