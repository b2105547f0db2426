"""Tensor methods of the ops in ``functions/ordering.py``."""

from __future__ import annotations

from typing import Any

from minitorch.functions import ordering
from minitorch.tensor_base import T, TensorBase


class OrderingMethods(TensorBase):
    """``Tensor``'s sort, argsort, topk, flip, roll."""

    __slots__ = ()

    sort = ordering.sort
    argsort = ordering.argsort
    topk = ordering.topk

    def flip(self: T, *dims: Any, **kwargs: Any) -> T:
        """Reversed along ``dims`` (a copy)."""
        return ordering.flip(self, *dims, **kwargs)

    roll = ordering.roll
