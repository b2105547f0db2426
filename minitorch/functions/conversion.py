"""Conversions that stay in the graph: to another dtype (``Cast``), to another device
(``ToDevice``), or a plain copy (``Clone``).

``t.float()``, ``t.to("cuda")`` and ``t.clone()`` are ops like any other, so gradients
flow back through them: converted back to the input's dtype, copied back to the input's
device.
"""

from __future__ import annotations

from typing import Any

from minitorch import backends
from minitorch.autograd.function import BackwardNode, Function
from minitorch.autograd.graph_arrays import GraphArray, wrap
from minitorch.dtypes import DType
from minitorch.hints import Array, Gradients
from minitorch.tensor_base import T


class Cast(Function):
    """Convert to another dtype; the gradient is converted back to the input's dtype."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array, np_dtype: Any) -> Array:
        ctx.in_dtype = a.dtype
        return a.astype(np_dtype)

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        if ctx.in_dtype.kind != "f":
            return None, None
        return grad.astype(ctx.in_dtype), None


class Clone(Function):
    """A contiguous copy that stays in the graph."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array) -> Array:
        return a.copy()

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        return (grad,)


class ToDevice(Function):
    """Copy to another device; the gradient is copied back to where the input lives."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array, device: str) -> Array:
        ctx.source = backends.device_of(a)
        return backends.to_device(a, device)

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        return moved(grad, ctx.source), None

    @classmethod
    def apply(cls, a: T, device: str) -> T:
        out = super().apply(a, device)
        # Function.apply picked the input's array module; the output lives on ``device``.
        if out.grad_fn is not None:
            out.grad_fn.xp = backends.array_module(device)
        return out


def moved(a: Any, device: str) -> Any:
    """The array ``a`` copied to ``device``; a graph value (create_graph=True) by a recorded ToDevice."""
    if isinstance(a, GraphArray):
        return wrap(ToDevice.apply(a.tensor, device))
    return backends.to_device(a, device)


def cast(t: T, dtype: DType) -> T:
    """``t`` converted to ``dtype`` (a recorded op, so gradients flow back), or t itself."""
    if t.data.dtype == dtype.np_dtype:
        return t
    return Cast.apply(t, dtype.np_dtype)
