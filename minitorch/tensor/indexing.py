"""Tensor methods of the ops in ``functions/indexing.py``."""

from __future__ import annotations

from collections.abc import Iterator

from minitorch.functions import indexing
from minitorch.tensor_base import T, TensorBase


class IndexingMethods(TensorBase):
    """``Tensor``'s ``t[index]``, and iteration over the first dimension (``for row in t``)."""

    __slots__ = ()

    __getitem__ = indexing.getitem

    def __iter__(self: T) -> Iterator[T]:
        if self.data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (indexing.getitem(self, i) for i in range(self.data.shape[0]))
