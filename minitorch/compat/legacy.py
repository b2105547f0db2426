"""The spellings of PyTorch before 0.4 that older tutorials still use, mapped onto today's tensors.

- ``Variable(t, requires_grad=True)``: since PyTorch 0.4 every tensor is a Variable, and
  ``Variable(t)`` is a new leaf tensor over the same data (``t`` itself is unchanged).
  ``isinstance(x, Variable)`` is True for every tensor.
- ``FloatTensor``, ``LongTensor``, ``DoubleTensor``, ``HalfTensor``, ``BoolTensor``: called,
  they build a tensor of their dtype (``LongTensor([1.5, 2])`` truncates to ``[1, 2]``,
  ``FloatTensor(2, 3)`` is a shape); ``isinstance(t, FloatTensor)`` asks "float32, on the
  CPU?"; ``t.type(LongTensor)`` converts.

None of them is a class of its own: every result is a plain ``minitorch.Tensor``.
"""

from __future__ import annotations

from typing import Any

from minitorch import dtypes
from minitorch.tensor import Tensor
from minitorch.tensor.constructor import constructor_array


class _VariableType(type):
    """Makes ``isinstance(x, Variable)`` true for every tensor, as in PyTorch."""

    def __instancecheck__(cls, instance: Any) -> bool:
        return isinstance(instance, Tensor)


class Variable(metaclass=_VariableType):
    """``Variable(data, requires_grad=False)``: a new leaf tensor over ``data``'s values (shared)."""

    def __new__(cls, data: Any = None, requires_grad: bool = False, volatile: bool = False) -> Any:  # noqa: D102
        if data is None:
            return Tensor()
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        alias = Tensor._make(data.data, None, False)  # same memory, no history: PyTorch's Variable(t)
        return alias.requires_grad_(bool(requires_grad)) if requires_grad else alias


class _LegacyTensorType(type):
    """The metaclass of ``FloatTensor`` and friends: calling builds a tensor, isinstance checks the dtype."""

    dtype: dtypes.DType

    def __call__(cls, *args: Any, device: Any = None) -> Tensor:
        return Tensor._make(constructor_array(args, cls.dtype, device), None, False)

    def __instancecheck__(cls, instance: Any) -> bool:
        return isinstance(instance, Tensor) and instance.dtype is cls.dtype and instance.device.type == "cpu"

    def __repr__(cls) -> str:
        return f"<class 'minitorch.{cls.__name__}'>"


def _legacy_type(name: str, dtype: dtypes.DType) -> _LegacyTensorType:
    """One legacy tensor type, e.g. ``FloatTensor`` for float32."""
    doc = f"``{name}(data)`` or ``{name}(*shape)``: a {dtype.name} tensor (the pre-0.4 spelling)."
    return _LegacyTensorType(name, (), {"dtype": dtype, "__doc__": doc, "__slots__": ()})


FloatTensor = _legacy_type("FloatTensor", dtypes.float32)
DoubleTensor = _legacy_type("DoubleTensor", dtypes.float64)
HalfTensor = _legacy_type("HalfTensor", dtypes.float16)
LongTensor = _legacy_type("LongTensor", dtypes.int64)
BoolTensor = _legacy_type("BoolTensor", dtypes.bool_)

__all__ = ["BoolTensor", "DoubleTensor", "FloatTensor", "HalfTensor", "LongTensor", "Variable"]
