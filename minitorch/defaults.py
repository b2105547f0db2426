"""The defaults for new tensors: the dtype of Python floats, and the device of factories.

``set_default_dtype(minitorch.float64)`` makes ``tensor([1.5])``, ``zeros(3)`` and ``rand(2)``
float64, as in PyTorch (only float32 and float64 can be the default). ``set_default_device``
makes factories create tensors there (``minitorch.tensor(t)`` of an existing tensor keeps
its device). Both live in ``minitorch.switches.SWITCHES``; its ``reset()`` restores them.
"""

from __future__ import annotations

from typing import Any

from minitorch import backends
from minitorch.backends.device import device
from minitorch.dtypes import DType, default_float, get_dtype
from minitorch.switches import SWITCHES


def set_default_dtype(dtype: Any) -> None:
    """The dtype of Python floats and float factories: ``minitorch.float32`` or ``float64``."""
    chosen = get_dtype(dtype)
    if not chosen.is_floating_point:
        raise TypeError(f"set_default_dtype: only floating-point types can be the default type, got {chosen}")
    SWITCHES.default_dtype = chosen.name


def get_default_dtype() -> DType:
    """The current default float dtype (``minitorch.float32`` unless changed)."""
    return default_float()


def set_default_device(where: Any) -> None:
    """Where factories (``zeros``, ``rand``, ``tensor(list)``...) put new tensors; None is "cpu"."""
    name = "cpu" if where is None else backends.normalize_device(where)
    backends.require(name, f"set the default device to {name!r}")
    SWITCHES.default_device = name


def get_default_device() -> device:
    """The current default device (``device(type='cpu')`` unless changed)."""
    return device(SWITCHES.default_device)
