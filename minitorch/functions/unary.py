"""Elementwise functions of one tensor: exp, log, log1p, sqrt, sin, cos, tan, tanh, sigmoid,
relu, abs, clamp; reciprocal, rsqrt, log2, log10, expm1, exp2, square.

Each backward multiplies the incoming gradient by the local derivative (from the output
where it can). The math functions compute in floating point: an integer input becomes the
default float (``float_math``). Rounding (zero gradient) is in ``rounding.py``; functions
of two or three tensors (atan2, fmod, lerp) in ``binary_math.py``.
"""

from __future__ import annotations

import math
from typing import Any

from minitorch.autograd.function import BackwardNode, Function
from minitorch.dtypes import default_float
from minitorch.errors import MiniTorchError, MiniTorchNotImplementedError
from minitorch.functions.arithmetic import pow
from minitorch.functions.autocast_policy import autocast_inputs
from minitorch.functions.conversion import cast
from minitorch.hints import Array, Gradients
from minitorch.switches import SWITCHES
from minitorch.tensor_base import T, TensorBase

_LN2 = math.log(2.0)
_LN10 = math.log(10.0)


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

    (On a GPU each direction is one hand-written CUDA kernel: a fast kernel in
    ``minitorch/kernels/cuda/elementwise.py``.)
    """

    @staticmethod
    def forward(ctx: BackwardNode, a: Array) -> Array:
        out = ctx.xp.maximum(a, 0)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        (out,) = ctx.saved_tensors
        return (relu_grad(out, grad),)


def relu_grad(out: Array, grad: Array) -> Array:
    """ReLU's backward from its output: ``grad`` where ``out != 0``, else 0.

    The forward output is enough (it is 0 exactly where the input was <= 0), and it is
    what ReLU and the fused BiasReLU save anyway. "!= 0" rather than "> 0": a NaN input
    (whose output is NaN) passes its gradient through, as PyTorch's threshold_backward
    does, in one comparison.
    """
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


# ---------------------------------------------------------------------- more smooth functions of one input
class Reciprocal(Function):
    """1 / a.   d/da = -1/a**2 = -out**2."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array) -> Array:
        out = 1 / a
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        (out,) = ctx.saved_tensors
        return (-grad * (out * out),)


class Rsqrt(Function):
    """1 / sqrt(a).   d/da = -a**(-3/2) / 2 = -out**3 / 2."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array) -> Array:
        out = 1 / ctx.xp.sqrt(a)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        (out,) = ctx.saved_tensors
        return (-0.5 * grad * out * out * out,)


class Log2(Function):
    """log2(a).   d/da = 1 / (a ln 2)."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array) -> Array:
        ctx.save_for_backward(a)
        return ctx.xp.log2(a)

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        (a,) = ctx.saved_tensors
        return (grad / (a * _LN2),)


class Log10(Function):
    """log10(a).   d/da = 1 / (a ln 10)."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array) -> Array:
        ctx.save_for_backward(a)
        return ctx.xp.log10(a)

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        (a,) = ctx.saved_tensors
        return (grad / (a * _LN10),)


class Expm1(Function):
    """exp(a) - 1, accurate for tiny a (where exp(a) rounds to 1).   d/da = exp(a) = out + 1."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array) -> Array:
        out = ctx.xp.expm1(a)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        (out,) = ctx.saved_tensors
        return (grad * (out + 1),)


class Exp2(Function):
    """2 ** a.   d/da = 2**a ln 2 = out ln 2."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array) -> Array:
        out = ctx.xp.exp2(a)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        (out,) = ctx.saved_tensors
        return (grad * out * _LN2,)


class Tan(Function):
    """tan(a).   d/da = 1 / cos(a)**2 = 1 + out**2."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array) -> Array:
        out = ctx.xp.tan(a)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        (out,) = ctx.saved_tensors
        return (grad * (1 + out * out),)


# ---------------------------------------------------------------------- user functions
def _floating(a: T, op: str) -> T:
    """Math functions compute in floating point: integer tensors become float32 first."""
    if not isinstance(a, TensorBase):
        raise TypeError(f"{op}(): expected a Tensor, got {type(a).__name__}")
    if a.data.dtype.kind != "f":
        return cast(a, default_float())
    return a


def exp(a: T) -> T:
    """e to the power of each element."""
    a = _floating(a, "exp")
    if SWITCHES.autocast is not None:  # PyTorch's autocast list for the device decides
        (a,) = autocast_inputs("exp", a)
    return Exp.apply(a)


def log(a: T) -> T:
    """Natural logarithm of each element."""
    a = _floating(a, "log")
    if SWITCHES.autocast is not None:  # PyTorch's autocast list for the device decides
        (a,) = autocast_inputs("log", a)
    return Log.apply(a)


def log1p(a: T) -> T:
    """log(1 + a) of each element, without losing tiny a to rounding."""
    a = _floating(a, "log1p")
    if SWITCHES.autocast is not None:  # PyTorch's autocast list for the device decides
        (a,) = autocast_inputs("log1p", a)
    return Log1p.apply(a)


def sqrt(a: T) -> T:
    """Square root of each element."""
    return Sqrt.apply(_floating(a, "sqrt"))


def sin(a: T) -> T:
    """Sine of each element."""
    return Sin.apply(_floating(a, "sin"))


def cos(a: T) -> T:
    """Cosine of each element."""
    return Cos.apply(_floating(a, "cos"))


def tanh(input: T) -> T:
    """Hyperbolic tangent of each element."""
    return Tanh.apply(_floating(input, "tanh"))


def sigmoid(input: T) -> T:
    """The logistic function 1 / (1 + exp(-input)) of each element."""
    return Sigmoid.apply(_floating(input, "sigmoid"))


def relu(input: T) -> T:
    """max(input, 0) for each element; a bool tensor is refused, as in PyTorch."""
    _not_bool(input, "relu")
    return ReLU.apply(input)


def abs(a: T) -> T:
    """Absolute value of each element; a bool tensor is refused, as in PyTorch."""
    _not_bool(a, "abs", MiniTorchNotImplementedError)  # PyTorch: no "abs" kernel for Bool
    return Abs.apply(a)


def _not_bool(a: TensorBase, op: str, error: type[MiniTorchError] = MiniTorchError) -> None:
    if isinstance(a, TensorBase) and a.data.dtype.kind == "b":
        raise error(f"{op}(): not supported for a bool tensor (shape {tuple(a.shape)}); convert first, e.g. .long()")


def require_tensor(op: str, value: Any, name: str = "input", position: int = 1) -> None:
    """PyTorch's TypeError when an argument that must be a Tensor is a number (or anything else)."""
    if not isinstance(value, TensorBase):
        raise TypeError(f"{op}(): argument '{name}' (position {position}) must be Tensor, not {type(value).__name__}")


def float_math(op: str, a: T) -> T:
    """Math functions compute in floating point: integer and bool tensors become the default float.

    Inside autocast these run in float32, as in PyTorch's autocast lists.
    """
    require_tensor(op, a)
    if a.data.dtype.kind != "f":
        a = cast(a, default_float())
    if SWITCHES.autocast is not None:  # PyTorch's autocast list for the device decides
        (a,) = autocast_inputs(op, a)
    return a


def reciprocal(input: T) -> T:
    """1 / each element (integer inputs give floats)."""
    return Reciprocal.apply(float_math("reciprocal", input))


def rsqrt(input: T) -> T:
    """1 / sqrt(each element)."""
    return Rsqrt.apply(float_math("rsqrt", input))


def log2(input: T) -> T:
    """Base-2 logarithm of each element."""
    return Log2.apply(float_math("log2", input))


def log10(input: T) -> T:
    """Base-10 logarithm of each element."""
    return Log10.apply(float_math("log10", input))


def expm1(input: T) -> T:
    """exp(a) - 1 of each element, without losing tiny a to rounding."""
    return Expm1.apply(float_math("expm1", input))


def exp2(input: T) -> T:
    """2 to the power of each element."""
    require_tensor("exp2", input)
    input = input if input.data.dtype.kind == "f" else cast(input, default_float())  # (not on the autocast list)
    return Exp2.apply(input)


def tan(input: T) -> T:
    """Tangent of each element (in radians)."""
    return Tan.apply(float_math("tan", input))


def square(input: T) -> T:
    """a * a for each element; integer (and bool) tensors give int64, as ``a ** 2`` does."""
    require_tensor("square", input)
    return pow(input, 2)
