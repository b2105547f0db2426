"""Fast kernels of ``SiLU`` and ``Mish``: the sigmoid (or tanh of softplus) kept.

Both ops save only x and compute in backward again what their forward computed on the way
(s = sigmoid(x) for SiLU, t = tanh(softplus(x)) for Mish), so that the backward's lines, run on
graph values under ``create_graph=True``, record how that value depends on x. For the first
order that is a second pass through the transcendental functions; these kernels keep s (or t)
from forward instead (``save_for_kernel``), as the ops did before they differentiated twice:
the same operations in the same order, the same bits. The lines are the array library's
(``ctx.xp``): ``kernels/cuda/activations.py`` registers them for CuPy arrays too.
"""

from __future__ import annotations

import numpy as np

from minitorch.autograd.function import BackwardNode
from minitorch.functions.activations import Mish, SiLU, _sigmoid, _softplus
from minitorch.hints import Array, Gradients
from minitorch.kernels.registry import register


def _float_numpy(x: Array) -> bool:
    """A floating-point NumPy input."""
    return type(x) is np.ndarray and x.dtype.kind == "f"


def silu_kept(ctx: BackwardNode, x: Array) -> Array:
    """SiLU's forward, keeping s = sigmoid(x) for backward."""
    s = _sigmoid(ctx.xp, x)
    ctx.save_for_backward(x)
    ctx.save_for_kernel(s)
    return x * s


def silu_kept_backward(ctx: BackwardNode, grad: Array) -> Gradients:
    """SiLU's backward on the kept s."""
    (x,) = ctx.saved_tensors
    (s,) = ctx.kernel_saved
    return (grad * s * (1 + x * (1 - s)),)


def mish_kept(ctx: BackwardNode, x: Array) -> Array:
    """Mish's forward, keeping t = tanh(softplus(x)) for backward."""
    t = ctx.xp.tanh(_softplus(ctx.xp, x))
    ctx.save_for_backward(x)
    ctx.save_for_kernel(t)
    return x * t


def mish_kept_backward(ctx: BackwardNode, grad: Array) -> Gradients:
    """Mish's backward on the kept t."""
    (x,) = ctx.saved_tensors
    (t,) = ctx.kernel_saved
    return (grad * (t + x * _sigmoid(ctx.xp, x) * (1 - t * t)),)


KEPT_SILU = register(SiLU, applies=_float_numpy, forward=silu_kept, backward=silu_kept_backward)
KEPT_MISH = register(Mish, applies=_float_numpy, forward=mish_kept, backward=mish_kept_backward)
