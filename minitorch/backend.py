"""The array-module seam: which library (NumPy or CuPy) holds a tensor's data.

Ops never call ``numpy`` on tensor data directly. They ask for the array module of their
inputs (``ctx.xp`` inside a Function) so the same op code runs on NumPy arrays on the CPU
and on CuPy arrays on a GPU. This module is the only place that knows CuPy exists.

Data stays where it is: nothing here copies between host and device except
``to_device``, which is called only by the explicit moves (``.to()``, ``.cpu()``,
``.cuda()``, ``tensor(..., device=)``) and by the conversions to Python (``item()``,
``tolist()``, printing).
"""

import importlib

import numpy as np

from minitorch.errors import MiniTorchError

CPU = "cpu"
CUDA = "cuda"
DEVICES = (CPU, CUDA)

_cupy = None  # the cupy module once a usable GPU has been found
_cupy_ndarray = None  # cupy.ndarray, for fast type checks without importing cupy
_gpu_probe = None  # (usable: bool, reason: str) after the first probe


def probe_gpu():
    """Find out once whether CuPy imports, sees a device and can run a kernel.

    Returns ``(usable, reason)``; never raises, since any failure just means "no GPU".
    The reason names which step failed: CuPy missing, no CUDA device, kernels that cannot
    be compiled (the plain CuPy wheel has no NVRTC), or a missing CUDA library (cuBLAS,
    cuRAND) that the first matmul or random number would need.
    """
    global _gpu_probe, _cupy, _cupy_ndarray
    if _gpu_probe is not None:
        return _gpu_probe
    try:
        cupy = importlib.import_module("cupy")
    except Exception as exc:  # ImportError, or a broken CUDA install raising on import
        _gpu_probe = (
            False,
            f"CuPy is not installed ({type(exc).__name__}: {exc}); install it with "
            "pip install 'minitorch-course[gpu]' (or cupy-cuda12x)",
        )
        return _gpu_probe
    try:
        count = int(cupy.cuda.runtime.getDeviceCount())
    except Exception as exc:  # CUDARuntimeError without a driver or device
        _gpu_probe = (False, f"CuPy is installed but no CUDA device was found ({type(exc).__name__}: {exc})")
        return _gpu_probe
    if count < 1:
        _gpu_probe = (False, "CuPy is installed but no CUDA device was found (device count is 0)")
        return _gpu_probe
    try:
        # CuPy compiles even ``*`` and ``sum`` with NVRTC at first use; the plain wheel may
        # lack it. Running one tiny elementwise op and one reduction proves both work.
        probe = cupy.arange(4, dtype=cupy.float32) * 2
        if float(probe.sum()) != 12.0:
            raise RuntimeError("a test kernel returned a wrong result")
    except Exception as exc:
        _gpu_probe = (
            False,
            "a CUDA device exists but CuPy cannot compile or run kernels (is NVRTC missing? "
            f"install cupy-cuda12x[ctk] or the CUDA toolkit): {type(exc).__name__}: {exc}",
        )
        return _gpu_probe
    try:
        # Matrix products call cuBLAS and random numbers cuRAND: shared libraries that
        # cupy-cuda12x loads from the CUDA toolkit (or the cuda-toolkit pip packages).
        ones = cupy.ones((2, 2), dtype=cupy.float32)
        if float((ones @ ones).sum()) != 8.0:
            raise RuntimeError("a test matrix product returned a wrong result")
        cupy.random.random(2)
    except Exception as exc:
        _gpu_probe = (
            False,
            "CuPy runs kernels but a CUDA library is missing (cuBLAS for matmul, cuRAND for "
            f"random numbers; install cupy-cuda12x[ctk] or the CUDA toolkit): {type(exc).__name__}: {exc}",
        )
        return _gpu_probe
    _cupy = cupy
    _cupy_ndarray = cupy.ndarray
    _gpu_probe = (True, f"{count} CUDA device(s) found, CuPy {getattr(cupy, '__version__', '?')}")
    try:
        from minitorch import cuda  # the GPU side: start tracking peak memory from here on

        cuda.init()
    except Exception:  # peak tracking is a nicety; never let it make the GPU "unavailable"
        pass
    return _gpu_probe


def reset_probe():
    """Forget the probe's result so the next call looks again (used by tests)."""
    global _gpu_probe, _cupy, _cupy_ndarray
    _gpu_probe = None
    _cupy = None
    _cupy_ndarray = None
    from minitorch import cuda

    cuda._TRACKING[0] = False
    cuda._PEAK[0] = 0


def cupy_module():
    """The ``cupy`` module when a usable GPU exists, else None (never raises)."""
    return _cupy if probe_gpu()[0] else None


def normalize_device(device):
    """Return ``"cpu"`` or ``"cuda"`` for a device string (``"cuda:0"`` is ``"cuda"``).

    Unknown names are an error listing the valid ones. MiniTorch drives one GPU, so any
    ``"cuda:N"`` other than ``"cuda:0"`` is refused rather than silently ignored.
    """
    if device is None:
        return CPU
    if isinstance(device, str):
        name, index = device.strip().lower(), None
    else:  # a device object with ``.type`` and ``.index`` (torch.device style)
        name, index = str(getattr(device, "type", device)).strip().lower(), getattr(device, "index", None)
    if name == CPU:
        return CPU
    if name == CUDA and index in (None, 0):
        return CUDA
    if name.startswith("cuda:"):
        if name == "cuda:0":
            return CUDA
        raise MiniTorchError(
            f"device {device!r}: MiniTorch uses a single GPU, 'cuda' (= 'cuda:0'); got another index"
        )
    raise MiniTorchError(f"unknown device {device!r}: expected 'cpu' or 'cuda' (or 'cuda:0')")


def require_cuda(action="use device 'cuda'"):
    """The cupy module, or a MiniTorchError saying why ``action`` cannot run on a GPU."""
    usable, reason = probe_gpu()
    if not usable:
        raise MiniTorchError(
            f"cannot {action}: no usable GPU ({reason}). Check minitorch.cuda.is_available() "
            "first, or stay on device='cpu'"
        )
    return _cupy


def array_module(device):
    """The array library for a device: ``numpy`` for ``"cpu"``, ``cupy`` for ``"cuda"``."""
    if device == CPU:
        return np
    if _cupy is not None:  # the fast path, taken by every op on a GPU
        return _cupy
    return require_cuda()


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
    """Copy ``array`` to ``device`` (a no-op when it is already there).

    The one place where data crosses between host and GPU memory: ``cupy.asarray``
    uploads, ``.get()`` downloads (and waits for the GPU to finish what it computes).
    """
    if device_of(array) == device:
        return array
    if device == CPU:
        return array.get()
    return array_module(CUDA).asarray(array)


def reshape_view(array, shape):
    """A view of ``array`` with ``shape``, or None when that needs a copy (like torch.view)."""
    if device_of(array) == CUDA:
        # Setting ``.shape`` on a view never copies: CuPy raises when strides can't express it.
        view = array.view()
        try:
            view.shape = shape
        except (AttributeError, ValueError):
            return None
        return view
    try:
        return array.reshape(shape, copy=False)
    except ValueError:
        return None
    except TypeError:
        # NumPy < 2.1 has no ``copy`` argument: only C-contiguous data is sure to view.
        return array.reshape(shape) if array.flags.c_contiguous else None


def index_add(target, index, values):
    """``target[index] += values`` in place, adding repeated indices up (``numpy.add.at``).

    NumPy spells it ``np.add.at``; CuPy does it with atomic adds in ``ndarray.scatter_add``.
    """
    if device_of(target) == CUDA:
        target.scatter_add(index, values)
    else:
        np.add.at(target, index, values)
    return target
