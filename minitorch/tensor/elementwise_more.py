"""Tensor methods of the ops in ``functions/elementwise_more.py``."""

from __future__ import annotations

from minitorch.functions import elementwise_more
from minitorch.tensor_base import TensorBase


class MoreElementwiseMethods(TensorBase):
    """PLACEHOLDER"""

    __slots__ = ()

    round = elementwise_more.round

    floor = elementwise_more.floor

    ceil = elementwise_more.ceil

    trunc = elementwise_more.trunc

    sign = elementwise_more.sign

    reciprocal = elementwise_more.reciprocal

    square = elementwise_more.square

    rsqrt = elementwise_more.rsqrt

    log2 = elementwise_more.log2

    log10 = elementwise_more.log10

    expm1 = elementwise_more.expm1

    exp2 = elementwise_more.exp2

    tan = elementwise_more.tan

    atan2 = elementwise_more.atan2

    lerp = elementwise_more.lerp

    fmod = elementwise_more.fmod

    true_divide = elementwise_more.true_divide
