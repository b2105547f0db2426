"""RMSprop: divide each step by a running root-mean-square of the gradients, as PyTorch computes it.

Per parameter, at every step::

    g = grad + weight_decay * p
    square_avg = alpha * square_avg + (1 - alpha) * g * g     running mean of g**2
    avg = sqrt(square_avg) + eps
        centered: grad_avg = alpha * grad_avg + (1 - alpha) * g   (running mean of g)
                  avg = sqrt(square_avg - grad_avg**2) + eps     (a running standard deviation)
    buf = momentum * buf + g / avg;  p = p - lr * buf    with momentum
    p = p - lr * g / avg                                 without

A parameter whose gradients are large and noisy takes small steps, one whose gradients are
small and steady takes larger ones: each weight gets its own step size.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from minitorch import backends
from minitorch.optim import foreach as multi_tensor
from minitorch.optim import paths
from minitorch.optim.optimizer import Optimizer, check_non_negative
from minitorch.tensor import Tensor


class RMSprop(Optimizer):
    """``RMSprop(params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False)``; maximize too."""

    # momentum_buffer (momentum > 0) and grad_avg (centered) are made when first needed
    state_keys = ("step", "square_avg")

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-2,
        alpha: float = 0.99,
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum: float = 0,
        centered: bool = False,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        # foreach: PyTorch's choice of implementation (minitorch.optim.paths): the flat step
        # (_multi_tensor_rmsprop) or the loop, with the same numbers either way.
        defaults = dict(
            lr=lr,
            alpha=alpha,
            eps=eps,
            weight_decay=weight_decay,
            momentum=momentum,
            centered=centered,
            capturable=capturable,
            foreach=foreach,
            maximize=maximize,
            differentiable=differentiable,
        )
        super().__init__(params, defaults)

    def _check_hyperparameters(self, group: dict[str, Any]) -> dict[str, Any]:
        """lr, eps, momentum, weight_decay and alpha >= 0 (NaN refused), as PyTorch checks them."""
        super()._check_hyperparameters(group)
        for key, label in (
            ("eps", "epsilon"),
            ("momentum", "momentum"),
            ("weight_decay", "weight_decay"),
            ("alpha", "alpha"),
        ):
            group[key] = check_non_negative("RMSprop", key, group[key], f"{label} value")
        return group

    def _flat_step_keys(self, group: dict[str, Any]) -> tuple[str, ...]:
        """The running averages (and the momentum buffer) are kept flat by the foreach step."""
        keys = ("square_avg", "grad_avg") if group["centered"] else ("square_avg",)
        return keys + ("momentum_buffer",) if group["momentum"] > 0 else keys

    def _init_group(self, group: dict[str, Any]) -> tuple[list[Tensor], list[Any], list[dict[str, Any]]]:
        """The group's parameters that have a gradient, their gradient arrays and their state (made if new)."""
        params, grads, states = [], [], []
        for p in group["params"]:
            grad = p.grad
            if grad is None:
                continue
            zeros = backends.module_of(p.data).zeros_like  # buffers live where the parameter lives
            state = self.state.get(p)
            if state is None:  # arrays even for a 0-d p
                state = self.state[p] = {"step": 0, "square_avg": zeros(p.data)}
            if group["centered"] and "grad_avg" not in state:
                state["grad_avg"] = zeros(p.data)
            if group["momentum"] > 0 and "momentum_buffer" not in state:
                state["momentum_buffer"] = zeros(p.data)
            params.append(p)
            grads.append(grad.data)
            states.append(state)
        return params, grads, states

    def _update(self) -> None:
        """One update of every parameter that has a gradient, by the implementation ``choose_path`` picks."""
        for group in self.param_groups:
            params, grads, states = self._init_group(group)
            if not params:
                continue
            settings = dict(
                lr=group["lr"],
                alpha=group["alpha"],
                eps=group["eps"],
                weight_decay=group["weight_decay"],
                momentum=group["momentum"],
                centered=group["centered"],
                maximize=group["maximize"],
            )
            if paths.choose_path(self, group, params, grads, states) == paths.FOREACH:
                _multi_tensor_rmsprop(multi_tensor.flat_group(self, group), params, grads, states, **settings)
            else:
                _single_tensor_rmsprop(params, grads, states, **settings)


def _single_tensor_rmsprop(
    params: list[Tensor],
    grads: list[Any],
    states: list[dict[str, Any]],
    *,
    lr: float,
    alpha: float,
    eps: float,
    weight_decay: float,
    momentum: float,
    centered: bool,
    maximize: bool,
) -> None:
    """RMSprop, one parameter at a time: the formula at the top of this file, line by line."""
    for p, grad, state in zip(params, grads, states):
        g, data = (-grad if maximize else grad), p.data
        xp = backends.module_of(data)
        state["step"] += 1
        if weight_decay:
            g = g + weight_decay * data
        square_avg = state["square_avg"]
        square_avg *= alpha
        square_avg += (1 - alpha) * (g * g)
        if centered:
            grad_avg = state["grad_avg"]
            grad_avg += (1 - alpha) * (g - grad_avg)  # PyTorch's lerp: a running mean of g
            avg = xp.sqrt(square_avg - grad_avg * grad_avg)
        else:
            avg = xp.sqrt(square_avg)
        avg = avg + eps
        if momentum > 0:
            buf = state["momentum_buffer"]
            buf *= momentum
            buf += g / avg
            data -= lr * buf
        else:
            data -= lr * (g / avg)
        p._bump_version()  # p changed in place: a graph that saved it is now stale


def _multi_tensor_rmsprop(
    flat: multi_tensor.FlatGroup,
    params: list[Tensor],
    grads: list[Any],
    states: list[dict[str, Any]],
    *,
    lr: float,
    alpha: float,
    eps: float,
    weight_decay: float,
    momentum: float,
    centered: bool,
    maximize: bool,
) -> None:
    """RMSprop for the whole group at once, on its flat arrays (``minitorch.optim.foreach``).

    The same operations as ``_single_tensor_rmsprop`` in the same order, so the same bits.
    """
    for state in states:
        state["step"] += 1
    g = multi_tensor.gather_flat(flat, grads, maximize)
    if weight_decay:
        multi_tensor.add_weight_decay(flat, g, params, weight_decay)
    square_avg, work = flat.flat["square_avg"], flat.work[0]
    square_avg *= alpha  # loop: square_avg *= alpha; square_avg += (1 - alpha) * (g * g)
    np.multiply(g, g, out=work)
    work *= 1 - alpha
    square_avg += work
    if centered:
        grad_avg = flat.flat["grad_avg"]
        np.subtract(g, grad_avg, out=work)  # loop: grad_avg += (1 - alpha) * (g - grad_avg)
        work *= 1 - alpha
        grad_avg += work
        np.multiply(grad_avg, grad_avg, out=work)  # loop: avg = sqrt(square_avg - grad_avg * grad_avg)
        np.subtract(square_avg, work, out=work)
        np.sqrt(work, out=work)
    else:
        np.sqrt(square_avg, out=work)
    work += eps  # work is now avg
    np.divide(g, work, out=work)
    if momentum > 0:
        buf = flat.flat["momentum_buffer"]  # loop: buf *= momentum; buf += g / avg; data -= lr * buf
        buf *= momentum
        buf += work
        np.multiply(buf, lr, out=work)
    else:
        work *= lr  # loop: data -= lr * (g / avg)
    multi_tensor.subtract_updates(params, flat.work_views[0])
