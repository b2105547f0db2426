"""Tensor methods of the ops in ``functions/reductions.py``."""

from __future__ import annotations

from minitorch.functions import reductions
from minitorch.tensor_base import TensorBase


class ReductionMethods(TensorBase):
    """``Tensor``'s sum, mean, max, min, var, std, logsumexp, argmax ... (reductions over dims)."""

    __slots__ = ()

    sum = reductions.sum
    mean = reductions.mean
    amax = reductions.amax
    amin = reductions.amin
    max = reductions.max
    min = reductions.min
    var = reductions.var
    std = reductions.std
    logsumexp = reductions.logsumexp
    argmax = reductions.argmax
    argmin = reductions.argmin
