"""Fast kernels: every speed trick of MiniTorch, apart from the ops it speeds up.

``minitorch/functions/`` holds each op as taught, forward and backward in plain array math.
This package holds the faster ways to compute some of them, each registered for one op and
one device with a predicate saying when it applies (``registry.py``), each with a test
against the op it replaces (``tests/kernels/``). The ops never import it.

    minitorch.kernels.use_fast_kernels(False)      # from now on: the reference ops only
    with minitorch.kernels.use_fast_kernels(False):
        ...                                        # just here

``MINITORCH_FAST_KERNELS=0`` in the environment before ``import minitorch`` does the same for
the whole process. Either way the numbers agree with the fast path's to rounding; only the
time differs (docs/benchmarks.md says by how much).

The optimizers have the same arrangement: each writes its update rule once, for one
parameter (``minitorch/optim/``), and ``optimizers/`` holds the faster ways to run it for a
whole parameter group (PyTorch's ``foreach`` and ``fused``), registered per optimizer class
and device (``update_registry.py``). The same switch turns them off.
"""

from __future__ import annotations

# Each kernel module registers its kernels when imported.
from minitorch.kernels import optimizers  # noqa: F401  (the optimizers' update kernels)
from minitorch.kernels.cpu import activations as _cpu_activations  # noqa: F401
from minitorch.kernels.cpu import attention as _cpu_attention  # noqa: F401
from minitorch.kernels.cpu import conv, gru, host_memory, lstm, pooling, special  # noqa: F401
from minitorch.kernels.cpu import cross_entropy as _cpu_cross_entropy  # noqa: F401
from minitorch.kernels.cpu import linear as _cpu_linear  # noqa: F401
from minitorch.kernels.cpu import normalization as _cpu_normalization  # noqa: F401
from minitorch.kernels.cpu import products as _cpu_products  # noqa: F401
from minitorch.kernels.cpu import smooth_activations as _cpu_smooth_activations  # noqa: F401
from minitorch.kernels.cuda import activations as _cuda_activations  # noqa: F401
from minitorch.kernels.cuda import cross_entropy as _cuda_cross_entropy  # noqa: F401
from minitorch.kernels.cuda import elementwise as _cuda_elementwise  # noqa: F401
from minitorch.kernels.cuda import special as cuda_special  # noqa: F401
from minitorch.kernels.registry import Kernel, all_kernels, kernels_of, register, unregister
from minitorch.kernels.update_registry import (
    UpdateKernel,
    all_update_kernels,
    register_update,
    unregister_update,
    update_kernels_of,
)
from minitorch.switches import FAST_KERNELS_AT_IMPORT, fast_kernels_enabled, use_fast_kernels

# glibc keeps freed memory for the next step's arrays (cpu/host_memory.py says why): a speed
# trick too, so only in a process that starts with the fast kernels on.
host_memory.keep_freed_memory_from_environment(FAST_KERNELS_AT_IMPORT)


__all__ = [
    "Kernel",
    "UpdateKernel",
    "all_kernels",
    "all_update_kernels",
    "fast_kernels_enabled",
    "kernels_of",
    "register",
    "register_update",
    "unregister",
    "unregister_update",
    "update_kernels_of",
    "use_fast_kernels",
]
