"""Tensor methods and operators of the ops in ``functions/arithmetic.py``: ``+ - * / ** // %``, neg.

``a * b`` is ``Tensor.__mul__``, made by ``binary_operator(arithmetic.mul)``: it checks the other
operand and calls ``functions.arithmetic.mul(a, b)``, the same function as
``minitorch.mul(a, b)``. Follow it there for the rest of the story (type promotion, the
``Mul`` op, ``Function.apply``).
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from typing import Any

from minitorch.errors import MiniTorchError
from minitorch.functions import arithmetic
from minitorch.tensor_base import T, TensorBase


def binary_operator(
    op: Callable[[Any, Any], TensorBase], reflected: builtins.bool = False
) -> Callable[[Any, Any], Any]:
    """The Python operator for the binary op ``op``: ``a * b`` is ``op(a, b)``.

    ``reflected`` makes the right-hand form: ``2 * a`` is ``a.__rmul__(2)``, which is
    ``op(2, a)``. The other operand may be a Tensor, a Python or NumPy number, or an array;
    for anything else the operator returns NotImplemented, so that Python asks the other
    operand (and raises its usual TypeError if that cannot do it either).
    """

    def operator(self: TensorBase, other: Any) -> Any:
        if not isinstance(other, TensorBase):  # a number or an array: checked and wrapped
            other = arithmetic.as_operand(other)
            if other is None:
                return NotImplemented
        return op(other, self) if reflected else op(self, other)

    operator.__name__ = f"__r{op.__name__}__" if reflected else f"__{op.__name__}__"
    return operator


class ArithmeticMethods(TensorBase):
    """``Tensor``'s arithmetic: the methods ``add`` ... ``pow`` and the operators ``+ - * / ** // %``."""

    __slots__ = ()

    def add(self: T, other: Any, *, alpha: builtins.float = 1) -> T:
        """``self + alpha * other``."""
        return arithmetic.add(self, other, alpha=alpha)

    def sub(self: T, other: Any, *, alpha: builtins.float = 1) -> T:
        """``self - alpha * other``."""
        return arithmetic.sub(self, other, alpha=alpha)

    def mul(self: T, other: Any) -> T:
        """``self * other``."""
        return arithmetic.mul(self, other)

    def div(self: T, other: Any) -> T:
        """``self / other``."""
        return arithmetic.div(self, other)

    def neg(self: T) -> T:
        """``-self``."""
        return arithmetic.Neg.apply(self)

    def pow(self: T, exponent: Any) -> T:
        """``self ** exponent``."""
        return arithmetic.pow(self, exponent)

    # ------------------------------------------------------------------ operators
    __add__, __radd__ = binary_operator(arithmetic.add), binary_operator(arithmetic.add, reflected=True)
    __sub__, __rsub__ = binary_operator(arithmetic.sub), binary_operator(arithmetic.sub, reflected=True)
    __mul__, __rmul__ = binary_operator(arithmetic.mul), binary_operator(arithmetic.mul, reflected=True)
    __truediv__, __rtruediv__ = binary_operator(arithmetic.div), binary_operator(arithmetic.div, reflected=True)
    __pow__, __rpow__ = binary_operator(arithmetic.pow), binary_operator(arithmetic.pow, reflected=True)
    __floordiv__ = binary_operator(arithmetic.floor_divide)
    __rfloordiv__ = binary_operator(arithmetic.floor_divide, reflected=True)
    __mod__, __rmod__ = binary_operator(arithmetic.remainder), binary_operator(arithmetic.remainder, reflected=True)

    def __neg__(self: T) -> T:
        if self.data.dtype.kind == "b":
            raise MiniTorchError("neg: negation (-) of a bool tensor is not supported; use ~ (logical not) instead")
        return arithmetic.Neg.apply(self)

    def __pos__(self: T) -> T:
        if self.data.dtype.kind == "b":  # as PyTorch: "+" on a bool tensor is not supported
            raise MiniTorchError("pos: the unary + operator on a bool tensor is not supported")
        return self
