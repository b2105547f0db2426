"""Tensor methods of the ops in ``functions/cumulative.py``: cumsum, cumprod, prod."""

from __future__ import annotations

from minitorch.functions import cumulative
from minitorch.tensor_base import TensorBase


class CumulativeMethods(TensorBase):
    """``Tensor``'s running sums and products, and the product."""

    __slots__ = ()

    cumsum = cumulative.cumsum
    cumprod = cumulative.cumprod
    prod = cumulative.prod
