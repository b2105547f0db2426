"""Tensor methods of the ops in ``functions/clamping.py``."""

from __future__ import annotations

from minitorch.functions import clamping
from minitorch.tensor_base import TensorBase


class ClampingMethods(TensorBase):
    """``Tensor``'s clamp, clip, clamp_min, clamp_max."""

    __slots__ = ()

    clamp = clamping.clamp
    clip = clamp
    clamp_min = clamping.clamp_min
    clamp_max = clamping.clamp_max
