"""Softmax and log-softmax along a dimension, each one fused op with a short backward.

- ``Softmax``: a numerically stable forward (subtract the maximum) and the backward
  ``s * (g - sum(g * s))``.
- ``LogSoftmax``: ``x - logsumexp(x)`` and the backward ``g - softmax * sum(g)``.

Fused, they are one graph node each instead of the five or so that ``exp``, ``sum`` and
``/`` would record, and they never overflow (logits of +-1000 are fine).
"""

from __future__ import annotations

from minitorch.autograd.function import BackwardNode, Function
from minitorch.dtypes import get_dtype
from minitorch.errors import MiniTorchError, check_dim
from minitorch.functions.autocast_policy import autocast_inputs
from minitorch.functions.promotion import cast
from minitorch.hints import Array, DTypeLike, Gradients
from minitorch.tensor import Tensor


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


def _float(x: Tensor, op: str, dtype: DTypeLike | None) -> Tensor:
    """The input of softmax and friends: a float tensor, converted to ``dtype`` first if given.

    As in PyTorch, an integer tensor is an error unless ``dtype`` asks for a float.
    """
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}: expected a Tensor, got {type(x).__name__}")
    if dtype is not None:
        x = cast(x, get_dtype(dtype))
    if x.data.dtype.kind != "f":
        raise MiniTorchError(
            f"{op}: expected a floating-point input, got {x.dtype} (shape {tuple(x.shape)}); "
            f"convert it first (x.float()) or pass dtype=minitorch.float32"
        )
    return x


def softmax(input: Tensor, dim: int | None = None, dtype: DTypeLike | None = None) -> Tensor:
    """Probabilities along ``dim``: exp(input) normalised to sum to 1 (in ``dtype`` if given)."""
    input = _float(input, "softmax", dtype)
    if dtype is None:  # float32 on CUDA under autocast
        (input,) = autocast_inputs("softmax", input)
    return Softmax.apply(input, _norm_dim("softmax", dim, input.ndim))


def log_softmax(input: Tensor, dim: int | None = None, dtype: DTypeLike | None = None) -> Tensor:
    """log(softmax(input, dim)), computed without overflow (logits of +-1000 are fine; in ``dtype`` if given)."""
    input = _float(input, "log_softmax", dtype)
    if dtype is None:  # float32 on CUDA under autocast
        (input,) = autocast_inputs("log_softmax", input)
    return LogSoftmax.apply(input, _norm_dim("log_softmax", dim, input.ndim))
