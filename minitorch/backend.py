"""The array-module seam: which library (NumPy or CuPy) holds a tensor's data.

Ops never call ``numpy`` on tensor data directly. They ask for the array module of their
inputs (``ctx.xp`` inside a Function) so the same op code runs on NumPy arrays on the CPU
and on CuPy arrays on a GPU. This module is the only place that knows CuPy exists.
"""

import numpy as np

CPU = "cpu"
CUDA = "cuda"
DEVICES = (CPU, CUDA)

_cupy = None  # the cupy module once a usable GPU has been found
_cupy_ndarray = None  # cupy.ndarray, for fast type checks without importing cupy
_gpu_probe = None  # (usable: bool, reason: str) after the first probe


def probe_gpu():
    """Find out once whether CuPy imports, sees a device and can run a kernel.

    Returns ``(usable, reason)``; never raises, since any failure just means "no GPU".
    """
    global _gpu_probe, _cupy, _cupy_ndarray
    if _gpu_probe is not None:
        return _gpu_probe
    try:
        import cupy
    except Exception as exc:  # ImportError, or a broken CUDA install raising on import
        _gpu_probe = (False, f"CuPy is not installed ({type(exc).__name__}: {exc})")
        return _gpu_probe
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:
        _gpu_probe = (False, f"CuPy is installed but no CUDA device was found ({exc})")
        return _gpu_probe
    if count < 1:
        _gpu_probe = (False, "CuPy is installed but no CUDA device was found")
        return _gpu_probe
    try:
        # An elementwise kernel needs NVRTC to compile; the plain wheel may lack it.
        probe = cupy.arange(4, dtype=cupy.float32) * 2
        float(probe.sum())
    except Exception as exc:
        _gpu_probe = (
            False,
            "a CUDA device exists but CuPy cannot compile kernels (is NVRTC missing? "
            f"install cupy-cuda12x[ctk]): {type(exc).__name__}: {exc}",
        )
        return _gpu_probe
    _cupy = cupy
    _cupy_ndarray = cupy.ndarray
    _gpu_probe = (True, f"{count} CUDA device(s) found")
    return _gpu_probe


def normalize_device(device):
    """Return ``"cpu"`` or ``"cuda"`` for a device string (``"cuda:0"`` is ``"cuda"``)."""
    if device is None:
        return CPU
    name = str(getattr(device, "type", device)).lower()
    if name == CPU:
        return CPU
    if name == CUDA or name.startswith("cuda:"):
        return CUDA
    raise RuntimeError(f"unknown device {device!r}: expected 'cpu' or 'cuda'")


def array_module(device):
    """The array library for a device: ``numpy`` for ``"cpu"``, ``cupy`` for ``"cuda"``."""
    if device == CPU:
        return np
    usable, reason = probe_gpu()
    if not usable:
        raise RuntimeError(f"device 'cuda' is not available: {reason}")
    return _cupy


def device_of(array):
    """``"cpu"`` for a NumPy array (or scalar), ``"cuda"`` for a CuPy array."""
    if _cupy_ndarray is not None and isinstance(array, _cupy_ndarray):
        return CUDA
    return CPU


def module_of(array):
    """The array library that owns ``array``."""
    if _cupy_ndarray is not None and isinstance(array, _cupy_ndarray):
        return _cupy
    return np


def is_backend_array(value):
    """True for a NumPy or CuPy ndarray."""
    if isinstance(value, np.ndarray):
        return True
    return _cupy_ndarray is not None and isinstance(value, _cupy_ndarray)


def to_device(array, device):
    """Copy ``array`` to ``device`` (a no-op when it is already there)."""
    if device_of(array) == device:
        return array
    if device == CPU:
        return array.get()
    return array_module(CUDA).asarray(array)


def reshape_view(array, shape):
    """A view of ``array`` with ``shape``, or None when that needs a copy (like torch.view)."""
    try:
        return array.reshape(shape, copy=False)
    except ValueError:
        return None
    except TypeError:
        # CuPy's reshape has no ``copy`` argument: only C-contiguous data is sure to view.
        return array.reshape(shape) if array.flags.c_contiguous else None
