"""``clamp`` and its family: ``clip``, ``clamp_min``, ``clamp_max``.

Number bounds are ``unary.Clamp`` (one ``np.clip``). Tensor bounds broadcast with the input
and get gradients of their own, so they are an op of their own here, with PyTorch's rules:

    out = min(max(x, low), high)            (so where low > high, out = high)
    d out / d x    = 1 where low <= x <= high, else 0      (0 at a NaN x: it is not in the range)
    d out / d low  = 1 where x < low and low < high
    d out / d high = 1 where x > high, or where high < low (high won)

An element equal to a bound keeps its gradient for ``x``; the bound gets none there.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitorch import backends
from minitorch.autograd.function import BackwardNode, Function
from minitorch.dtypes import default_float, result_dtype, scalar_category
from minitorch.errors import MiniTorchError
from minitorch.functions.arithmetic import unbroadcast
from minitorch.functions.conversion import cast
from minitorch.functions.unary import Clamp
from minitorch.hints import Array, Gradients
from minitorch.size import broadcast_shape
from minitorch.tensor_base import T, TensorBase


class ClampTensor(Function):
    """x limited to [low, high], where the bounds are arrays (either may be None) that broadcast with x."""

    @staticmethod
    def forward(ctx: BackwardNode, x: Array, low: Array | None, high: Array | None) -> Array:
        xp = ctx.xp
        ctx.save_for_backward(x, low, high)
        out = x if low is None else xp.maximum(x, low)  # NaN in x stays NaN, as PyTorch
        out = out if high is None else xp.minimum(out, high)
        shape = broadcast_shape(*(a.shape for a in (x, low, high) if a is not None), op="clamp")
        return xp.broadcast_to(out, shape).copy() if out.shape != shape else out

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        x, low, high = ctx.saved_tensors
        inside = True
        if low is not None:
            inside = x >= low
        if high is not None:
            inside = inside & (x <= high)
        grad_x = unbroadcast(grad * inside, x.shape)
        grad_low = grad_high = None
        if low is not None and ctx.needs_input_grad[1]:
            below = x < low if high is None else (x < low) & (low < high)
            grad_low = unbroadcast(grad * below, low.shape)
        if high is not None and ctx.needs_input_grad[2]:
            above = x > high if low is None else (x > high) | (high < low)
            grad_high = unbroadcast(grad * above, high.shape)
        return grad_x, grad_low, grad_high


def clamp(
    input: T, min: float | T | None = None, max: float | T | None = None
) -> T:
    """Limit each element to ``[min, max]`` (either bound may be None; numbers or tensors)."""
    if min is None and max is None:
        raise MiniTorchError("clamp(): at least one of 'min' or 'max' must not be None")
    # NumPy scalar bounds count as Python numbers (np.clip would upcast to an np.float64's dtype).
    min, max = (v.item() if isinstance(v, np.generic) else v for v in (min, max))
    if isinstance(min, TensorBase) or isinstance(max, TensorBase):  # bounds with gradients of their own
        check_bound_kinds("clamp", min, max)
        return clamp_with_tensors(input, min, max)
    if input.data.dtype.kind != "f" and any(isinstance(v, float) for v in (min, max)):
        input = cast(input, default_float())
    return Clamp.apply(input, min, max)


def clamp_with_tensors(a: T, low: Any, high: Any) -> T:
    """``clamp`` when a bound is a Tensor: the three promoted to PyTorch's common dtype first."""
    values = (a, low, high)
    shaped = [v.dtype for v in values if isinstance(v, TensorBase) and v.data.ndim]
    zero_dim = [v.dtype for v in values if isinstance(v, TensorBase) and not v.data.ndim]
    scalars = [scalar_category(v) for v in values if v is not None and not isinstance(v, TensorBase)]
    target = result_dtype(shaped, zero_dim, scalars)
    if target.name == "bool" and low is not None and high is not None:  # one bound works, as PyTorch
        raise NotImplementedError("clamp: not implemented for bool tensors with both bounds; convert with .long()")
    a = cast(a, target)
    low, high = (cast(v, target) if isinstance(v, TensorBase) else v for v in (low, high))
    # A number next to a tensor bound (allowed when that bound is 0-d, see check_bound_kinds)
    # becomes a 0-d array of the result's dtype on its device.
    xp = backends.module_of(a.data)
    low, high = (
        v
        if v is None or isinstance(v, TensorBase)
        else TensorBase._make(xp.asarray(v, dtype=a.data.dtype), None, False)
        for v in (low, high)
    )
    return ClampTensor.apply(a, low, high)


def check_bound_kinds(op: str, low: Any, high: Any) -> None:
    """PyTorch's clamp takes two tensor bounds or two number bounds, not one of each: a
    tensor mixed with a number fits only when it can be read as a number (0-d, no gradient)."""
    tensors = [b for b in (low, high) if isinstance(b, TensorBase)]
    numbers = [b for b in (low, high) if b is not None and not isinstance(b, TensorBase)]
    if tensors and numbers and any(t.ndim > 0 or t.requires_grad for t in tensors):
        raise TypeError(
            f"{op}(): min and max must both be tensors or both be numbers, got {_kind(low)} and {_kind(high)} "
            "(a 0-d tensor that needs no gradient counts as a number)"
        )


def _kind(value: Any) -> str:
    return f"a {tuple(value.shape)} tensor" if isinstance(value, TensorBase) else type(value).__name__


def clip(input: T, min: Any = None, max: Any = None) -> T:
    """Alias of ``clamp``: limit each element to ``[min, max]``."""
    check_bound_kinds("clip", min, max)
    return clamp(input, min, max)


def clamp_min(input: T, min: Any) -> T:
    """``clamp(a, min=min)``: every element at least ``min``."""
    _not_bool_bound("clamp_min", input, min)
    return clamp(input, min=min)


def clamp_max(input: T, max: Any) -> T:
    """``clamp(a, max=max)``: every element at most ``max``."""
    _not_bool_bound("clamp_max", input, max)
    return clamp(input, max=max)


def _not_bool_bound(op: str, a: Any, bound: Any) -> None:
    """A bool tensor clamped by a Python bool: PyTorch has no bool kernel for a number bound
    (an int bound gives int64; a bool tensor bound works)."""
    if not isinstance(a, TensorBase):
        raise TypeError(f"{op}(): argument 'input' must be Tensor, not {type(a).__name__}")
    if a.data.dtype.kind == "b" and isinstance(bound, bool):
        raise NotImplementedError(f"{op}(): not implemented for a bool tensor with a bool bound; convert first")
