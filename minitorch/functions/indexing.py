"""Indexing ``t[...]``: ints, slices (with steps), None, Ellipsis, integer and boolean arrays.

Forward is NumPy indexing. Backward scatters the gradient into a zero tensor of the
input's shape; with integer arrays an element can be picked several times, so the
gradients are added (``add.at``), never just assigned.
"""

import numpy as np

from minitorch.autograd.function import Function
from minitorch.tensor import Tensor


def _is_basic(index):
    """True when the index holds only ints, slices, None and Ellipsis (no repeats possible)."""
    items = index if isinstance(index, tuple) else (index,)
    return all(i is None or i is Ellipsis or isinstance(i, (int, slice)) for i in items)


class Index(Function):
    """a[index]."""

    @staticmethod
    def forward(ctx, a, index):
        ctx.in_shape, ctx.in_dtype, ctx.index = a.shape, a.dtype, index
        ctx.basic = _is_basic(index)
        return a[index]

    @staticmethod
    def backward(ctx, grad):
        xp = ctx.xp
        full = xp.zeros(ctx.in_shape, dtype=grad.dtype)
        if ctx.basic:
            full[ctx.index] = grad
        else:
            xp.add.at(full, ctx.index, grad)
        return full, None


def _convert(item):
    """Index parts to what NumPy indexes with: Tensors become their arrays."""
    if isinstance(item, Tensor):
        data = item.data
        if data.dtype.kind == "f":
            raise IndexError(
                f"index: tensors used as indices must be long (int64) or bool, got {item.dtype}"
            )
        return data
    if isinstance(item, list):
        return np.asarray([i.item() if isinstance(i, Tensor) else i for i in item])
    return item


def getitem(a, index):
    """``a[index]`` as a recorded op."""
    index = tuple(_convert(i) for i in index) if isinstance(index, tuple) else _convert(index)
    return Index.apply(a, index)
