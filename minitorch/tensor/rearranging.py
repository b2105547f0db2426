"""Tensor methods of the ops in ``functions/rearranging.py``."""

from __future__ import annotations

from typing import Any

from minitorch.functions import rearranging
from minitorch.tensor_base import T, TensorBase


class RearrangingMethods(TensorBase):
    """``Tensor``'s narrow, select, movedim, repeat, diag, chunk, split ... (views and copies in a new arrangement)."""

    __slots__ = ()

    narrow = rearranging.narrow
    select = rearranging.select
    unbind = rearranging.unbind
    movedim = rearranging.movedim
    moveaxis = movedim
    repeat = rearranging.repeat

    def tile(self: T, *dims: Any, **kwargs: Any) -> T:
        """``repeat``, with missing leading ``dims`` taken as 1."""
        if kwargs:  # x.tile(dims=(2, 1))
            return rearranging.tile(self, **kwargs)
        return rearranging.tile(self, dims[0] if len(dims) == 1 and isinstance(dims[0], (tuple, list)) else dims)

    def repeat_interleave(self: T, repeats: Any, dim: int | None = None, *, output_size: int | None = None) -> T:
        """Each element (or slice along ``dim``) repeated in a row."""
        return rearranging.repeat_interleave(self, repeats, dim, output_size=output_size)

    diag = rearranging.diag
    diagonal = rearranging.diagonal
    trace = rearranging.trace
    outer = rearranging.outer

    def dot(self: T, other: T) -> T:
        """Dot product of two 1-D tensors."""
        return rearranging.dot(self, other)

    chunk = rearranging.chunk

    def split(self: T, size: Any, dim: int = 0) -> tuple[T, ...]:
        """Views along ``dim`` of ``size`` each (an int) or of the given sizes (a list)."""
        return rearranging.split(self, size, dim)
