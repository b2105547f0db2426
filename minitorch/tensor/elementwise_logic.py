"""Tensor methods of the ops in ``functions/elementwise_logic.py``: comparisons, logic and NaN/inf tests."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from minitorch import backends
from minitorch.dtypes import SCALAR_TYPES
from minitorch.errors import MiniTorchError
from minitorch.functions import elementwise_logic
from minitorch.size import broadcast_shape
from minitorch.tensor_base import TensorBase

if TYPE_CHECKING:  # the face, for annotations only: never imported at run time (no cycle)
    from minitorch.tensor import Tensor


class LogicMethods(TensorBase):
    """``Tensor``'s comparisons (``== != < <= > >=``, a bool tensor outside the graph), ``~ & |``, and tests."""

    __slots__ = ()

    def _compare(self, ufunc_name: str, other: Any) -> Any:
        """Elementwise comparison: a bool tensor, never part of the graph."""
        if isinstance(other, TensorBase):
            value = other.data
        elif isinstance(other, SCALAR_TYPES) or backends.is_backend_array(other):
            value = other
        else:
            return NotImplemented
        xp = backends.module_of(self.data)
        try:
            out = getattr(xp, ufunc_name)(self.data, value)
        except ValueError as exc:
            broadcast_shape(self.shape, getattr(value, "shape", ()), op=ufunc_name)
            raise exc
        return TensorBase._make(xp.asarray(out), None, False)

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

    def eq(self, other: Any) -> Tensor:
        """Elementwise ``==`` (a bool tensor)."""
        return self.__eq__(other)

    def ne(self, other: Any) -> Tensor:
        """Elementwise ``!=``."""
        return self.__ne__(other)

    def lt(self, other: Any) -> Tensor:
        """Elementwise ``<``."""
        return self.__lt__(other)

    def le(self, other: Any) -> Tensor:
        """Elementwise ``<=``."""
        return self.__le__(other)

    def gt(self, other: Any) -> Tensor:
        """Elementwise ``>``."""
        return self.__gt__(other)

    def ge(self, other: Any) -> Tensor:
        """Elementwise ``>=``."""
        return self.__ge__(other)

    def __invert__(self) -> Tensor:
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

    def maximum(self, other: Any) -> Tensor:
        """Elementwise maximum with ``other``."""
        return elementwise_logic.maximum(self, other)

    def minimum(self, other: Any) -> Tensor:
        """Elementwise minimum with ``other``."""
        return elementwise_logic.minimum(self, other)

    def where(self, condition: Any, other: Any) -> Tensor:
        """``where(condition, self, other)``."""
        return elementwise_logic.where(condition, self, other)
