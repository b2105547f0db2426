"""Tensor methods of the ops in ``functions/linalg.py``: matmul, mm, mv, bmm, addmm, the ``@`` operator, and norm."""

from __future__ import annotations

import builtins
from typing import Any

from minitorch.functions import linalg
from minitorch.tensor.arithmetic import binary_operator
from minitorch.tensor_base import T, TensorBase


class LinalgMethods(TensorBase):
    """``Tensor``'s matmul, mm, mv, bmm, addmm, the ``@`` operator, and norm."""

    __slots__ = ()

    norm = linalg.norm

    __matmul__, __rmatmul__ = binary_operator(linalg.matmul), binary_operator(linalg.matmul, reflected=True)

    def matmul(self: T, other: Any) -> T:
        """``self @ other``."""
        return linalg.matmul(self, other)

    def mm(self: T, other: Any) -> T:
        """Matrix product of two 2-D tensors."""
        return linalg.mm(self, other)

    def mv(self: T, vec: Any) -> T:
        """This 2-D tensor times a 1-D vector."""
        return linalg.mv(self, vec)

    def bmm(self: T, other: Any) -> T:
        """Batched matrix product of two 3-D tensors."""
        return linalg.bmm(self, other)

    def addmm(self: T, mat1: Any, mat2: Any, *, beta: builtins.float = 1, alpha: builtins.float = 1) -> T:
        """``beta * self + alpha * (mat1 @ mat2)``."""
        return linalg.addmm(self, mat1, mat2, beta=beta, alpha=alpha)

