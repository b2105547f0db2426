"""Stochastic gradient descent with momentum, Nesterov momentum and weight decay.

Per parameter, exactly PyTorch's update::

    g = grad + weight_decay * p
    buf = g                                   (first step)
    buf = momentum * buf + (1 - dampening) * g (later steps)
    g = g + momentum * buf   if nesterov   else   buf
    p = p - lr * g
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from minitorch import backends
from minitorch.errors import MiniTorchError
from minitorch.optim.optimizer import Optimizer


class SGD(Optimizer):
    """``SGD(params, lr, momentum=0, dampening=0, weight_decay=0, nesterov=False)``."""

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        momentum: float = 0.0,
        dampening: float = 0.0,
        weight_decay: float = 0.0,
        nesterov: bool = False,
    ) -> None:
        if lr < 0 or momentum < 0 or weight_decay < 0:
            raise MiniTorchError(
                f"SGD: lr, momentum and weight_decay must be >= 0, got {lr}, {momentum}, {weight_decay}"
            )
        if nesterov and (momentum <= 0 or dampening != 0):
            raise MiniTorchError("SGD: Nesterov momentum requires a momentum > 0 and zero dampening")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay, nesterov=nesterov)
        super().__init__(params, defaults)

    def step(self) -> None:
        """One update of every parameter that has a gradient."""
        for group in self.param_groups:
            lr, momentum, dampening = group["lr"], group["momentum"], group["dampening"]
            weight_decay, nesterov = group["weight_decay"], group["nesterov"]
            fused = momentum and not dampening and not nesterov
            for p in group["params"]:
                if p.grad is None:
                    continue
                g = p.grad.data
                kernels = backends.kernels_for(p.data) if fused else None  # None on the CPU
                if kernels is not None and g.dtype == p.data.dtype:
                    # On a GPU the whole update is one CUDA kernel (minitorch.cuda.kernels);
                    # a zero buffer makes its first step buf = g, as below.
                    state = self.state.get(p)
                    if state is None:
                        state = self.state[p] = {"momentum_buffer": backends.module_of(g).zeros_like(p.data)}
                    kernels.sgd_momentum_step(p.data, state["momentum_buffer"], g, lr, momentum, weight_decay)
                    continue
                if weight_decay:
                    g = g + weight_decay * p.data
                if momentum:
                    state = self.state.get(p)
                    if state is None:
                        buf = g.copy()
                        self.state[p] = {"momentum_buffer": buf}
                    else:
                        buf = state["momentum_buffer"]
                        buf *= momentum
                        buf += (1 - dampening) * g if dampening else g
                    g = g + momentum * buf if nesterov else buf
                p.data -= lr * g
