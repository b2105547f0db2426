"""Tensor methods of the ops in ``functions/activations.py``."""

from __future__ import annotations

from typing import Any

from minitorch.functions import activations
from minitorch.tensor_base import TensorBase


class ActivationMethods(TensorBase):
    """PLACEHOLDER"""

    __slots__ = ()

    def softmax(self, dim: int, dtype: Any = None) -> TensorBase:
        """exp(self) normalised to sum to 1 along ``dim`` (in ``dtype`` if given)."""
        return activations.softmax(self, dim, dtype)

    def log_softmax(self, dim: int, dtype: Any = None) -> TensorBase:
        """log(softmax(self, dim)), computed stably (in ``dtype`` if given)."""
        return activations.log_softmax(self, dim, dtype)
