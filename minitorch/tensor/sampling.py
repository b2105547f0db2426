"""Tensor methods of the functions in ``functions/sampling.py``."""

from __future__ import annotations

from minitorch.functions import sampling
from minitorch.tensor_base import TensorBase


class SamplingMethods(TensorBase):
    """``Tensor``'s bernoulli and multinomial."""

    __slots__ = ()

    bernoulli = sampling.bernoulli
    multinomial = sampling.multinomial
