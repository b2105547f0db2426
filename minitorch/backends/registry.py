"""The registry of backends, and the questions every layer asks it.

``register(backend)`` adds a device kind; everything else looks backends up here:
by device string (``get("cuda")``) or by array (``of(array)``: whose array is this?).
A backend whose library is missing or has no device stays registered but unusable;
its array type is only known, and looked up, once its ``probe`` has succeeded.

The functions below the registry are what ops, the engine and ``nn`` use, so that none
of them names NumPy's or CuPy's array types.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitorch.backends.base import Backend
from minitorch.backends.cpu import CPU
from minitorch.errors import MiniTorchError
from minitorch.switches import SWITCHES

_BY_NAME: dict[str, Backend] = {}
_BY_ARRAY_TYPE: dict[type, Backend] = {}


def register(backend: Backend) -> Backend:
    """Add a backend under its ``name``; a name already taken is refused."""
    if backend.name in _BY_NAME:
        raise ValueError(f"a backend named {backend.name!r} is already registered: {_BY_NAME[backend.name]!r}")
    _BY_NAME[backend.name] = backend
    if backend.array_type is not None:
        activate(backend)
    return backend


def unregister(name: str) -> Backend:
    """Remove the backend registered as ``name`` and return it (the CPU cannot be removed)."""
    if name == CPU.name:
        raise ValueError("the CPU backend cannot be unregistered")
    backend = _BY_NAME.pop(name)
    deactivate(backend)
    return backend


def activate(backend: Backend) -> None:
    """Make ``of(array)`` recognise the backend's arrays (called once its probe succeeded)."""
    if backend.array_type is None:
        raise ValueError(f"{backend!r} has no array type yet")
    _BY_ARRAY_TYPE[backend.array_type] = backend


def deactivate(backend: Backend) -> None:
    """Stop recognising the backend's arrays (its probe was reset)."""
    for array_type, owner in list(_BY_ARRAY_TYPE.items()):
        if owner is backend:
            del _BY_ARRAY_TYPE[array_type]


def names() -> list[str]:
    """The registered device names, host first."""
    return list(_BY_NAME)


def reset_probes() -> None:
    """Make every backend probe its device again on next use (tests swap CuPy for a fake)."""
    for backend in _BY_NAME.values():
        backend.reset()


# ---------------------------------------------------------------------- device strings
def normalize_device(device: Any) -> str:
    """The backend name for a device string or object (``"cuda:0"`` is ``"cuda"``).

    Unknown names are an error listing the valid ones. MiniTorch drives one device of each
    kind, so an index other than 0 is refused rather than silently ignored.
    """
    if device is None:  # the default device (minitorch.set_default_device), "cpu" at start
        return SWITCHES.default_device
    if isinstance(device, str):
        name, index = device.strip().lower(), None
    else:  # a device object with ``.type`` and ``.index`` (torch.device style)
        name, index = str(getattr(device, "type", device)).strip().lower(), getattr(device, "index", None)
    if ":" in name:
        name, _, number = name.partition(":")
        index = int(number) if number.isdigit() else number
    if name in _BY_NAME and (index is None or index == 0):
        return name
    accelerators = [n for n, b in _BY_NAME.items() if not b.is_host]
    if name in accelerators:
        raise MiniTorchError(
            f"device {device!r}: MiniTorch uses a single GPU, '{name}' (= '{name}:0'); got another index"
        )
    valid = " or ".join(repr(n) for n in _BY_NAME)
    also = "".join(f" (or '{n}:0')" for n in accelerators)
    raise MiniTorchError(f"unknown device {device!r}: expected {valid}{also}")


def get(device: Any) -> Backend:
    """The backend for a device string or object (it may be unusable: see ``require``)."""
    return _BY_NAME[normalize_device(device)]


def require(device: Any, action: str | None = None) -> Backend:
    """The backend for ``device``, or a MiniTorchError saying why ``action`` cannot run there."""
    backend = get(device)
    usable, reason = backend.probe()
    if not usable:
        action = action or f"use device {backend.name!r}"
        raise MiniTorchError(
            f"cannot {action}: no usable {backend.label} ({reason}). Check "
            f"minitorch.{backend.name}.is_available() first, or stay on device='cpu'"
        )
    return backend


# ---------------------------------------------------------------------- arrays
def of(array: Any) -> Backend:
    """The backend that owns ``array``; the CPU for NumPy arrays, scalars and plain values."""
    if type(array) is np.ndarray:  # the common case, answered without a lookup
        return CPU
    backend = _BY_ARRAY_TYPE.get(type(array))
    if backend is not None:
        return backend
    for array_type, owner in _BY_ARRAY_TYPE.items():  # subclasses of an array type
        if isinstance(array, array_type):
            return owner
    return CPU


def device_of(array: Any) -> str:
    """``"cpu"`` for a NumPy array (or scalar), the owning backend's name otherwise."""
    return of(array).name


def module_of(array: Any) -> Any:
    """The array library that owns ``array`` (``numpy``, ``cupy``, ...)."""
    return of(array).xp


def is_backend_array(value: Any) -> bool:
    """True for an array of any usable backend (a NumPy or CuPy ndarray)."""
    if isinstance(value, np.ndarray):
        return True
    return any(isinstance(value, array_type) for array_type in _BY_ARRAY_TYPE)


def array_module(device: str) -> Any:
    """The array library for a device name: ``numpy`` for ``"cpu"``, ``cupy`` for ``"cuda"``."""
    backend = _BY_NAME.get(device)
    if backend is not None and backend.xp is not None:  # the fast path, taken by every op
        return backend.xp
    return require(device).xp


def to_device(array: Any, device: str) -> Any:
    """``array`` on ``device``: the same array when already there, else a copy.

    The one place where data crosses between host and device memory: through the host,
    with the source backend's ``download`` and the target's ``upload``.
    """
    source = of(array)
    if source.name == device:
        return array
    target = _BY_NAME[device] if device in _BY_NAME else get(device)
    host = source.download(array)
    return host if target.is_host else require(target.name).upload(host)
