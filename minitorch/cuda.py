"""``minitorch.cuda``: is a GPU usable, which one, and how much of its memory we hold.

Everything here is safe to import and call on a machine without a GPU (or without CuPy):
``is_available()`` is False and ``unavailable_reason()`` says why.

Memory, PyTorch style. CuPy, like PyTorch, does not ask the driver for memory on every
allocation: a *memory pool* keeps freed blocks and hands them out again, because
``cudaMalloc`` is slow and synchronising. So there are two numbers:

- ``memory_allocated()``: bytes held by live arrays (the pool's ``used_bytes``);
- ``memory_reserved()``: bytes the pool holds from the driver, used or cached
  (``total_bytes``); ``empty_cache()`` gives the cached, unused part back.

``max_memory_allocated()`` is the peak of ``memory_allocated()``. CuPy's pool does not
record a peak, so MiniTorch installs a thin allocator in front of the pool, on first use
of the GPU, that updates the peak after every allocation (one Python call per new array).

Without a usable GPU the memory functions return 0 and ``empty_cache()`` does nothing,
as PyTorch's do before CUDA is initialised; ``synchronize()`` and ``get_device_name()``
raise a clear error, as there is nothing to wait for or to name.
"""

from minitorch import backend

_PEAK = [0]  # highest memory_allocated() seen by the tracking allocator
_TRACKING = [False]  # True once the tracking allocator is installed


def is_available():
    """True only when CuPy imports, a CUDA device exists and a tiny kernel runs. Never raises."""
    try:
        return backend.probe_gpu()[0]
    except Exception:  # the probe catches everything itself; this is belt and braces
        return False


def unavailable_reason():
    """Why ``is_available()`` is False (or a short description of the device when True)."""
    try:
        return backend.probe_gpu()[1]
    except Exception as exc:
        return f"the GPU probe failed unexpectedly: {type(exc).__name__}: {exc}"


def device_count():
    """Number of usable CUDA devices (0 without a usable GPU)."""
    cupy = backend.cupy_module()
    if cupy is None:
        return 0
    return int(cupy.cuda.runtime.getDeviceCount())


def current_device():
    """Index of the GPU MiniTorch uses (always 0: MiniTorch drives one GPU)."""
    backend.require_cuda("query the current device")
    return 0


def get_device_name(device=0):
    """The GPU's name, e.g. ``'NVIDIA H200'``."""
    cupy = backend.require_cuda("get the device name")
    name = cupy.cuda.runtime.getDeviceProperties(int(device))["name"]
    return name.decode() if isinstance(name, bytes) else str(name)


def synchronize():
    """Wait until the GPU has finished all queued work.

    CuPy launches kernels asynchronously: Python carries on while the GPU computes. Time
    GPU code only between two ``synchronize()`` calls, or you time the launches.
    """
    cupy = backend.require_cuda("synchronize")
    cupy.cuda.Device().synchronize()
    _update_peak(cupy)


def _pool():
    """CuPy's default memory pool, with peak tracking installed (None without a GPU)."""
    cupy = backend.cupy_module()
    if cupy is None:
        return None
    pool = cupy.get_default_memory_pool()
    if not _TRACKING[0]:
        _install_peak_tracker(cupy, pool)
    return pool


def _install_peak_tracker(cupy, pool):
    """Route CuPy's allocations through the pool plus a peak update, once per process."""

    def malloc_and_track(size):
        memory = pool.malloc(size)
        used = pool.used_bytes()
        if used > _PEAK[0]:
            _PEAK[0] = used
        return memory

    cupy.cuda.set_allocator(malloc_and_track)
    _TRACKING[0] = True
    _update_peak(cupy)


def _update_peak(cupy):
    used = cupy.get_default_memory_pool().used_bytes()
    if used > _PEAK[0]:
        _PEAK[0] = used


def init():
    """Set up the GPU side (the peak-memory tracker); called on the first move to cuda."""
    _pool()


def memory_allocated():
    """Bytes of GPU memory held by live arrays (0 without a usable GPU)."""
    pool = _pool()
    return 0 if pool is None else int(pool.used_bytes())


def max_memory_allocated():
    """The peak of ``memory_allocated()`` since start or ``reset_peak_memory_stats()``."""
    pool = _pool()
    if pool is None:
        return 0
    _PEAK[0] = max(_PEAK[0], int(pool.used_bytes()))
    return _PEAK[0]


def reset_peak_memory_stats():
    """Start measuring the peak again from the current ``memory_allocated()``."""
    pool = _pool()
    _PEAK[0] = 0 if pool is None else int(pool.used_bytes())


def memory_reserved():
    """Bytes the memory pool holds from the driver: in use plus cached for reuse."""
    pool = _pool()
    return 0 if pool is None else int(pool.total_bytes())


def empty_cache():
    """Give cached, unused blocks back to the driver (live arrays are untouched)."""
    pool = _pool()
    if pool is not None:
        pool.free_all_blocks()


def memory_summary():
    """One line: allocated, peak and reserved memory in MiB."""
    if not is_available():
        return f"no usable GPU: {unavailable_reason()}"
    mib = 1024 * 1024
    return (
        f"allocated {memory_allocated() / mib:.1f} MiB, peak {max_memory_allocated() / mib:.1f} MiB, "
        f"reserved {memory_reserved() / mib:.1f} MiB"
    )


__all__ = [
    "current_device",
    "device_count",
    "empty_cache",
    "get_device_name",
    "init",
    "is_available",
    "max_memory_allocated",
    "memory_allocated",
    "memory_reserved",
    "memory_summary",
    "reset_peak_memory_stats",
    "synchronize",
    "unavailable_reason",
]
