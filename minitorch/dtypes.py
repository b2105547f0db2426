"""The five dtypes MiniTorch supports, and PyTorch's type-promotion rules.

A :class:`DType` is a thin, readable wrapper around a NumPy dtype: ``minitorch.float32``
prints as ``minitorch.float32`` (as ``torch.float32`` does) while the tensor's data stays
a plain NumPy (or CuPy) array of ``numpy.float32``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from minitorch.hints import Array, DTypeLike
from minitorch.switches import SWITCHES


class DType:
    """One element type: its name, the NumPy dtype behind it and its category."""

    __slots__ = ("name", "np_dtype", "is_floating_point", "category", "itemsize")

    def __init__(self, name: str, np_dtype: Any, category: int) -> None:
        self.name = name
        self.np_dtype = np.dtype(np_dtype)
        # Categories order the kinds of number for promotion: bool < integer < floating.
        self.category = category
        self.is_floating_point = category == 2
        self.itemsize = self.np_dtype.itemsize

    def __repr__(self) -> str:
        return f"minitorch.{self.name}"

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return (get_dtype, (self.name,))


bool_ = DType("bool", np.bool_, 0)
int64 = DType("int64", np.int64, 1)
float16 = DType("float16", np.float16, 2)  # half precision: range +-65504, about 3 decimal digits
float32 = DType("float32", np.float32, 2)
float64 = DType("float64", np.float64, 2)

ALL_DTYPES = (bool_, int64, float16, float32, float64)


def default_float() -> DType:
    """The dtype of Python floats and float factories: float32 unless ``set_default_dtype``."""
    return _BY_NAME[SWITCHES.default_dtype]


_BY_NAME = {d.name: d for d in ALL_DTYPES}
_BY_NAME.update({"float": float32, "double": float64, "half": float16, "long": int64, "bool_": bool_})
_BY_NUMPY = {d.np_dtype: d for d in ALL_DTYPES}
# NumPy dtypes MiniTorch has no own type for are stored as the nearest supported one
# (as a learner loading an int32 array would expect to keep working).
_NUMPY_FALLBACK = {"i": int64, "u": int64, "f": float32}


def get_dtype(spec: DTypeLike) -> DType:
    """Turn ``minitorch.float32``, ``numpy.float32``, ``"float32"`` or ``float`` into a DType."""
    if type(spec) is DType:
        return spec
    if spec is float:
        return float32
    if spec is int:
        return int64
    if spec is bool:
        return bool_
    if isinstance(spec, str) and spec in _BY_NAME:
        return _BY_NAME[spec]
    try:
        np_dtype = np.dtype(spec)
    except TypeError:
        np_dtype = None
    if np_dtype is not None and np_dtype in _BY_NUMPY:
        return _BY_NUMPY[np_dtype]
    names = ", ".join(d.name for d in ALL_DTYPES)
    raise TypeError(f"unknown dtype {spec!r}: MiniTorch supports {names}")


def dtype_of_array(array: Array) -> DType:
    """The DType of a backend array; unsupported NumPy kinds map to the nearest one."""
    dt = _BY_NUMPY.get(array.dtype)
    if dt is not None:
        return dt
    fallback = _NUMPY_FALLBACK.get(array.dtype.kind)
    if fallback is None:
        raise TypeError(
            f"cannot make a tensor from an array of dtype {array.dtype}: MiniTorch supports "
            "bool, integer and floating-point data"
        )
    return fallback


# What counts as a Python number next to a tensor (NumPy scalars included, as in PyTorch).
SCALAR_TYPES = (int, float, bool, np.number, np.bool_)


def scalar_category(value: Any) -> int:
    """Promotion category of a Python scalar: 0 bool, 1 int, 2 float."""
    if isinstance(value, (bool, np.bool_)):
        return 0
    if isinstance(value, (int, np.integer)):
        return 1
    return 2


def promote_types(a: DType, b: DType) -> DType:
    """The wider of two DTypes (float64 beats float32 beats int64 beats bool)."""
    if a is b:
        return a
    if a.category != b.category:
        return a if a.category > b.category else b
    return a if a.itemsize >= b.itemsize else b


def result_dtype(
    tensor_dtypes: Iterable[DType],
    scalar_tensor_dtypes: Iterable[DType] = (),
    scalar_categories: Iterable[int] = (),
) -> DType:
    """PyTorch's promotion: shaped tensors decide, then 0-dim tensors, then Python scalars.

    A lower-priority operand only matters when it brings a higher category: ``float32``
    tensor + ``float64`` 0-dim tensor stays ``float32``, but ``int64`` tensor + ``2.5``
    becomes the default float ``float32``.
    """
    result: DType | None = None
    for group in (tensor_dtypes, scalar_tensor_dtypes):
        group_result: DType | None = None
        for d in group:
            group_result = d if group_result is None else promote_types(group_result, d)
        if group_result is None:
            continue
        if result is None:
            result = group_result
        elif group_result.category > result.category:
            result = group_result
    top_scalar = max(scalar_categories, default=-1)
    if result is None:
        return (bool_, int64, default_float())[top_scalar]
    if top_scalar > result.category:
        return int64 if top_scalar == 1 else default_float()
    return result
