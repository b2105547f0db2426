"""Dtype promotion and casting for ops: PyTorch's rules, applied with a recorded ``Cast``.

- ``promote(a, b)``: the two operands of a binary op converted to their common dtype
  (float beats int beats bool; shaped tensors decide before 0-d tensors, which decide
  before Python scalars). The rule itself, on dtypes alone, is ``dtypes.result_dtype``.
- ``cast(t, dtype)``: ``t`` converted with the ``Cast`` op, so gradients flow back through
  the conversion; ``t`` itself when it already has that dtype.
- ``as_operand(value, like)``: what a Tensor operator accepts as its other operand.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitorch import backends
from minitorch.autograd.function import BackwardNode, Function
from minitorch.dtypes import SCALAR_TYPES, DType, result_dtype, scalar_category
from minitorch.hints import Array, Gradients
from minitorch.tensor import Tensor


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



# An operand of a binary op: a Tensor or a Python number (NumPy numbers are accepted too).
Operand = Tensor | float


def cast(t: Tensor, dtype: DType) -> Tensor:
    """``t`` converted to ``dtype`` (a recorded op, so gradients flow back), or t itself."""
    if t.data.dtype == dtype.np_dtype:
        return t
    return Cast.apply(t, dtype.np_dtype)


def as_operand(value: Any, like: Tensor) -> Any:
    """A Tensor or a Python scalar for a binary op with ``like``; None if not supported."""
    if isinstance(value, Tensor):
        return value
    if isinstance(value, SCALAR_TYPES):
        return value
    if backends.is_backend_array(value):
        return Tensor._make(value, None, False)
    return None


def promote(a: Any, b: Any) -> tuple[Any, Any]:
    """Cast two operands of a binary op to PyTorch's common dtype.

    ``a`` and ``b`` are Tensors or Python scalars; scalars stay scalars (NumPy keeps the
    array's dtype for them) and only tensors are cast.
    """
    a_t, b_t = isinstance(a, Tensor), isinstance(b, Tensor)
    if a_t and b_t and a.data.dtype == b.data.dtype:
        return a, b
    # A NumPy scalar (np.float64 from x.mean().item()'s cousins, np.sqrt(2), ...) counts as a
    # Python number, as in PyTorch: left as is, NumPy would let an np.float64 turn a float32
    # array into float64.
    if isinstance(a, np.generic):
        a = a.item()
    if isinstance(b, np.generic):
        b = b.item()
    shaped: list[DType] = []
    zero_dim: list[DType] = []
    scalars: list[int] = []
    for v in (a, b):
        if isinstance(v, Tensor):
            (shaped if v.data.ndim else zero_dim).append(v.dtype)
        else:
            scalars.append(scalar_category(v))
    target = result_dtype(shaped, zero_dim, scalars)
    if a_t:
        a = cast(a, target)
    if b_t:
        b = cast(b, target)
    return a, b
