"""``minitorch.accelerator``, as ``torch.accelerator``: is there a GPU, and which.

MiniTorch's one accelerator is an NVIDIA GPU through CuPy (``"cuda"``); the answers come
from the same probe as ``minitorch.cuda.is_available()``.
"""

from __future__ import annotations

from minitorch import cuda
from minitorch.backends.device import device


def is_available() -> bool:
    """True when a usable GPU exists (see ``minitorch.cuda.unavailable_reason()`` if not)."""
    return cuda.is_available()


def current_accelerator() -> device | None:
    """``device(type='cuda')`` when a GPU is usable, else None (as PyTorch on a CPU machine)."""
    return device("cuda") if cuda.is_available() else None


def device_count() -> int:
    """Number of usable GPUs (0 or 1: MiniTorch drives one)."""
    return cuda.device_count()
