"""Tensor methods of the ops in ``functions/activations.py``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from minitorch.functions import activations
from minitorch.tensor_base import TensorBase

if TYPE_CHECKING:  # the face, for annotations only: never imported at run time (no cycle)
    from minitorch.tensor import Tensor


class ActivationMethods(TensorBase):
    """``Tensor``'s softmax, log_softmax."""

    __slots__ = ()

    def softmax(self, dim: int, dtype: Any = None) -> Tensor:
        """exp(self) normalised to sum to 1 along ``dim`` (in ``dtype`` if given)."""
        return activations.softmax(self, dim, dtype)

    def log_softmax(self, dim: int, dtype: Any = None) -> Tensor:
        """log(softmax(self, dim)), computed stably (in ``dtype`` if given)."""
        return activations.log_softmax(self, dim, dtype)
