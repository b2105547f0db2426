"""Stochastic gradient descent with momentum, Nesterov momentum and weight decay.

Per parameter, exactly PyTorch's update::

    g = grad + weight_decay * p
    buf = g                                   (first step)
    buf = momentum * buf + (1 - dampening) * g (later steps)
    g = g + momentum * buf   if nesterov   else   buf
    p = p - lr * g
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from minitorch import backends
from minitorch.optim.optimizer import Optimizer, check_non_negative, check_number


class SGD(Optimizer):
    """``SGD(params, lr, momentum=0, dampening=0, weight_decay=0, nesterov=False, *, maximize=False)``."""

    state_keys = ("momentum_buffer",)

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        momentum: float = 0,
        dampening: float = 0,
        weight_decay: float = 0,
        nesterov: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        # foreach, fused: accepted as PyTorch's (speed settings); SGD's loop is already as fast
        # as a grouped step here (measured), so it runs the same way either way.
        defaults = dict(
            lr=lr,
            momentum=momentum,
            dampening=dampening,
            weight_decay=weight_decay,
            nesterov=nesterov,
            maximize=maximize,
            foreach=foreach,
            differentiable=differentiable,
            fused=fused,
        )
        super().__init__(params, defaults)

    def _check_hyperparameters(self, group: dict[str, Any]) -> dict[str, Any]:
        """lr, momentum and weight_decay >= 0 (NaN refused), dampening a number, Nesterov's needs."""
        super()._check_hyperparameters(group)
        group["momentum"] = check_non_negative("SGD", "momentum", group["momentum"], "momentum value")
        group["weight_decay"] = check_non_negative("SGD", "weight_decay", group["weight_decay"], "weight_decay value")
        group["dampening"] = check_number("SGD", "dampening", group["dampening"])
        if math.isnan(group["dampening"]):
            raise ValueError("SGD: Invalid dampening value: nan (check the computation that produced it)")
        if group["nesterov"] and (group["momentum"] <= 0 or group["dampening"] != 0):
            raise ValueError(
                f"SGD: Nesterov momentum requires a momentum and zero dampening, got momentum="
                f"{group['momentum']}, dampening={group['dampening']} "
                "(e.g. SGD(params, lr, momentum=0.9, nesterov=True))"
            )
        return group

    def _update(self) -> None:
        """One update of every parameter that has a gradient."""
        for group in self.param_groups:
            lr, momentum, dampening = group["lr"], group["momentum"], group["dampening"]
            weight_decay, nesterov, maximize = group["weight_decay"], group["nesterov"], group["maximize"]
            fused = momentum and not dampening and not nesterov and not maximize
            for p in group["params"]:
                if p.grad is None:
                    continue
                g = -p.grad.data if maximize else p.grad.data
                kernels = backends.kernels_for(p.data) if fused else None  # None on the CPU
                if kernels is not None and g.dtype == p.data.dtype:
                    # On a GPU the whole update is one CUDA kernel (minitorch.cuda.kernels);
                    # a zero buffer makes its first step buf = g, as below.
                    state = self.state.get(p)
                    if state is None:
                        state = self.state[p] = {"momentum_buffer": backends.module_of(g).zeros_like(p.data)}
                    kernels.sgd_momentum_step(p.data, state["momentum_buffer"], g, lr, momentum, weight_decay)
                    p._bump_version()  # p changed in place: a graph that saved it is now stale
                    continue
                if weight_decay:
                    g = g + weight_decay * p.data
                if momentum:
                    state = self.state.get(p)
                    if state is None:  # an array even for a 0-d p, where g may be a NumPy scalar
                        buf = backends.module_of(p.data).array(g, copy=True)
                        self.state[p] = {"momentum_buffer": buf}
                    else:
                        buf = state["momentum_buffer"]
                        buf *= momentum
                        buf += (1 - dampening) * g if dampening else g
                    g = g + momentum * buf if nesterov else buf
                p.data -= lr * g
                p._bump_version()  # p changed in place: a graph that saved it is now stale
