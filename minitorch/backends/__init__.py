"""The device seam: which array library holds a tensor's data, looked up in one registry.

- ``Backend`` (``base.py``): one kind of device, carrying its name, its array library
  (``xp``: ``numpy`` or ``cupy``) and its array type.
- ``CPU`` (``cpu.py``): NumPy, always there. The GPU backend lives in ``minitorch/cuda/``
  and registers itself when ``minitorch`` is imported.
- ``registry.py``: ``register``, ``get(device)``, ``of(array)`` and the helpers every layer
  uses (``device_of``, ``module_of``, ``to_device``, ``normalize_device``, ...).

Adding a backend is one new file with a ``Backend`` subclass plus one ``register`` call:
see "How to add a backend" in ``docs/ARCHITECTURE.md``.
"""

from minitorch.backends.base import Backend
from minitorch.backends.cpu import CPU
from minitorch.backends.registry import (
    activate,
    array_module,
    deactivate,
    device_of,
    get,
    is_backend_array,
    module_of,
    names,
    normalize_device,
    of,
    register,
    require,
    reset_probes,
    to_device,
    unregister,
)

register(CPU)

# PyTorch's ``torch.backends.*`` answers, and the device object (``minitorch.device``).
from minitorch.backends import cuda, cudnn, mps  # noqa: E402
from minitorch.backends.device import device  # noqa: E402

__all__ = [
    "CPU",
    "Backend",
    "activate",
    "array_module",
    "deactivate",
    "device_of",
    "get",
    "is_backend_array",
    "module_of",
    "names",
    "normalize_device",
    "of",
    "register",
    "require",
    "reset_probes",
    "to_device",
    "unregister",
]
