"""Tensor methods of the ops in ``functions/ordering.py``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from minitorch.functions import ordering
from minitorch.tensor_base import TensorBase

if TYPE_CHECKING:  # the face, for annotations only: never imported at run time (no cycle)
    from minitorch.tensor import Tensor


class OrderingMethods(TensorBase):
    """``Tensor``'s sort, argsort, topk, flip, roll."""

    __slots__ = ()

    sort = ordering.sort
    argsort = ordering.argsort
    topk = ordering.topk

    def flip(self, *dims: Any, **kwargs: Any) -> Tensor:
        """Reversed along ``dims`` (a copy)."""
        return ordering.flip(self, *dims, **kwargs)

    roll = ordering.roll
