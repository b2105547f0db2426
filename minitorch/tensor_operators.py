"""The Tensor's operators: ``+ - * / // % ** @``, comparisons, ``~ & |`` and ``t[index]``.

``Tensor`` (``tensor.py``) inherits from ``TensorOperators``. Each operator hands the work
to an op in ``minitorch/functions/`` (after ``as_operand`` decided whether the other
operand is something a tensor combines with), or, for comparisons and logic, computes a
bool tensor that is never part of the graph. Like ``tensor_methods.py``, this module
calls up into the ops: ``_link_ops()`` imports them once ``Tensor`` exists.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from minitorch import backends
from minitorch.dtypes import SCALAR_TYPES, DType
from minitorch.errors import MiniTorchError

_ops: Any = None  # the minitorch.functions package, bound by _link_ops()
as_operand: Any = None

if TYPE_CHECKING:  # for the annotations only
    from minitorch.tensor import Tensor
else:
    Tensor = None  # bound by _link_ops() too


class TensorOperators:
    """The operators of ``Tensor`` (a mixin: it holds no state of its own)."""

    __slots__ = ()

    if TYPE_CHECKING:  # the Tensor state these methods read; tensor.py defines it
        data: Any
        requires_grad: builtins.bool

        @property
        def shape(self) -> tuple[int, ...]: ...
        @property
        def dtype(self) -> DType: ...

    # ------------------------------------------------------------------ operators
    def _binary(self, fn: Callable[[Any, Any], Tensor], other: Any, reverse: builtins.bool = False) -> Any:
        other = as_operand(other, self)
        if other is None:
            return NotImplemented
        return fn(other, self) if reverse else fn(self, other)

    def __add__(self, other: Any) -> Any:
        return self._binary(_ops.add, other)

    def __radd__(self, other: Any) -> Any:
        return self._binary(_ops.add, other, reverse=True)

    def __sub__(self, other: Any) -> Any:
        return self._binary(_ops.sub, other)

    def __rsub__(self, other: Any) -> Any:
        return self._binary(_ops.sub, other, reverse=True)

    def __mul__(self, other: Any) -> Any:
        return self._binary(_ops.mul, other)

    def __rmul__(self, other: Any) -> Any:
        return self._binary(_ops.mul, other, reverse=True)

    def __truediv__(self, other: Any) -> Any:
        return self._binary(_ops.div, other)

    def __rtruediv__(self, other: Any) -> Any:
        return self._binary(_ops.div, other, reverse=True)

    def __pow__(self, other: Any) -> Any:
        return self._binary(_ops.pow, other)

    def __rpow__(self, other: Any) -> Any:
        return self._binary(_ops.pow, other, reverse=True)

    def __matmul__(self, other: Any) -> Any:
        return self._binary(_ops.matmul, other)

    def __rmatmul__(self, other: Any) -> Any:
        return self._binary(_ops.matmul, other, reverse=True)

    def __neg__(self) -> Tensor:
        if self.data.dtype.kind == "b":
            raise MiniTorchError("neg: negation (-) of a bool tensor is not supported; use ~ (logical not) instead")
        return _ops.Neg.apply(self)

    def __pos__(self) -> Tensor:
        if self.data.dtype.kind == "b":  # as PyTorch: "+" on a bool tensor is not supported
            raise MiniTorchError("pos: the unary + operator on a bool tensor is not supported")
        return self  # type: ignore[return-value]

    def __abs__(self) -> Tensor:
        return _ops.abs(self)

    def __floordiv__(self, other: Any) -> Any:
        return self._binary(_ops.floor_divide, other)

    def __rfloordiv__(self, other: Any) -> Any:
        return self._binary(_ops.floor_divide, other, reverse=True)

    def __mod__(self, other: Any) -> Any:
        return self._binary(_ops.remainder, other)

    def __rmod__(self, other: Any) -> Any:
        return self._binary(_ops.remainder, other, reverse=True)

    def _compare(self, ufunc_name: str, other: Any) -> Any:
        """Elementwise comparison: a bool tensor, never part of the graph."""
        if isinstance(other, TensorOperators):
            value = other.data
        elif isinstance(other, SCALAR_TYPES) or backends.is_backend_array(other):
            value = other
        else:
            return NotImplemented
        xp = backends.module_of(self.data)
        try:
            out = getattr(xp, ufunc_name)(self.data, value)
        except ValueError as exc:
            _ops.broadcast_shape(self.shape, getattr(value, "shape", ()), op=ufunc_name)
            raise exc
        return Tensor._make(xp.asarray(out), None, False)

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
        return Tensor._make(~self.data, None, False)

    def __and__(self, other: Any) -> Any:
        return Tensor._make(self.data & (other.data if isinstance(other, TensorOperators) else other), None, False)

    def __or__(self, other: Any) -> Any:
        return Tensor._make(self.data | (other.data if isinstance(other, TensorOperators) else other), None, False)

    def __getitem__(self, index: Any) -> Tensor:
        return _ops.getitem(self, index)


def _link_ops() -> None:
    """Import what the operators call; run by ``tensor.py`` right after ``Tensor`` exists."""
    global _ops, as_operand, Tensor
    from minitorch import functions as _ops
    from minitorch.functions.promotion import as_operand
    from minitorch.tensor import Tensor
