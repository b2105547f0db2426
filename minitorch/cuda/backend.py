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
import importlib.metadata
from typing import Any

from minitorch import backends, random
from minitorch.backends.base import Backend
from minitorch.cuda import runtime
from minitorch.switches import SWITCHES


class CudaBackend(Backend):
    """CuPy on one NVIDIA GPU (``"cuda"`` = ``"cuda:0"``)."""

    name = "cuda"
    label = "GPU"
    is_host = False

    def __init__(self) -> None:
        self._probe: tuple[bool, str] | None = None
        self._pending: dict[str, tuple[Any, Exception]] = {}  # deferred checks, see check_on_device
        self._kernels: dict[tuple[str, str, str, str], Any] = {}  # spec -> its ElementwiseKernel

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
                self.xp, self.array_type = cupy, cupy.ndarray
                backends.activate(self)
                random.add_seed_hook(cupy.random.seed)  # manual_seed seeds CuPy's generator too
        return self._probe

    def reset(self) -> None:
        backends.deactivate(self)
        self._probe = None
        if self.xp is not None:
            random.remove_seed_hook(self.xp.random.seed)
        self.xp = self.array_type = None
        self._pending.clear()
        self._kernels.clear()
        runtime.forget()

    def elementwise_kernel(self, spec: tuple[str, str, str, str]) -> Any:
        """The ``cupy.ElementwiseKernel`` of ``spec`` = ``(in_params, out_params, body, name)``.

        Built once and kept (until ``reset``); CuPy compiles it with NVRTC at its first call,
        once per dtype and layout. The hand-written kernels (``minitorch/kernels/cuda/``) and
        ``syncs.py``'s spin kernel are built here, so that a new CuPy (a test's stand-in)
        never runs a kernel built by the last one.
        """
        kernel = self._kernels.get(spec)
        if kernel is None:
            cupy = backends.require("cuda", f"build the CUDA kernel {spec[3]}").xp
            kernel = self._kernels[spec] = cupy.ElementwiseKernel(*spec)
        return kernel

    def upload(self, host_array: Any) -> Any:
        return self.xp.asarray(host_array)

    def download(self, array: Any) -> Any:
        host = array.get()  # waits for the GPU to finish computing it: a sync point
        self.raise_pending_checks()
        return host

    def check_on_device(self, bad: Any, error: Exception) -> None:
        """Remember the device flag ``bad``; ``error`` is raised at the next sync point if it is True.

        Reading ``bad`` now would make Python wait for the GPU every step. Like PyTorch's
        device-side asserts, the error surfaces later, at ``synchronize()`` or the next copy to
        the host (``item()``, ``cpu()``, printing): training stops, but the step that had the
        bad index is not named. ``minitorch.autograd.set_debug(True)`` checks at once instead.
        Flags of the same check are OR-ed together on the device (one small kernel per step).
        """
        key = str(error)
        if key in self._pending:
            bad = self._pending[key][0] | bad
        self._pending[key] = (bad, error)

    def raise_pending_checks(self) -> None:
        """Read the remembered flags (the GPU is synchronised already) and raise the first that is set."""
        if not self._pending:
            return
        pending = list(self._pending.values())
        self._pending.clear()
        for bad, error in pending:
            if bool(bad.get()):
                raise error

    def index_add(self, target: Any, index: Any, values: Any) -> Any:
        target.scatter_add(index, values)  # atomic adds: repeated indices add up
        return target

    def uniform(self, shape: tuple[int, ...], dtype: Any) -> Any:
        # CuPy's own generator (seeded by manual_seed), drawing float32 directly when asked:
        # half the bytes and no cast kernel. Other dtypes (float16) are cast from float32.
        draw = dtype if str(dtype) in ("float32", "float64") else "float32"
        if SWITCHES.tracer is not None:  # minitorch.compile is recording: a replay draws afresh inside an op
            SWITCHES.tracer.random_draw("CuPy's generator")
        return self.xp.random.random(shape, dtype=draw).astype(dtype, copy=False)


def _find_cupy() -> tuple[Any, tuple[bool, str]]:
    """``(cupy or None, (usable, reason))``: the probe's steps, each with its own reason."""
    try:
        cupy = importlib.import_module("cupy")
    except Exception as exc:  # ImportError, or a broken CUDA install raising on import
        return None, (
            False,
            f"CuPy is not installed ({type(exc).__name__}: {exc}); install it with "
            "pip install 'minitorch-course[gpu]' (cupy-cuda12x[ctk]; on a machine with only "
            "CUDA 13: 'minitorch-course[gpu13]', cupy-cuda13x[ctk])",
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
            f"{install_hint(cupy)}): {type(exc).__name__}: {exc}",
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
            f"random numbers; {install_hint(cupy)}): {type(exc).__name__}: {exc}",
        )
    return cupy, (True, f"{count} CUDA device(s) found, CuPy {getattr(cupy, '__version__', '?')}")


def install_hint(cupy: Any) -> str:
    """The install command that fixes missing CUDA libraries for the CuPy that is installed.

    CuPy 14's pip wheels (``cupy-cuda12x``, ``cupy-cuda13x``) bring no CUDA toolkit: the
    ``[ctk]`` extra installs NVRTC, cuBLAS and cuRAND from PyPI. A driver only runs CUDA
    versions up to its own, so a CUDA 12 driver needs the cuda12x wheel.
    """
    installed = set()
    for name in ("cupy-cuda12x", "cupy-cuda13x", "cupy"):
        try:
            importlib.metadata.version(name)
            installed.add(name)
        except importlib.metadata.PackageNotFoundError:
            pass
    try:
        driver = int(cupy.cuda.runtime.driverGetVersion()) // 1000  # 12080 -> 12
    except Exception:
        driver = 0
    if "cupy-cuda13x" in installed:
        if 0 < driver < 13:
            return (f"the driver supports CUDA {driver} only: pip uninstall cupy-cuda13x && "
                    "pip install 'cupy-cuda12x[ctk]' (the gpu extra)")
        return "install cupy-cuda13x[ctk] (the gpu13 extra) or a CUDA 13 toolkit"
    if "cupy-cuda12x" in installed:
        return ("install cupy-cuda12x[ctk] (the gpu extra) or a CUDA 12 toolkit; where only a CUDA 13 "
                "toolkit is installed, use cupy-cuda13x[ctk] instead (the gpu13 extra)")
    if "cupy" in installed:  # conda-forge or a source build
        return f"conda install -c conda-forge cupy cuda-version={driver or 12}"
    return "install cupy-cuda12x[ctk] (CUDA 12) or cupy-cuda13x[ctk] (CUDA 13), or a CUDA toolkit"


CUDA = CudaBackend()
backends.register(CUDA)


def cupy_module() -> Any:
    """The ``cupy`` module when a usable GPU exists, else None (never raises)."""
    return CUDA.xp if CUDA.probe()[0] else None
