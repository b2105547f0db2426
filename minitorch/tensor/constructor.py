"""What ``minitorch.Tensor(...)`` builds, with the legacy spellings of ``torch.Tensor``.

``minitorch.tensor(data)`` is the factory to use; the class call ``Tensor(...)`` follows
the older ``torch.Tensor`` constructor that tutorials written before PyTorch 0.4 still use:

- ``Tensor(2, 3)`` or ``Tensor(x.size())``: a float tensor of that *shape* (PyTorch leaves
  the memory uninitialised; MiniTorch fills it with zeros, as ``empty`` does);
- ``Tensor()``: an empty float tensor, shape ``(0,)``;
- ``Tensor([0, 1])``: Python numbers always give the default float dtype (float32), where
  ``tensor([0, 1])`` gives int64;
- ``Tensor(array)`` / ``Tensor(t)``: a copy that keeps the array's or tensor's dtype (PyTorch
  converts to float32: see docs/DIFFERENCES-FROM-PYTORCH.md).
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from minitorch import backends
from minitorch.dtypes import default_float, get_dtype
from minitorch.errors import MiniTorchError
from minitorch.hints import Array
from minitorch.python_data import to_array
from minitorch.size import Size
from minitorch.tensor_base import TensorBase


def _is_shape(args: tuple[Any, ...]) -> bool:
    """``Tensor(2, 3)`` and ``Tensor(torch.Size([2, 3]))`` give a shape; ``Tensor((2, 3))`` gives data."""
    if len(args) == 1 and isinstance(args[0], Size):
        return True
    return bool(args) and all(isinstance(a, numbers.Integral) and not isinstance(a, (bool, np.bool_)) for a in args)


def constructor_array(args: tuple[Any, ...], dtype: Any = None, device: Any = None) -> Array:
    """The backend array behind ``Tensor(*args, dtype=..., device=...)``."""
    float_dtype = get_dtype(dtype) if dtype is not None else default_float()
    if not args or _is_shape(args):
        shape = tuple(int(n) for n in (args[0] if len(args) == 1 and isinstance(args[0], Size) else args))
        if any(n < 0 for n in shape):
            raise MiniTorchError(f"Tensor(): trying to create tensor with negative dimension: {list(shape)}")
        array = np.zeros(shape if args else (0,), dtype=float_dtype.np_dtype)
        return backends.to_device(array, backends.normalize_device(device))
    if len(args) > 1:
        raise TypeError(
            f"Tensor(): expected one data argument or a shape of ints, got {len(args)} arguments "
            f"({', '.join(type(a).__name__ for a in args)}); pass dtype= and device= as keywords"
        )
    data = args[0]
    if isinstance(data, TensorBase) or backends.is_backend_array(data):
        return to_array(data, dtype, device, TensorBase)
    if isinstance(data, (str, bytes)):
        raise TypeError(f"Tensor(): invalid data type '{type(data).__name__}'")
    if not isinstance(data, (list, tuple)):
        raise TypeError(
            f"Tensor(): data must be a sequence (got {type(data).__name__}); for a 0-d tensor use "
            f"minitorch.tensor({data!r})"
        )
    return to_array(data, float_dtype, device, TensorBase)  # Python numbers: the default float dtype, as torch.Tensor
