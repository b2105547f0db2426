"""Ops that keep some elements and replace the others: ``masked_fill``, ``tril``, ``triu``.

Attention needs them: a causal mask is ``ones(L, L).tril()`` and the scores it forbids
are ``masked_fill``-ed with ``-inf`` before the softmax. The gradient of each is the
incoming gradient where the element was kept, zero where it was replaced.
"""

from __future__ import annotations

import math
from typing import Any

from minitorch.autograd.function import BackwardNode, Function
from minitorch.errors import MiniTorchError, check_int
from minitorch.functions.arithmetic import Operand, unbroadcast
from minitorch.functions.conversion import cast
from minitorch.functions.elementwise_logic import where
from minitorch.hints import Array, Gradients
from minitorch.size import broadcast_shape
from minitorch.tensor_base import T, TensorBase


class MaskedFill(Function):
    """x with ``value`` where ``mask`` is True.   grad_x = grad where mask is False, else 0.

    x and mask broadcast against each other, as in PyTorch: a (1, 4) tensor filled through
    a (3, 1) mask gives (3, 4), and x's gradient is summed back to (1, 4).
    """

    @staticmethod
    def forward(ctx: BackwardNode, x: Array, mask: Array, value: Any) -> Array:
        ctx.save_for_backward(mask)
        ctx.x_shape = x.shape
        return ctx.xp.where(mask, x.dtype.type(value), x)

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        (mask,) = ctx.saved_tensors
        return unbroadcast(ctx.xp.where(mask, grad.dtype.type(0), grad), ctx.x_shape), None, None


class Triangle(Function):
    """The lower (``upper=False``) or upper triangle of the last two dims, the rest zero.

    ``diagonal`` shifts the edge as in PyTorch: tril keeps j <= i + diagonal, triu keeps
    j >= i + diagonal. The gradient is the same triangle of the incoming gradient.
    """

    @staticmethod
    def forward(ctx: BackwardNode, x: Array, diagonal: int, upper: bool) -> Array:
        ctx.diagonal, ctx.upper = diagonal, upper
        return ctx.xp.triu(x, diagonal) if upper else ctx.xp.tril(x, diagonal)

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        xp = ctx.xp
        return (xp.triu(grad, ctx.diagonal) if ctx.upper else xp.tril(grad, ctx.diagonal)), None, None


def masked_fill(x: T, mask: T, value: Operand[T]) -> T:
    """``x`` with ``value`` wherever the bool ``mask`` is True; x and mask broadcast together.

    The in-place ``masked_fill_`` needs a mask that broadcasts to x's own shape (the result
    must fit in x), as in PyTorch.
    """
    if not isinstance(mask, TensorBase) or mask.data.dtype.kind != "b":
        shown = mask.dtype if isinstance(mask, TensorBase) else type(mask).__name__
        raise MiniTorchError(
            f"masked_fill: expected a bool mask, got {shown}; compare first, e.g. x.masked_fill(scores < 0, 0.0)"
        )
    if isinstance(value, TensorBase) and value.ndim != 0:
        raise MiniTorchError(f"masked_fill: value must be a number or a 0-dim tensor, got shape {tuple(value.shape)}")
    broadcast_shape(tuple(x.shape), tuple(mask.shape), op="masked_fill")  # names both shapes if they clash
    if isinstance(value, TensorBase):
        if value.requires_grad and x.data.dtype.kind == "f":
            # A value that needs a gradient gets the sum of the filled positions' gradients, as in
            # PyTorch: where() does exactly that (the value cast to x's dtype first).
            return where(mask, cast(value, x.dtype), x)
        value = value.item()
    if x.data.dtype.kind in "iu" and isinstance(value, float):
        # As PyTorch: an integer tensor takes the number cut toward zero (2.5 -> 2); nan, inf
        # and numbers beyond int64 have no integer to become.
        if not (math.isfinite(value) and -(2.0**63) <= value < 2.0**63):
            raise MiniTorchError(
                f"masked_fill: value {value!r} cannot be converted to {x.dtype} without overflow"
            )
        value = int(value)
    return MaskedFill.apply(x, mask, value)


def _triangle(op: str, x: T, diagonal: int, upper: bool) -> T:
    if x.ndim < 2:
        raise MiniTorchError(f"{op}: input tensor must have at least 2 dimensions, got shape {tuple(x.shape)}")
    return Triangle.apply(x, check_int(op, "diagonal", diagonal), upper)


def tril(x: T, diagonal: int = 0) -> T:
    """The lower triangle of the last two dims (elements with j <= i + diagonal), zeros above."""
    return _triangle("tril", x, diagonal, False)


def triu(x: T, diagonal: int = 0) -> T:
    """The upper triangle of the last two dims (elements with j >= i + diagonal), zeros below."""
    return _triangle("triu", x, diagonal, True)
