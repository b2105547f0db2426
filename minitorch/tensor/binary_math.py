"""Tensor methods of the ops in ``functions/binary_math.py``: atan2, lerp, fmod, true_divide."""

from __future__ import annotations

from minitorch.functions import binary_math
from minitorch.tensor_base import TensorBase


class BinaryMathMethods(TensorBase):
    """``Tensor``'s atan2, lerp, fmod, true_divide."""

    __slots__ = ()

    atan2 = binary_math.atan2
    lerp = binary_math.lerp
    fmod = binary_math.fmod
    true_divide = binary_math.true_divide
