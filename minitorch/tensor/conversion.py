"""Tensor methods of the ops in ``functions/conversion.py``: ``to``, ``float`` ... ``type``, ``clone``.

Each is a recorded op (``Cast``, ``ToDevice``, ``Clone``), so gradients flow back through
a conversion as through any other op.
"""

from __future__ import annotations

from typing import Any

from minitorch import backends
from minitorch.dtypes import DType, bool_, float16, float32, float64, get_dtype, int64
from minitorch.functions import conversion
from minitorch.tensor_base import T, TensorBase

# ``Tensor.type()`` names, as PyTorch's legacy tensor types (``torch.FloatTensor``).
_TYPE_NAMES = {
    "float16": "minitorch.HalfTensor",
    "float32": "minitorch.FloatTensor",
    "float64": "minitorch.DoubleTensor",
    "int64": "minitorch.LongTensor",
    "bool": "minitorch.BoolTensor",
}
_TYPES_BY_NAME = {name: dtype for dtype, name in _TYPE_NAMES.items()}
_TYPES_BY_NAME.update({name.replace("minitorch.", "torch."): dtype for dtype, name in _TYPE_NAMES.items()})


class ConversionMethods(TensorBase):
    """``Tensor``'s conversions to another dtype or device, and copies."""

    __slots__ = ()

    def clone(self: T) -> T:
        """A copy of the data that stays in the graph (gradients flow back to this tensor)."""
        return conversion.Clone.apply(self)

    def contiguous(self: T) -> T:
        """This tensor if contiguous, else a contiguous (row-major) copy."""
        if self.data.flags.c_contiguous:
            return self
        return conversion.Clone.apply(self)

    def to(self: T, *args: Any, dtype: Any = None, device: Any = None) -> T:
        """Move to a device (``"cpu"``/``"cuda"``) and/or convert to a dtype; differentiable."""
        for arg in args:
            if isinstance(arg, str) or (hasattr(arg, "type") and not isinstance(arg, DType)):
                device = arg
            elif isinstance(arg, TensorBase):
                device, dtype = arg.device, arg.dtype
            else:
                dtype = arg
        out = self
        if device is not None:
            target = backends.require(device, f"move a tensor to {device!r}").name
            if target != out.device:
                out = conversion.ToDevice.apply(out, target)
        if dtype is not None:
            out = conversion.cast(out, get_dtype(dtype))
        return out

    def cpu(self: T) -> T:
        """A copy on the CPU (or self when already there)."""
        return ConversionMethods.to(self, "cpu")

    def cuda(self: T) -> T:
        """A copy on the GPU (or self when already there)."""
        return ConversionMethods.to(self, "cuda")

    def float(self: T) -> T:
        """Convert to float32."""
        return conversion.cast(self, float32)

    def double(self: T) -> T:
        """Convert to float64."""
        return conversion.cast(self, float64)

    def half(self: T) -> T:
        """Convert to float16 (half precision)."""
        return conversion.cast(self, float16)

    def long(self: T) -> T:
        """Convert to int64."""
        return conversion.cast(self, int64)

    def bool(self: T) -> T:
        """Convert to bool."""
        return conversion.cast(self, bool_)

    def type_as(self: T, other: T) -> T:
        """Convert to the dtype of ``other``."""
        return conversion.cast(self, other.dtype)

    def type(self, dtype: Any = None) -> Any:
        """With no argument the type's name (``'minitorch.FloatTensor'``); else convert to ``dtype``."""
        if dtype is None:
            return _TYPE_NAMES[self.dtype.name]
        if isinstance(dtype, str) and dtype in _TYPES_BY_NAME:
            dtype = _TYPES_BY_NAME[dtype]
        if isinstance(dtype, type) and isinstance(getattr(dtype, "dtype", None), DType):
            dtype = getattr(dtype, "dtype")  # noqa: B009  (a legacy type: t.type(minitorch.LongTensor))
        return conversion.cast(self, get_dtype(dtype))
