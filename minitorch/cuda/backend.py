"""The GPU backend: CuPy arrays in device memory, registered as ``"cuda"``.

CuPy is optional. Importing this module never touches it: the first question that needs
a GPU (``minitorch.cuda.is_available()``, ``.to("cuda")``) runs ``probe``, which imports
CuPy and checks, step by step, that a device exists, that kernels compile and that the
CUDA libraries load. Only then are CuPy arrays recognised as tensor data.

Data stays where it is: nothing here copies between host and device except ``upload``
and ``download``, which ``backends.to_device`` calls for the explicit moves (``.to()``,
``.cpu()``, ``.cuda()``, ``tensor(..., device=)``) and the conversions to Python
(``item()``, ``tolist()``, printing).
"""

from __future__ import annotations

import importlib
from typing import Any

from minitorch import backends
from minitorch.backends.base import Backend
from minitorch.cuda import kernels, runtime


class CudaBackend(Backend):
    """CuPy on one NVIDIA GPU (``"cuda"`` = ``"cuda:0"``)."""

    name = "cuda"
    label = "GPU"
    is_host = False

    def __init__(self) -> None:
        self._probe: tuple[bool, str] | None = None

    def probe(self) -> tuple[bool, str]:
        """Find out once whether CuPy imports, sees a device and can run a kernel.

        Returns ``(usable, reason)``; never raises, since any failure just means "no GPU".
        The reason names which step failed: CuPy missing, no CUDA device, kernels that
        cannot be compiled (the plain CuPy wheel has no NVRTC), or a missing CUDA library
        (cuBLAS, cuRAND) that the first matmul or random number would need.
        """
        if self._probe is None:
            cupy, self._probe = _find_cupy()
            if cupy is not None:
                self.xp, self.array_type, self.kernels = cupy, cupy.ndarray, kernels
                backends.activate(self)
                try:
                    runtime.start_tracking(cupy)  # peak memory, from the first use on
                except Exception:  # a nicety: never let it make the GPU "unavailable"
                    pass
        return self._probe

    def reset(self) -> None:
        backends.deactivate(self)
        self._probe = None
        self.xp = self.array_type = self.kernels = None
        runtime.forget()
        kernels.clear_cache()

    def upload(self, host_array: Any) -> Any:
        return self.xp.asarray(host_array)

    def download(self, array: Any) -> Any:
        return array.get()  # waits for the GPU to finish computing it

    def index_add(self, target: Any, index: Any, values: Any) -> Any:
        target.scatter_add(index, values)  # atomic adds: repeated indices add up
        return target

    def uniform(self, shape: tuple[int, ...], dtype: Any) -> Any:
        return self.xp.random.random(shape).astype(dtype)  # CuPy's own generator


def _find_cupy() -> tuple[Any, tuple[bool, str]]:
    """``(cupy or None, (usable, reason))``: the probe's steps, each with its own reason."""
    try:
        cupy = importlib.import_module("cupy")
    except Exception as exc:  # ImportError, or a broken CUDA install raising on import
        return None, (
            False,
            f"CuPy is not installed ({type(exc).__name__}: {exc}); install it with "
            "pip install 'minitorch-course[gpu]' (or cupy-cuda12x)",
        )
    try:
        count = int(cupy.cuda.runtime.getDeviceCount())
    except Exception as exc:  # CUDARuntimeError without a driver or device
        return None, (False, f"CuPy is installed but no CUDA device was found ({type(exc).__name__}: {exc})")
    if count < 1:
        return None, (False, "CuPy is installed but no CUDA device was found (device count is 0)")
    try:
        # CuPy compiles even ``*`` and ``sum`` with NVRTC at first use; the plain wheel may
        # lack it. Running one tiny elementwise op and one reduction proves both work.
        probe = cupy.arange(4, dtype=cupy.float32) * 2
        if float(probe.sum()) != 12.0:
            raise RuntimeError("a test kernel returned a wrong result")
    except Exception as exc:
        return None, (
            False,
            "a CUDA device exists but CuPy cannot compile or run kernels (is NVRTC missing? "
            f"install cupy-cuda12x[ctk] or the CUDA toolkit): {type(exc).__name__}: {exc}",
        )
    try:
        # Matrix products call cuBLAS and random numbers cuRAND: shared libraries that
        # cupy-cuda12x loads from the CUDA toolkit (or the cuda-toolkit pip packages).
        ones = cupy.ones((2, 2), dtype=cupy.float32)
        if float((ones @ ones).sum()) != 8.0:
            raise RuntimeError("a test matrix product returned a wrong result")
        cupy.random.random(2)
    except Exception as exc:
        return None, (
            False,
            "CuPy runs kernels but a CUDA library is missing (cuBLAS for matmul, cuRAND for "
            f"random numbers; install cupy-cuda12x[ctk] or the CUDA toolkit): {type(exc).__name__}: {exc}",
        )
    return cupy, (True, f"{count} CUDA device(s) found, CuPy {getattr(cupy, '__version__', '?')}")


CUDA = backends.register(CudaBackend())


def cupy_module() -> Any:
    """The ``cupy`` module when a usable GPU exists, else None (never raises)."""
    return CUDA.xp if CUDA.probe()[0] else None
