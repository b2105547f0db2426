"""Tensor methods of the ops in ``functions/selection.py``."""

from __future__ import annotations

from minitorch.functions import selection
from minitorch.tensor_base import T, TensorBase


class SelectionMethods(TensorBase):
    """``Tensor``'s gather, index_select, scatter, masked_select, nonzero, unique."""

    __slots__ = ()

    def gather(self: T, dim: int, index: T) -> T:
        """Values picked along ``dim`` at ``index``."""
        return selection.gather(self, dim, index)

    index_select = selection.index_select
    scatter = selection.scatter
    masked_select = selection.masked_select
    nonzero = selection.nonzero
    count_nonzero = selection.count_nonzero
    unique = selection.unique
