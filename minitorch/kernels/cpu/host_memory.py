"""Keep freed host memory for reuse: NumPy's big temporaries without a page fault per 4 KB.

Every op allocates its result, and a training step frees and allocates again tens of MB of
temporaries (one (32, 64, 512) float32 activation is 4 MB). glibc's ``malloc`` serves a
request of over about 128 KB with fresh pages from the OS (``mmap``), and gives memory freed
at the top of its heap back to the OS once over 128 KB of it is free. Fresh pages are
zeroed by the OS on their first touch, one page fault for every 4 KB: thousands a step,
which cost the charlm transformer step about a third of its time (bench/compiled.py).

``keep_freed_memory()`` raises both thresholds with ``mallopt``, so freed blocks stay in the
heap and the next step's arrays reuse them, as PyTorch's CPU allocator does: the process
keeps its peak memory instead of returning it. It is a speed trick, so it runs when
``minitorch`` is imported with the fast kernels on (``minitorch/kernels/__init__.py``):
``MINITORCH_FAST_KERNELS=0``, or ``MINITORCH_KEEP_FREED_MEMORY=0`` alone, in the environment
before the import keeps glibc's defaults. Only glibc (Linux) has ``mallopt``; elsewhere
nothing changes.
"""

from __future__ import annotations

import ctypes
import os
import platform
import sys

# mallopt's parameter numbers, from glibc's malloc.h.
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3

# Blocks up to 32 MB (glibc's largest allowed mmap threshold on 64-bit) come from the heap;
# up to 256 MB free at the top of the heap stay there for reuse.
MMAP_THRESHOLD = 32 * 1024 * 1024
TRIM_THRESHOLD = 256 * 1024 * 1024

KEPT_AT_IMPORT = False  # whether the import of minitorch set the thresholds


def keep_freed_memory(mmap_threshold: int = MMAP_THRESHOLD, trim_threshold: int = TRIM_THRESHOLD) -> bool:
    """Set glibc's mmap and trim thresholds (bytes); True if set, False where there is no glibc."""
    if not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc":
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # a static or unusual Python: leave malloc alone
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    # The mmap threshold first: setting either one stops glibc adjusting them itself.
    return bool(mallopt(_M_MMAP_THRESHOLD, mmap_threshold)) and bool(mallopt(_M_TRIM_THRESHOLD, trim_threshold))


def keep_freed_memory_from_environment(fast_kernels: bool = True) -> bool:
    """``keep_freed_memory()`` unless the fast kernels are off or ``MINITORCH_KEEP_FREED_MEMORY``
    is ``0``: what the import runs. True if the thresholds were set."""
    global KEPT_AT_IMPORT
    if not fast_kernels or os.environ.get("MINITORCH_KEEP_FREED_MEMORY", "1").strip() == "0":
        return False
    KEPT_AT_IMPORT = keep_freed_memory()
    return KEPT_AT_IMPORT
