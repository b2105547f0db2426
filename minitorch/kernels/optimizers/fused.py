"""The ``fused`` update kernels: SGD with momentum and Adam/AdamW as one GPU kernel per parameter.

Why it is faster: the formula (``_update_parameter``) is about a dozen array expressions
per parameter, each a kernel launch with its temporaries on a GPU; the hand-written CUDA
kernels of ``minitorch/kernels/cuda/sources.py`` (``sgd_momentum_step``, ``adam_step``) do the
whole update in one launch, reading each array once. They
compute the same formula, rounded the GPU's way (float32 within rounding of the formula).

Each applies where its CUDA kernel computes the group's options (no dampening, Nesterov,
maximize, amsgrad: those run the formula) and every parameter is on the GPU, with a gradient
of its own dtype.
"""

from __future__ import annotations

import math
from typing import Any

from minitorch import backends
from minitorch.kernels.cuda import sources
from minitorch.kernels.update_registry import register_update
from minitorch.optim import SGD, Adam
from minitorch.tensor import Tensor

Group = dict[str, Any]


def _all_on_kernel_device(params: list[Tensor], grads: list[Any]) -> bool:
    """Every parameter on the GPU (where the kernels run), its gradient of the same dtype."""
    return all(backends.device_of(p.data) == "cuda" and g.dtype == p.data.dtype for p, g in zip(params, grads))


def sgd_fused_applies(optimizer: SGD, group: Group, params: list[Tensor], grads: list[Any], states: list[Any]) -> bool:
    """Momentum without dampening, Nesterov or maximize (what the kernel computes), all on the GPU."""
    if not group["momentum"] or group["dampening"] or group["nesterov"] or group["maximize"]:
        return False
    return _all_on_kernel_device(params, grads)


def sgd_fused(optimizer: SGD, group: Group, params: list[Tensor], grads: list[Any], states: list[Any]) -> None:
    """SGD with momentum, one CUDA kernel per parameter (``sources.sgd_momentum_step``)."""
    lr, momentum, weight_decay = group["lr"], group["momentum"], group["weight_decay"]
    for p, g, state in zip(params, grads, states):
        buf = state["momentum_buffer"]
        if buf is None:  # a zero buffer makes the kernel's first step buf = g, as in the formula
            buf = state["momentum_buffer"] = backends.module_of(p.data).zeros_like(p.data)
        sources.sgd_momentum_step(p.data, buf, g, lr, momentum, weight_decay)
        p._bump_version()  # p changed in place: a graph that saved it is now stale


def adam_fused_applies(
    optimizer: Adam, group: Group, params: list[Tensor], grads: list[Any], states: list[Any]
) -> bool:
    """Plain Adam or AdamW (no amsgrad, no maximize: the kernel has neither), all on the GPU."""
    if group["amsgrad"] or group["maximize"]:
        return False
    return _all_on_kernel_device(params, grads)


def adam_fused(optimizer: Adam, group: Group, params: list[Tensor], grads: list[Any], states: list[Any]) -> None:
    """Adam and AdamW, one CUDA kernel per parameter (``sources.adam_step``)."""
    lr, (beta1, beta2), eps, weight_decay = group["lr"], group["betas"], group["eps"], group["weight_decay"]
    decoupled = group["decoupled_weight_decay"]
    decay = 1 - lr * weight_decay if decoupled else 1.0
    coupled = 0.0 if decoupled else weight_decay
    for p, g, state in zip(params, grads, states):
        state["step"] += 1
        t = state["step"]
        step_size, bias2 = lr / (1 - beta1**t), math.sqrt(1 - beta2**t)
        m, v = state["exp_avg"], state["exp_avg_sq"]
        sources.adam_step(p.data, m, v, g, step_size, beta1, beta2, eps, coupled, decay, bias2)
        p._bump_version()  # p changed in place: a graph that saved it is now stale


SGD_FUSED = register_update(SGD, device="cuda", kind="fused", applies=sgd_fused_applies, step=sgd_fused)
ADAM_FUSED = register_update(Adam, device="cuda", kind="fused", applies=adam_fused_applies, step=adam_fused)
