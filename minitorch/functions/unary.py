"""Elementwise functions of one tensor: exp, log, sqrt, sin, cos, tanh, sigmoid, relu,
abs, clamp. Each backward multiplies the incoming gradient by the local derivative."""

from __future__ import annotations

from minitorch import backends
from minitorch.autograd.function import BackwardNode, Function
from minitorch.dtypes import default_float
from minitorch.errors import MiniTorchError, MiniTorchNotImplementedError
from minitorch.functions.autocast_policy import autocast_inputs
from minitorch.functions.promotion import cast
from minitorch.hints import Array, Gradients
from minitorch.tensor import Tensor


class Exp(Function):
    """exp(a).   d/da = exp(a), which forward already computed."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array) -> Array:
        out = ctx.xp.exp(a)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        (out,) = ctx.saved_tensors
        return (grad * out,)


class Log(Function):
    """log(a).   d/da = 1/a."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array) -> Array:
        ctx.save_for_backward(a)
        return ctx.xp.log(a)

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        (a,) = ctx.saved_tensors
        return (grad / a,)


class Log1p(Function):
    """log(1 + a), accurate for tiny a (where 1 + a rounds to 1).   d/da = 1 / (1 + a)."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array) -> Array:
        ctx.save_for_backward(a)
        return ctx.xp.log1p(a)

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        (a,) = ctx.saved_tensors
        return (grad / (1 + a),)


class Sqrt(Function):
    """sqrt(a).   d/da = 1 / (2 sqrt(a))."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array) -> Array:
        out = ctx.xp.sqrt(a)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        (out,) = ctx.saved_tensors
        return (grad / (2 * out),)


class Sin(Function):
    """sin(a).   d/da = cos(a)."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array) -> Array:
        ctx.save_for_backward(a)
        return ctx.xp.sin(a)

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        (a,) = ctx.saved_tensors
        return (grad * ctx.xp.cos(a),)


class Cos(Function):
    """cos(a).   d/da = -sin(a)."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array) -> Array:
        ctx.save_for_backward(a)
        return ctx.xp.cos(a)

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        (a,) = ctx.saved_tensors
        return (-grad * ctx.xp.sin(a),)


class Tanh(Function):
    """tanh(a).   d/da = 1 - tanh(a)**2."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array) -> Array:
        out = ctx.xp.tanh(a)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        (out,) = ctx.saved_tensors
        return (grad * (1 - out * out),)


class Sigmoid(Function):
    """1 / (1 + exp(-a)), computed without overflow.   d/da = s * (1 - s)."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array) -> Array:
        xp = ctx.xp
        # exp of a non-positive number never overflows; pick the form that uses one.
        e = xp.exp(-xp.abs(a))
        out = xp.where(a >= 0, 1 / (1 + e), e / (1 + e)).astype(e.dtype, copy=False)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        (out,) = ctx.saved_tensors
        return (grad * out * (1 - out),)


class ReLU(Function):
    """max(a, 0).   d/da = 1 where a > 0, else 0 (0 at exactly 0, as PyTorch).

    On a GPU both directions run a hand-written CUDA kernel (``minitorch.cuda.kernels``,
    found through the array's backend): one pass over memory instead of a comparison, a
    temporary and a multiply.
    """

    @staticmethod
    def forward(ctx: BackwardNode, a: Array) -> Array:
        kernels = backends.kernels_for(a)  # None on the CPU
        if kernels is not None:
            out = kernels.relu_forward(a)
        else:
            out = ctx.xp.maximum(a, 0)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        (out,) = ctx.saved_tensors
        return (relu_grad(out, grad),)


def relu_grad(out: Array, grad: Array) -> Array:
    """ReLU's backward from its output: ``grad`` where ``out != 0``, else 0 (one kernel on a GPU).

    The forward output is enough (it is 0 exactly where the input was <= 0), and it is
    what ReLU and the fused BiasReLU save anyway. "!= 0" rather than "> 0": a NaN input
    (whose output is NaN) passes its gradient through, as PyTorch's threshold_backward
    does, in one comparison.
    """
    kernels = backends.kernels_for(grad)
    if kernels is not None and grad.dtype == out.dtype:
        return kernels.relu_backward(out, grad)
    return grad * (out != 0)


class Abs(Function):
    """|a|.   d/da = sign(a) (0 at 0)."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array) -> Array:
        ctx.save_for_backward(a)
        return ctx.xp.abs(a)

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        (a,) = ctx.saved_tensors
        # sign(NaN) is NaN in NumPy but 0 in PyTorch's abs backward (sgn): no NaN from a NaN input.
        return (grad * ctx.xp.where(a != a, 0, ctx.xp.sign(a)),)


class Clamp(Function):
    """a limited to [low, high].   d/da = 1 inside the range (bounds included), else 0."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array, low: float | None, high: float | None) -> Array:
        ctx.save_for_backward(a)
        ctx.low, ctx.high = low, high
        return ctx.xp.clip(a, low, high)

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        (a,) = ctx.saved_tensors
        inside = True
        if ctx.low is not None:
            inside = a >= ctx.low
        if ctx.high is not None:
            inside = inside & (a <= ctx.high)
        return (grad * inside, None, None)


# ---------------------------------------------------------------------- user functions
def _floating(a: Tensor, op: str) -> Tensor:
    """Math functions compute in floating point: integer tensors become float32 first."""
    if not isinstance(a, Tensor):
        raise TypeError(f"{op}(): expected a Tensor, got {type(a).__name__}")
    if a.data.dtype.kind != "f":
        return cast(a, default_float())
    return a


def exp(a: Tensor) -> Tensor:
    """e to the power of each element."""
    a = _floating(a, "exp")
    (a,) = autocast_inputs("exp", a)  # float32 on CUDA
    return Exp.apply(a)


def log(a: Tensor) -> Tensor:
    """Natural logarithm of each element."""
    a = _floating(a, "log")
    (a,) = autocast_inputs("log", a)  # float32 on CUDA
    return Log.apply(a)


def log1p(a: Tensor) -> Tensor:
    """log(1 + a) of each element, without losing tiny a to rounding."""
    a = _floating(a, "log1p")
    (a,) = autocast_inputs("log1p", a)  # float32 on CUDA
    return Log1p.apply(a)


def sqrt(a: Tensor) -> Tensor:
    """Square root of each element."""
    return Sqrt.apply(_floating(a, "sqrt"))


def sin(a: Tensor) -> Tensor:
    """Sine of each element."""
    return Sin.apply(_floating(a, "sin"))


def cos(a: Tensor) -> Tensor:
    """Cosine of each element."""
    return Cos.apply(_floating(a, "cos"))


def tanh(input: Tensor) -> Tensor:
    """Hyperbolic tangent of each element."""
    return Tanh.apply(_floating(input, "tanh"))


def sigmoid(input: Tensor) -> Tensor:
    """The logistic function 1 / (1 + exp(-input)) of each element."""
    return Sigmoid.apply(_floating(input, "sigmoid"))


def relu(input: Tensor) -> Tensor:
    """max(input, 0) for each element; a bool tensor is refused, as in PyTorch."""
    _not_bool(input, "relu")
    return ReLU.apply(input)


def abs(a: Tensor) -> Tensor:
    """Absolute value of each element; a bool tensor is refused, as in PyTorch."""
    _not_bool(a, "abs", MiniTorchNotImplementedError)  # PyTorch: no "abs" kernel for Bool
    return Abs.apply(a)


def _not_bool(a: Tensor, op: str, error: type[MiniTorchError] = MiniTorchError) -> None:
    if isinstance(a, Tensor) and a.data.dtype.kind == "b":
        raise error(f"{op}(): not supported for a bool tensor (shape {tuple(a.shape)}); convert first, e.g. .long()")
