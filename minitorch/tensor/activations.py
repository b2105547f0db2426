"""Tensor methods of the ops in ``functions/activations.py``."""

from __future__ import annotations

from typing import Any

from minitorch.functions import activations
from minitorch.tensor_base import T, TensorBase


class ActivationMethods(TensorBase):
    """``Tensor``'s softmax, log_softmax."""

    __slots__ = ()

    def softmax(self: T, dim: int, dtype: Any = None) -> T:
        """exp(self) normalised to sum to 1 along ``dim`` (in ``dtype`` if given)."""
        return activations.softmax(self, dim, dtype)

    def log_softmax(self: T, dim: int, dtype: Any = None) -> T:
        """log(softmax(self, dim)), computed stably (in ``dtype`` if given)."""
        return activations.log_softmax(self, dim, dtype)
