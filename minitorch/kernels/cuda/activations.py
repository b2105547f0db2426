"""``SiLU`` and ``Mish`` on a GPU with s (or t) kept from forward: the CPU's kernels
(``kernels/cpu/smooth_activations.py``), whose lines are the array library's, on CuPy arrays.

Without them a GPU's first order would launch the sigmoid's (or softplus and tanh's) kernels a
second time in backward, where the ops compute them again from x (what gradients of gradients
need)."""

from __future__ import annotations

from minitorch.functions.activations import Mish, SiLU
from minitorch.hints import Array
from minitorch.kernels.cpu.smooth_activations import mish_kept, mish_kept_backward, silu_kept, silu_kept_backward
from minitorch.kernels.registry import register


def floating(x: Array) -> bool:
    """Any floating-point GPU array."""
    return x.dtype.kind == "f"


KEPT_SILU_CUDA = register(SiLU, device="cuda", applies=floating, forward=silu_kept, backward=silu_kept_backward)
KEPT_MISH_CUDA = register(Mish, device="cuda", applies=floating, forward=mish_kept, backward=mish_kept_backward)
