"""Tensor methods of the ops in ``functions/unary.py``: exp, log, sqrt, tanh, relu, abs ..."""

from __future__ import annotations

from minitorch.functions import unary
from minitorch.tensor_base import TensorBase


class UnaryMethods(TensorBase):
    """``Tensor``'s functions of one tensor: exp, log, sqrt, tanh, sigmoid, relu, abs, reciprocal, square ..."""

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
    reciprocal = unary.reciprocal
    square = unary.square
    rsqrt = unary.rsqrt
    log2 = unary.log2
    log10 = unary.log10
    expm1 = unary.expm1
    exp2 = unary.exp2
    tan = unary.tan
