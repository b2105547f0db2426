"""Tensor methods of the ops in ``functions/unary.py``."""

from __future__ import annotations

from minitorch.functions import unary
from minitorch.tensor_base import TensorBase


class UnaryMethods(TensorBase):
    """PLACEHOLDER"""

    __slots__ = ()

    exp = unary.exp

    log = unary.log

    log1p = unary.log1p

    sqrt = unary.sqrt

    sin = unary.sin

    cos = unary.cos

    tanh = unary.tanh

    sigmoid = unary.sigmoid

    relu = unary.relu

    abs = unary.abs

    __abs__ = unary.abs
