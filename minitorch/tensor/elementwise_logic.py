"""Tensor methods of the ops in ``functions/elementwise_logic.py``: comparisons, logic and NaN/inf tests."""

from __future__ import annotations

from typing import Any

from minitorch.errors import MiniTorchError
from minitorch.functions import elementwise_logic
from minitorch.tensor_base import T, TensorBase


class LogicMethods(TensorBase):
    """``Tensor``'s comparisons (``== != < <= > >=``, a bool tensor outside the graph), ``~ & |``, and tests."""

    __slots__ = ()

    def _compare(self, ufunc_name: str, other: Any) -> Any:
        """Elementwise comparison: a bool tensor, never part of the graph."""
        return elementwise_logic.compare(ufunc_name, self, other)

    # Defining __eq__ would make the class unhashable; tensors hash by identity (dict keys).
    __hash__ = TensorBase.__hash__

    def __eq__(self, other: Any) -> Any:
        return self._compare("equal", other)

    def __ne__(self, other: Any) -> Any:
        return self._compare("not_equal", other)

    def __lt__(self, other: Any) -> Any:
        return self._compare("less", other)

    def __le__(self, other: Any) -> Any:
        return self._compare("less_equal", other)

    def __gt__(self, other: Any) -> Any:
        return self._compare("greater", other)

    def __ge__(self, other: Any) -> Any:
        return self._compare("greater_equal", other)

    def eq(self: T, other: Any) -> T:
        """Elementwise ``==`` (a bool tensor)."""
        return elementwise_logic.compare("equal", self, other)

    def ne(self: T, other: Any) -> T:
        """Elementwise ``!=``."""
        return elementwise_logic.compare("not_equal", self, other)

    def lt(self: T, other: Any) -> T:
        """Elementwise ``<``."""
        return elementwise_logic.compare("less", self, other)

    def le(self: T, other: Any) -> T:
        """Elementwise ``<=``."""
        return elementwise_logic.compare("less_equal", self, other)

    def gt(self: T, other: Any) -> T:
        """Elementwise ``>``."""
        return elementwise_logic.compare("greater", self, other)

    def ge(self: T, other: Any) -> T:
        """Elementwise ``>=``."""
        return elementwise_logic.compare("greater_equal", self, other)

    def __invert__(self: T) -> T:
        if self.data.dtype.kind != "b":
            raise MiniTorchError(f"~ (logical not) needs a bool tensor, got {self.dtype}")
        return TensorBase._make(~self.data, None, False)

    def __and__(self, other: Any) -> Any:
        return TensorBase._make(self.data & (other.data if isinstance(other, TensorBase) else other), None, False)

    def __or__(self, other: Any) -> Any:
        return TensorBase._make(self.data | (other.data if isinstance(other, TensorBase) else other), None, False)

    isnan = elementwise_logic.isnan
    isinf = elementwise_logic.isinf
    isfinite = elementwise_logic.isfinite
    logical_not = elementwise_logic.logical_not
    logical_and = elementwise_logic.logical_and
    logical_or = elementwise_logic.logical_or
    logical_xor = elementwise_logic.logical_xor
    isclose = elementwise_logic.isclose
    allclose = elementwise_logic.allclose
    equal = elementwise_logic.equal

    def maximum(self: T, other: Any) -> T:
        """Elementwise maximum with ``other``."""
        return elementwise_logic.maximum(self, other)

    def minimum(self: T, other: Any) -> T:
        """Elementwise minimum with ``other``."""
        return elementwise_logic.minimum(self, other)

    def where(self: T, condition: Any, other: Any) -> T:
        """``where(condition, self, other)``."""
        return elementwise_logic.where(condition, self, other)
