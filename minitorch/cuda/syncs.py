"""Does a piece of GPU code make the host wait for the GPU? Measured on the device, not guessed.

CuPy queues kernels and returns at once; Python waits for the GPU only at a
*synchronisation*: a copy to the host (``item()``, ``float()``, printing, ``.cpu()``), a
boolean-mask index or ``nonzero`` (CuPy must read back how many elements there are), an
explicit ``synchronize()``. One of those inside a training step costs a full round trip every
step, and a CUDA graph cannot contain one. CuPy's own detector,
``cupyx.allow_synchronize(False)``, is deprecated and sees only ``ndarray.get()`` and
``Device.synchronize()``.

``synchronises(fn)`` sees every kind, because it asks the GPU itself: it queues a kernel that
keeps the GPU busy for a known time (``spin``), records an event behind it, runs
``fn()``, then asks (without waiting) whether the event has completed. It can only have
completed once the spin kernel has run to its end, so if ``fn`` returned sooner than that and
the event is done, ``fn`` waited for the GPU. The spin lasts many times the host time ``fn``
took on an idle GPU (measured first), and a wait must be seen twice, so a slow host is not
taken for a wait. Queued work must fit the GPU's launch queue (about a thousand kernels): a
longer step would block on launching, which looks like a wait.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from minitorch import backends
from minitorch.cuda.backend import CUDA

# Keeps the GPU busy for ``ns`` nanoseconds (one thread reading the GPU's nanosecond clock,
# %globaltimer, until that much time has passed) and writes the time it spun to ``elapsed``.
# A CuPy ElementwiseKernel: (input parameters, output parameters, body for one element, name).
SPIN = (
    "int64 ns",
    "int64 elapsed",
    """
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while ((long long)(now - start) < ns);
    elapsed = (long long)(now - start);
    """,
    "minitorch_spin",
)

SPIN_FACTOR = 20  # the spin lasts this many times fn's own host time
MIN_SPIN_S = 0.05
MAX_SPIN_S = 5.0


def synchronises(fn: Callable[[], Any]) -> bool:
    """True when ``fn()`` made the host wait for the GPU (any kind of sync); runs ``fn`` twice.

    The first call measures ``fn``'s host time with the GPU idle (and compiles what it needs);
    the second runs behind the spin kernel.
    """
    cupy = backends.require("cuda", "check a step for synchronisations").xp
    device = cupy.cuda.Device()
    spin(0)  # compiled and loaded before anything is timed
    device.synchronize()
    start = time.perf_counter()
    fn()
    host = time.perf_counter() - start
    device.synchronize()
    spin_s = min(max(MIN_SPIN_S, SPIN_FACTOR * host), MAX_SPIN_S)
    for _ in range(2):  # a wait seen twice, the second time behind a 4x longer spin: not a slow host
        done = cupy.cuda.Event(disable_timing=True)
        spin(int(spin_s * 1e9))
        done.record()
        fn()
        waited = bool(done.done)  # a query: it does not wait itself
        device.synchronize()
        if not waited:
            return False
        spin_s = min(4 * spin_s, MAX_SPIN_S)
    return True


def spin(ns: int) -> Any:
    """Queue one kernel that keeps the GPU busy for ``ns`` nanoseconds; returns its (1,) int64 output."""
    cupy = backends.require("cuda", "spin the GPU").xp
    elapsed = cupy.empty(1, dtype="int64")
    CUDA.elementwise_kernel(SPIN)(int(ns), elapsed)
    return elapsed
