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
from minitorch.optim import paths
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
        # foreach, fused: PyTorch's choice of implementation (minitorch.optim.paths). SGD has
        # no flat step (its loop was as fast, measured), so on the CPU it always runs the loop;
        # on a GPU the default runs momentum as one fused kernel per parameter.
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

    def _fused_step_supports(self, group: dict[str, Any]) -> bool:
        """The GPU kernel computes momentum without dampening, Nesterov or maximize."""
        return bool(group["momentum"]) and not group["dampening"] and not group["nesterov"] and not group["maximize"]

    def _init_group(self, group: dict[str, Any]) -> tuple[list[Tensor], list[Any], list[Any]]:
        """The group's parameters that have a gradient, their gradient arrays and momentum buffers.

        A buffer is None until the parameter's first step with momentum makes it (from that
        step's gradient), as in PyTorch; without momentum the buffer list stays empty.
        """
        params, grads, momentum_buffers = [], [], []
        for p in group["params"]:
            grad = p.grad
            if grad is None:
                continue
            params.append(p)
            grads.append(grad.data)
            if group["momentum"]:
                state = self.state.get(p)
                momentum_buffers.append(None if state is None else state.get("momentum_buffer"))
        return params, grads, momentum_buffers

    def _update(self) -> None:
        """One update of every parameter that has a gradient, by the implementation ``choose_path`` picks."""
        for group in self.param_groups:
            params, grads, momentum_buffers = self._init_group(group)
            if not params:
                continue
            settings = dict(
                lr=group["lr"],
                momentum=group["momentum"],
                dampening=group["dampening"],
                weight_decay=group["weight_decay"],
                nesterov=group["nesterov"],
                maximize=group["maximize"],
            )
            path = paths.choose_path(self, group, params, grads, None)  # no flat step: fused or the loop
            if path == paths.FUSED:
                _fused_sgd(params, grads, momentum_buffers, **settings)
            else:
                _single_tensor_sgd(params, grads, momentum_buffers, **settings)
            for p, buf in zip(params, momentum_buffers):  # keep the buffers the first step made
                self.state.setdefault(p, {})["momentum_buffer"] = buf


def _single_tensor_sgd(
    params: list[Tensor],
    grads: list[Any],
    momentum_buffers: list[Any],
    *,
    lr: float,
    momentum: float,
    dampening: float,
    weight_decay: float,
    nesterov: bool,
    maximize: bool,
) -> None:
    """SGD, one parameter at a time: the formula at the top of this file, line by line.

    A new momentum buffer (None in ``momentum_buffers``) is made from the step's gradient
    and put in the list, for ``step()`` to keep.
    """
    for i, (p, grad) in enumerate(zip(params, grads)):
        g = -grad if maximize else grad
        if weight_decay:
            g = g + weight_decay * p.data
        if momentum:
            buf = momentum_buffers[i]
            if buf is None:  # an array even for a 0-d p, where g may be a NumPy scalar
                buf = momentum_buffers[i] = backends.module_of(p.data).array(g, copy=True)
            else:
                buf *= momentum
                buf += (1 - dampening) * g if dampening else g
            g = g + momentum * buf if nesterov else buf
        p.data -= lr * g
        p._bump_version()  # p changed in place: a graph that saved it is now stale


def _fused_sgd(
    params: list[Tensor],
    grads: list[Any],
    momentum_buffers: list[Any],
    *,
    lr: float,
    momentum: float,
    dampening: float,
    weight_decay: float,
    nesterov: bool,
    maximize: bool,
) -> None:
    """SGD with momentum on the GPU, one CUDA kernel per parameter (``minitorch.cuda.kernels``).

    ``choose_path`` picks this only with momentum and without dampening, Nesterov and
    maximize, which the kernel does not compute.
    """
    for i, (p, g) in enumerate(zip(params, grads)):
        buf = momentum_buffers[i]
        if buf is None:  # a zero buffer makes the kernel's first step buf = g, as in the loop
            buf = momentum_buffers[i] = backends.module_of(p.data).zeros_like(p.data)
        backends.kernels_for(p.data).sgd_momentum_step(p.data, buf, g, lr, momentum, weight_decay)
        p._bump_version()  # p changed in place: a graph that saved it is now stale
