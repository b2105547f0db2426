"""Tensor methods of the ops in ``functions/indexing.py``."""

from __future__ import annotations

from minitorch.functions import indexing
from minitorch.tensor_base import TensorBase


class IndexingMethods(TensorBase):
    """``Tensor``'s ``t[index]``."""

    __slots__ = ()

    __getitem__ = indexing.getitem
