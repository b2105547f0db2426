"""``minitorch.cuda``: everything GPU, in one subpackage.

- ``backend.py``: the ``"cuda"`` backend (CuPy), registered with ``minitorch.backends``;
  its probe decides whether a GPU is usable and says why not.
- ``runtime.py``: which GPU, ``synchronize``, and memory as PyTorch reports it.
- the hand-written CUDA kernels (CuPy ``ElementwiseKernel``s) are fast kernels like the
  CPU's, in ``minitorch/kernels/cuda/``; ``use_custom_kernels`` is an alias of the one switch
  ``minitorch.kernels.use_fast_kernels``.
- ``graphs.py``: ``capture_step``, an opt-in CUDA Graph of a whole training step (unverified).
- ``syncs.py``: ``synchronises(step)``, whether a step makes Python wait for the GPU.

Everything here is safe to import and call on a machine without a GPU (or without CuPy):
``is_available()`` is False and ``unavailable_reason()`` says why.
"""

from minitorch.cuda.backend import CUDA, cupy_module
from minitorch.cuda.graphs import capture_step
from minitorch.cuda.runtime import (
    current_device,
    device_count,
    empty_cache,
    get_device_name,
    max_memory_allocated,
    max_memory_reserved,
    mem_get_info,
    memory_allocated,
    memory_reserved,
    memory_summary,
    reset_peak_memory_stats,
    synchronize,
)
from minitorch.switches import fast_kernels_enabled, use_fast_kernels

# The GPU lesson's name for the one fast-kernel switch (``minitorch.kernels.use_fast_kernels``):
# ``with minitorch.cuda.use_custom_kernels(False):`` runs GPU ops on plain CuPy expressions.
use_custom_kernels = use_fast_kernels
custom_kernels_enabled = fast_kernels_enabled


def is_available():
    """True only when CuPy imports, a CUDA device exists and a tiny kernel runs. Never raises."""
    try:
        return CUDA.probe()[0]
    except Exception:  # the probe catches everything itself; this is belt and braces
        return False


def unavailable_reason():
    """Why ``is_available()`` is False (or a short description of the device when True)."""
    try:
        return CUDA.probe()[1]
    except Exception as exc:
        return f"the GPU probe failed unexpectedly: {type(exc).__name__}: {exc}"


def manual_seed(seed: int) -> None:
    """Seed the GPU's own generator (CuPy's, which GPU dropout draws from); nothing without a GPU.

    As ``torch.cuda.manual_seed``: the CPU stream (``rand``, ``randn``, weight init) is
    untouched, and on a machine without a GPU the call does nothing. ``minitorch.manual_seed``
    seeds both.
    """
    if is_available():
        cupy_module().random.seed(int(seed))


def manual_seed_all(seed: int) -> None:
    """``manual_seed`` for every GPU: MiniTorch uses one, so the same call."""
    manual_seed(seed)


def is_bf16_supported(including_emulation: bool = True) -> bool:
    """False: MiniTorch has no bfloat16 dtype (its low precision is float16), on any device."""
    return False


__all__ = [
    "CUDA",
    "capture_step",
    "cupy_module",
    "current_device",
    "custom_kernels_enabled",
    "device_count",
    "empty_cache",
    "get_device_name",
    "is_bf16_supported",
    "is_available",
    "manual_seed",
    "manual_seed_all",
    "max_memory_allocated",
    "max_memory_reserved",
    "mem_get_info",
    "memory_allocated",
    "memory_reserved",
    "memory_summary",
    "reset_peak_memory_stats",
    "synchronize",
    "unavailable_reason",
    "use_custom_kernels",
]
