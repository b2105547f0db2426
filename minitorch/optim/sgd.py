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
from minitorch.tensor import Tensor


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
        # foreach, fused: PyTorch's choice of implementation (Optimizer._choose_kernel). SGD
        # has no flat step (its loop was as fast, measured), so on the CPU it always runs the
        # formula; on a GPU the default runs momentum as one fused kernel per parameter.
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

    def _init_state(self, p: Tensor, group: dict[str, Any], state: dict[str, Any]) -> None:
        """With momentum, a momentum buffer: None until the first step makes it from the gradient, as in PyTorch."""
        if group["momentum"] and "momentum_buffer" not in state:
            state["momentum_buffer"] = None

    def _update_parameter(self, p: Tensor, grad: Any, state: dict[str, Any], group: dict[str, Any]) -> None:
        """One SGD step of ``p``: the formula at the top of this file, line by line."""
        lr, momentum, dampening = group["lr"], group["momentum"], group["dampening"]
        g = -grad if group["maximize"] else grad
        if group["weight_decay"]:
            g = g + group["weight_decay"] * p.data
        if momentum:
            buf = state["momentum_buffer"]
            if buf is None:  # the first step: the buffer is the gradient itself (an array even for a 0-d p)
                buf = state["momentum_buffer"] = backends.module_of(p.data).array(g, copy=True)
            else:  # updated in place: it is the state
                buf *= momentum
                buf += (1 - dampening) * g if dampening else g
            g = g + momentum * buf if group["nesterov"] else buf
        p.data -= lr * g
