"""The activations beyond ReLU/sigmoid/tanh, as PyTorch defines them (values, gradients, dtypes).

- ``LeakyReLU``, ``ELU``, ``Hardtanh`` (``relu6`` is hardtanh(0, 6)), ``Threshold``: piecewise,
  the backward picks the slope of the piece each element fell in.
- ``SiLU``, ``Softplus``, ``Mish``, ``LogSigmoid``: smooth, each computed without overflow
  (exp only of non-positive numbers).
- ``softmin`` is composed: softmax(-x), as PyTorch computes it.

The comparisons are written as PyTorch's vectorised CPU kernels write them, so the edge
cases agree: at exactly 0 leaky_relu has slope ``negative_slope`` and elu slope ``alpha``, at
a bound hardtanh has slope 0, and a NaN input gets gradient 0 from hardtanh, NaN from elu and
1 from threshold. (PyTorch's scalar loop, which handles the last few elements of a tensor
that do not fill a vector register, gives 1 for all three.)

Integers: PyTorch clamps them (hardtanh, relu6) and thresholds them (threshold) with the
numbers truncated to integers, and refuses every other activation; so does MiniTorch.
"""

from __future__ import annotations

import math
import numbers
from typing import Any
from typing import cast as cast_type

from minitorch.autograd.function import BackwardNode, Function
from minitorch.dtypes import get_dtype
from minitorch.errors import MiniTorchError, MiniTorchValueError, check_dim
from minitorch.functions.arithmetic import neg
from minitorch.functions.autocast_policy import autocast_inputs
from minitorch.functions.conversion import cast
from minitorch.hints import Array, DTypeLike, Gradients
from minitorch.switches import SWITCHES
from minitorch.tensor_base import T, TensorBase


def _sigmoid(xp: Any, x: Array) -> Array:
    """1 / (1 + exp(-x)) without overflow: exp of a non-positive number only."""
    e = xp.exp(-xp.abs(x))
    return xp.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype, copy=False)


def _softplus(xp: Any, x: Array) -> Array:
    """log(1 + exp(x)) = max(x, 0) + log1p(exp(-|x|)): never overflows, exact for tiny exp."""
    return xp.maximum(x, 0) + xp.log1p(xp.exp(-xp.abs(x)))


class LeakyReLU(Function):
    """x where x > 0, else slope * x.   d/dx = 1 or slope (slope at 0 and for NaN, as PyTorch)."""

    @staticmethod
    def forward(ctx: BackwardNode, x: Array, slope: float) -> Array:
        ctx.save_for_backward(x)
        ctx.slope = slope
        return ctx.xp.where(x > 0, x, x * slope)

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        (x,) = ctx.saved_tensors
        return ctx.xp.where(x > 0, grad, grad * ctx.slope), None


class ELU(Function):
    """alpha * (exp(x) - 1) where x <= 0, else x.   d/dx = alpha * exp(x) there, else 1 (NaN: NaN)."""

    @staticmethod
    def forward(ctx: BackwardNode, x: Array, alpha: float) -> Array:
        xp = ctx.xp
        ctx.save_for_backward(x)
        ctx.alpha = alpha
        negative = x <= 0
        # exp of min(x, 0): the branch not taken must not overflow either.
        return xp.where(negative, alpha * xp.expm1(xp.minimum(x, 0)), x)

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        xp = ctx.xp
        (x,) = ctx.saved_tensors
        return xp.where(x > 0, grad, grad * ctx.alpha * xp.exp(xp.minimum(x, 0))), None


class SiLU(Function):
    """x * sigmoid(x).   d/dx = s * (1 + x * (1 - s)) with s = sigmoid(x)."""

    @staticmethod
    def forward(ctx: BackwardNode, x: Array) -> Array:
        s = _sigmoid(ctx.xp, x)
        ctx.save_for_backward(x, s)
        return x * s

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        x, s = ctx.saved_tensors
        return (grad * s * (1 + x * (1 - s)),)


class Softplus(Function):
    """log(1 + exp(beta * x)) / beta, or x itself where beta * x > threshold (where they agree anyway).

    d/dx = sigmoid(beta * x), or 1 above the threshold.
    """

    @staticmethod
    def forward(ctx: BackwardNode, x: Array, beta: float, threshold: float) -> Array:
        xp = ctx.xp
        bx = x * beta
        ctx.save_for_backward(bx)
        ctx.threshold = threshold
        scale = math.inf if beta == 0 else 1 / beta  # beta = 0: inf, as PyTorch's 1/0 gives
        return xp.where(bx > threshold, x, (_softplus(xp, bx) * scale).astype(x.dtype, copy=False))

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        (bx,) = ctx.saved_tensors
        return ctx.xp.where(bx > ctx.threshold, grad, grad * _sigmoid(ctx.xp, bx)), None, None


class Mish(Function):
    """x * tanh(softplus(x)).   d/dx = t + x * sigmoid(x) * (1 - t^2) with t = tanh(softplus(x))."""

    @staticmethod
    def forward(ctx: BackwardNode, x: Array) -> Array:
        t = ctx.xp.tanh(_softplus(ctx.xp, x))
        ctx.save_for_backward(x, t)
        return x * t

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        x, t = ctx.saved_tensors
        return (grad * (t + x * _sigmoid(ctx.xp, x) * (1 - t * t)),)


class LogSigmoid(Function):
    """log(sigmoid(x)) = -softplus(-x) = min(x, 0) - log1p(exp(-|x|)).   d/dx = 1 - sigmoid(x)."""

    @staticmethod
    def forward(ctx: BackwardNode, x: Array) -> Array:
        xp = ctx.xp
        ctx.save_for_backward(x)
        return xp.minimum(x, 0) - xp.log1p(xp.exp(-xp.abs(x)))

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        (x,) = ctx.saved_tensors
        return (grad * _sigmoid(ctx.xp, -x),)


class Hardtanh(Function):
    """x clamped to [low, high].   d/dx = 1 strictly inside, 0 at a bound or beyond (NaN: 0)."""

    @staticmethod
    def forward(ctx: BackwardNode, x: Array, low: float, high: float) -> Array:
        ctx.save_for_backward(x)
        ctx.low, ctx.high = low, high
        return ctx.xp.clip(x, low, high)

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        (x,) = ctx.saved_tensors
        inside = (x > ctx.low) & (x < ctx.high)  # strictly: a bound itself passes no gradient
        return ctx.xp.where(inside, grad, 0).astype(grad.dtype, copy=False), None, None


class Threshold(Function):
    """value where x <= threshold, else x.   d/dx = 0 where replaced, else 1."""

    @staticmethod
    def forward(ctx: BackwardNode, x: Array, threshold: float, value: float) -> Array:
        xp = ctx.xp
        ctx.save_for_backward(x)
        ctx.threshold = threshold
        return xp.where(x <= threshold, xp.asarray(value, dtype=x.dtype), x)

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        (x,) = ctx.saved_tensors
        return ctx.xp.where(x <= ctx.threshold, 0, grad).astype(grad.dtype, copy=False), None, None


# ---------------------------------------------------------------------- user functions
def _number(op: str, name: str, value: Any) -> float:
    """A Python number argument (a bool counts, as in PyTorch), or PyTorch's TypeError."""
    if not isinstance(value, numbers.Real):
        raise TypeError(f"{op}(): argument '{name}' must be Number, not {type(value).__name__}")
    return cast_type(float, value)  # kept as given (an int stays an int), as PyTorch prints and uses it


def _float_input(input: T, op: str) -> T:
    """The input of a smooth activation: a float tensor (PyTorch has no integer kernel for these)."""
    if not isinstance(input, TensorBase):
        raise TypeError(f"{op}(): argument 'input' must be Tensor, not {type(input).__name__}")
    if input.data.dtype.kind != "f":
        raise NotImplementedError(
            f"{op}: not implemented for {input.dtype} tensors (shape {tuple(input.shape)}); convert with .float()"
        )
    return input


def _integer_bound(input: TensorBase, value: float) -> float:
    """A number as an integer input sees it: truncated toward zero (int(-1.5) == -1), as in PyTorch."""
    return int(value) if input.data.dtype.kind in "iu" else value


def leaky_relu(input: T, negative_slope: float = 0.01, inplace: bool = False) -> T:
    """x for x > 0, else ``negative_slope * x``. ``inplace=True`` gives a new tensor all the same."""
    slope = _number("leaky_relu", "negative_slope", negative_slope)
    return LeakyReLU.apply(_float_input(input, "leaky_relu"), slope)


def elu(input: T, alpha: float = 1.0, inplace: bool = False) -> T:
    """x for x > 0, else ``alpha * (exp(x) - 1)``. ``inplace=True`` gives a new tensor all the same."""
    alpha = _number("elu", "alpha", alpha)
    return ELU.apply(_float_input(input, "elu"), alpha)


def silu(input: T, inplace: bool = False) -> T:
    """x * sigmoid(x) (also called swish). ``inplace=True`` gives a new tensor all the same."""
    return SiLU.apply(_float_input(input, "silu"))


def softplus(input: T, beta: float = 1.0, threshold: float = 20.0) -> T:
    """A smooth ReLU, log(1 + exp(beta * x)) / beta; x itself where beta * x > threshold."""
    beta = _number("softplus", "beta", beta)
    threshold = _number("softplus", "threshold", threshold)
    input = _float_input(input, "softplus")
    if SWITCHES.autocast is not None:  # PyTorch's autocast list for the device decides
        (input,) = autocast_inputs("softplus", input)  # float32 under CUDA autocast
    return Softplus.apply(input, beta, threshold)


def mish(input: T, inplace: bool = False) -> T:
    """x * tanh(softplus(x)). ``inplace=True`` gives a new tensor all the same."""
    return Mish.apply(_float_input(input, "mish"))


def logsigmoid(input: T) -> T:
    """log(sigmoid(x)), exact for large |x| (log(sigmoid(-800)) is -800, not -inf)."""
    return LogSigmoid.apply(_float_input(input, "log_sigmoid"))


def hardtanh(input: T, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> T:
    """x clamped to [min_val, max_val]; integer tensors too (with the bounds truncated), as PyTorch."""
    min_val = _number("hardtanh", "min_val", min_val)
    max_val = _number("hardtanh", "max_val", max_val)
    if not isinstance(input, TensorBase):
        raise TypeError(f"hardtanh(): argument 'input' must be Tensor, not {type(input).__name__}")
    if input.data.dtype.kind == "b":
        raise MiniTorchError(f"hardtanh: bool inputs are not supported (shape {tuple(input.shape)})")
    if min_val > max_val:
        raise MiniTorchValueError(f"hardtanh: min_val cannot be greater than max_val (got {min_val} > {max_val})")
    return Hardtanh.apply(input, _integer_bound(input, min_val), _integer_bound(input, max_val))


def relu6(input: T, inplace: bool = False) -> T:
    """min(max(x, 0), 6): hardtanh(x, 0, 6), gradient 0 at both bounds."""
    return hardtanh(input, 0.0, 6.0)


def threshold(input: T, threshold: float, value: float, inplace: bool = False) -> T:
    """``value`` where x <= ``threshold``, else x; integer tensors too (numbers truncated), as PyTorch."""
    threshold = _number("threshold", "threshold", threshold)
    value = _number("threshold", "value", value)
    if not isinstance(input, TensorBase):
        raise TypeError(f"threshold(): argument 'input' must be Tensor, not {type(input).__name__}")
    if input.data.dtype.kind == "b":
        raise NotImplementedError(f"threshold: not implemented for bool tensors (shape {tuple(input.shape)})")
    return Threshold.apply(input, _integer_bound(input, threshold), _integer_bound(input, value))


def softmin(
    input: T, dim: int | None = None, _stacklevel: int = 3, dtype: DTypeLike | None = None
) -> T:
    """softmax(-input, dim): weights that favour the smallest entries (``_stacklevel`` is PyTorch's, unused).

    As MiniTorch's softmax, ``dim`` must be given (PyTorch guesses it with a deprecation warning).
    """
    if isinstance(input, TensorBase):
        _norm_dim("softmin", dim, input.ndim)  # the error names softmin, not softmax
    if isinstance(input, TensorBase) and input.data.dtype.kind == "b":
        raise MiniTorchError(
            f"softmin: negation of a bool tensor (shape {tuple(input.shape)}) is not supported; convert with .float()"
        )
    return softmax(neg(input), dim, dtype)


# ---------------------------------------------------------------------- softmax and log_softmax
def _norm_dim(op: str, dim: int | None, ndim: int) -> int:
    if dim is None:
        raise MiniTorchError(f"{op}: pass the dimension to normalise over, e.g. {op}(x, dim=-1)")
    return check_dim(op, dim, ndim)  # a TypeError for 0.5, an IndexError out of range, as PyTorch


class Softmax(Function):
    """exp(x) / sum(exp(x)) along ``dim``.

    Backward: with s = softmax(x), ds_i/dx_j = s_i (delta_ij - s_j), so
    grad_x = s * (g - sum(g * s)).
    """

    @staticmethod
    def forward(ctx: BackwardNode, x: Array, dim: int) -> Array:
        xp = ctx.xp
        ctx.dim = dim
        if x.size == 0:  # nothing to normalise (max() of an empty axis would raise)
            ctx.save_for_backward(x)
            return x.copy()
        # Subtracting the maximum changes nothing mathematically and keeps exp() <= 1.
        e = xp.exp(x - x.max(axis=dim, keepdims=True))
        out = e / e.sum(axis=dim, keepdims=True)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        (s,) = ctx.saved_tensors
        return s * (grad - (grad * s).sum(axis=ctx.dim, keepdims=True)), None


class LogSoftmax(Function):
    """x - logsumexp(x) along ``dim``, stable for logits of any size.

    Backward: d/dx_j of (x_i - log sum_k exp x_k) is delta_ij - softmax_j, so
    grad_x = g - softmax * sum(g).
    """

    @staticmethod
    def forward(ctx: BackwardNode, x: Array, dim: int) -> Array:
        xp = ctx.xp
        ctx.dim = dim
        if x.size == 0:  # nothing to normalise (max() of an empty axis would raise)
            ctx.save_for_backward(x)
            return x.copy()
        shifted = x - x.max(axis=dim, keepdims=True)
        out = shifted - xp.log(xp.exp(shifted).sum(axis=dim, keepdims=True))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        (out,) = ctx.saved_tensors
        return grad - ctx.xp.exp(out) * grad.sum(axis=ctx.dim, keepdims=True), None


def _float(x: T, op: str, dtype: DTypeLike | None) -> T:
    """The input of softmax and friends: a float tensor, converted to ``dtype`` first if given.

    As in PyTorch, an integer tensor is an error unless ``dtype`` asks for a float.
    """
    if not isinstance(x, TensorBase):
        raise TypeError(f"{op}: expected a Tensor, got {type(x).__name__}")
    if dtype is not None:
        x = cast(x, get_dtype(dtype))
    if x.data.dtype.kind != "f":
        raise MiniTorchError(
            f"{op}: expected a floating-point input, got {x.dtype} (shape {tuple(x.shape)}); "
            f"convert it first (x.float()) or pass dtype=minitorch.float32"
        )
    return x


def softmax(input: T, dim: int | None = None, dtype: DTypeLike | None = None) -> T:
    """Probabilities along ``dim``: exp(input) normalised to sum to 1 (in ``dtype`` if given)."""
    input = _float(input, "softmax", dtype)
    if SWITCHES.autocast is not None and dtype is None:  # PyTorch's autocast list for the device decides
        (input,) = autocast_inputs("softmax", input)
    return Softmax.apply(input, _norm_dim("softmax", dim, input.ndim))


def log_softmax(input: T, dim: int | None = None, dtype: DTypeLike | None = None) -> T:
    """log(softmax(input, dim)), computed without overflow (logits of +-1000 are fine; in ``dtype`` if given)."""
    input = _float(input, "log_softmax", dtype)
    if SWITCHES.autocast is not None and dtype is None:  # PyTorch's autocast list for the device decides
        (input,) = autocast_inputs("log_softmax", input)
    return LogSoftmax.apply(input, _norm_dim("log_softmax", dim, input.ndim))
