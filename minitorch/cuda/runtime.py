"""The GPU's identity, synchronisation and memory, PyTorch style (re-exported as ``minitorch.cuda.*``).

Everything here is safe to call on a machine without a GPU (or without CuPy).

Memory. CuPy, like PyTorch, does not ask the driver for memory on every
allocation: a *memory pool* keeps freed blocks and hands them out again, because
``cudaMalloc`` is slow and synchronising. So there are two numbers:

- ``memory_allocated()``: bytes held by live arrays (the pool's ``used_bytes``);
- ``memory_reserved()``: bytes the pool holds from the driver, used or cached
  (``total_bytes``); ``empty_cache()`` gives the cached, unused part back.

``max_memory_allocated()`` and ``max_memory_reserved()`` are their peaks. CuPy's pool
records no peak, so MiniTorch puts a thin allocator in front of the pool that updates both
after every allocation. That costs a Python call per new array (and ``used_bytes()`` walks
every live block in CuPy 13; CuPy 14 keeps a counter), so it is installed only when a peak
is first asked for: call ``reset_peak_memory_stats()`` before the code you measure, as
PyTorch's documentation advises, and training that never asks pays nothing.
``mem_get_info()`` asks the driver for the device's free and total bytes.

Without a usable GPU the memory functions return 0 and ``empty_cache()`` does nothing,
as PyTorch's do before CUDA is initialised; ``synchronize()`` and ``get_device_name()``
raise a clear error, as there is nothing to wait for or to name.
"""

from minitorch import backends


class _PeakTracker:
    """The highest ``memory_allocated()``/``memory_reserved()`` seen, and whether the tracking allocator is in."""

    __slots__ = ("peak", "peak_reserved", "installed")

    def __init__(self):
        self.reset()

    def reset(self):
        self.peak = 0
        self.peak_reserved = 0
        self.installed = False


_TRACKER = _PeakTracker()


def _cupy():
    """The cupy module when a usable GPU exists, else None."""
    gpu = backends.get("cuda")
    return gpu.xp if gpu.probe()[0] else None


def device_count():
    """Number of usable CUDA devices (0 without a usable GPU)."""
    cupy = _cupy()
    if cupy is None:
        return 0
    return int(cupy.cuda.runtime.getDeviceCount())


def current_device():
    """Index of the GPU MiniTorch uses (always 0: MiniTorch drives one GPU)."""
    backends.require("cuda", "query the current device")
    return 0


def get_device_name(device=0):
    """The GPU's name, e.g. ``'NVIDIA H200'``."""
    cupy = backends.require("cuda", "get the device name").xp
    name = cupy.cuda.runtime.getDeviceProperties(int(device))["name"]
    return name.decode() if isinstance(name, bytes) else str(name)


def synchronize():
    """Wait until the GPU has finished all queued work.

    CuPy launches kernels asynchronously: Python carries on while the GPU computes. Time
    GPU code only between two ``synchronize()`` calls, or you time the launches.
    """
    cupy = backends.require("cuda", "synchronize").xp
    cupy.cuda.Device().synchronize()
    if _TRACKER.installed:
        _update_peak(cupy.get_default_memory_pool())
    raise_device_errors()


def raise_device_errors():
    """Raise what a device-side check (``CudaBackend.check_on_device``) found since the last sync point."""
    gpu = backends.get("cuda")
    if gpu.probe()[0]:
        gpu.raise_pending_checks()


def _pool(track=False):
    """CuPy's default memory pool (None without a GPU); ``track`` installs the peak tracker."""
    cupy = _cupy()
    if cupy is None:
        return None
    if track and not _TRACKER.installed:
        start_tracking(cupy)
    return cupy.get_default_memory_pool()


def start_tracking(cupy):
    """Route CuPy's allocations through the pool plus a peak update, once per process."""
    if _TRACKER.installed:
        return
    pool = cupy.get_default_memory_pool()

    def malloc_and_track(size):
        memory = pool.malloc(size)
        _update_peak(pool)
        return memory

    cupy.cuda.set_allocator(malloc_and_track)
    _TRACKER.installed = True
    _update_peak(pool)


def forget():
    """Drop the tracker's state (the GPU backend was reset)."""
    _TRACKER.reset()


def _update_peak(pool):
    used, reserved = pool.used_bytes(), pool.total_bytes()
    if used > _TRACKER.peak:
        _TRACKER.peak = used
    if reserved > _TRACKER.peak_reserved:
        _TRACKER.peak_reserved = reserved


def memory_allocated():
    """Bytes of GPU memory held by live arrays (0 without a usable GPU)."""
    pool = _pool()
    return 0 if pool is None else int(pool.used_bytes())


def max_memory_allocated():
    """The peak of ``memory_allocated()`` since ``reset_peak_memory_stats()`` (or the first peak question)."""
    pool = _pool(track=True)
    if pool is None:
        return 0
    _update_peak(pool)
    return int(_TRACKER.peak)


def max_memory_reserved():
    """The peak of ``memory_reserved()`` since ``reset_peak_memory_stats()`` (or the first peak question)."""
    pool = _pool(track=True)
    if pool is None:
        return 0
    _update_peak(pool)
    return int(_TRACKER.peak_reserved)


def reset_peak_memory_stats():
    """Start measuring both peaks again from now (and start tracking them, if not yet)."""
    pool = _pool(track=True)
    _TRACKER.peak = 0 if pool is None else int(pool.used_bytes())
    _TRACKER.peak_reserved = 0 if pool is None else int(pool.total_bytes())


def mem_get_info():
    """``(free, total)`` bytes of the GPU as the driver sees them (other processes count too)."""
    cupy = backends.require("cuda", "ask the GPU for its free memory").xp
    free, total = cupy.cuda.runtime.memGetInfo()
    return int(free), int(total)


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
    gpu = backends.get("cuda")
    usable, reason = gpu.probe()
    if not usable:
        return f"no usable GPU: {reason}"
    mib = 1024 * 1024
    return (
        f"allocated {memory_allocated() / mib:.1f} MiB, peak {max_memory_allocated() / mib:.1f} MiB, "
        f"reserved {memory_reserved() / mib:.1f} MiB, peak reserved {max_memory_reserved() / mib:.1f} MiB"
    )
