"""Tensor methods of the ops in ``functions/selection.py``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from minitorch.functions import selection
from minitorch.tensor_base import TensorBase

if TYPE_CHECKING:  # the face, for annotations only: never imported at run time (no cycle)
    from minitorch.tensor import Tensor


class SelectionMethods(TensorBase):
    """``Tensor``'s gather, index_select, scatter, masked_select, nonzero, unique."""

    __slots__ = ()

    def gather(self, dim: int, index: TensorBase) -> Tensor:
        """Values picked along ``dim`` at ``index``."""
        return selection.gather(self, dim, index)

    index_select = selection.index_select
    scatter = selection.scatter
    masked_select = selection.masked_select
    nonzero = selection.nonzero
    count_nonzero = selection.count_nonzero
    unique = selection.unique
