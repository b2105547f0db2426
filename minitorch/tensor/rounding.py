"""Tensor methods of the ops in ``functions/rounding.py``: round, floor, ceil, trunc, sign."""

from __future__ import annotations

from minitorch.functions import rounding
from minitorch.tensor_base import TensorBase


class RoundingMethods(TensorBase):
    """``Tensor``'s round, floor, ceil, trunc, sign."""

    __slots__ = ()

    round = rounding.round
    floor = rounding.floor
    ceil = rounding.ceil
    trunc = rounding.trunc
    sign = rounding.sign
