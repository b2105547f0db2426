"""Tensor methods of the ops in ``functions/shape.py``: reshape, view, permute, expand ... and ``T``."""

from __future__ import annotations

from minitorch.errors import MiniTorchError
from minitorch.functions import shape

# The type variable is imported as ``Same``: ``T`` is the transpose property here.
from minitorch.tensor_base import T as Same
from minitorch.tensor_base import TensorBase


class ShapeMethods(TensorBase):
    """``Tensor``'s reshape, view, permute, transpose, squeeze, expand, flatten, and the ``T`` / ``mT`` properties."""

    __slots__ = ()

    @property
    def T(self: Same) -> Same:
        """The transpose of a 2-D tensor (dimensions reversed for other ranks)."""
        if self.data.ndim < 2:
            return self
        return shape.permute(self, *reversed(range(self.data.ndim)))

    @property
    def mT(self: Same) -> Same:
        """The last two dimensions swapped (a batch of transposed matrices)."""
        return shape.transpose(self, -2, -1)

    reshape = shape.reshape
    view = shape.view

    def view_as(self: Same, other: TensorBase) -> Same:
        """``self.view(other.shape)``."""
        return shape.view(self, other.shape)

    def reshape_as(self: Same, other: TensorBase) -> Same:
        """``self.reshape(other.shape)``."""
        return shape.reshape(self, other.shape)

    transpose = shape.transpose

    def t(self: Same) -> Same:
        """Transpose of a 2-D tensor (0-D and 1-D ones are returned as is; more dims are an error, as PyTorch)."""
        if self.ndim > 2:
            raise MiniTorchError(
                f"t() expects a tensor with <= 2 dimensions, but self is {self.ndim}D (shape {tuple(self.shape)}); "
                "use transpose(d0, d1) or permute"
            )
        return shape.transpose(self, 0, 1) if self.ndim == 2 else self

    permute = shape.permute
    unsqueeze = shape.unsqueeze
    squeeze = shape.squeeze
    expand = shape.expand
    broadcast_to = shape.broadcast_to
    expand_as = shape.expand_as
    flatten = shape.flatten
