"""Adadelta: Adagrad's idea with running averages instead of sums, and no learning rate to tune.

Per parameter, at every step (exactly PyTorch's update)::

    g = grad + weight_decay * p
    square_avg = rho * square_avg + (1 - rho) * g * g          running mean of g**2
    delta = sqrt(acc_delta + eps) / sqrt(square_avg + eps) * g
    acc_delta = rho * acc_delta + (1 - rho) * delta * delta    running mean of the updates**2
    p = p - lr * delta

The ratio of the two root-mean-squares has the units of the parameter itself, so the
default ``lr=1.0`` needs no tuning (Zeiler, 2012).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np

from minitorch import backends
from minitorch.optim import foreach as multi_tensor
from minitorch.optim import paths
from minitorch.optim.optimizer import Optimizer, check_non_negative, check_number
from minitorch.tensor import Tensor


class Adadelta(Optimizer):
    """``Adadelta(params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0)``."""

    state_keys = ("step", "square_avg", "acc_delta")

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1.0,
        rho: float = 0.9,
        eps: float = 1e-6,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        capturable: bool = False,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        # foreach: PyTorch's choice of implementation (minitorch.optim.paths): the flat step
        # (_multi_tensor_adadelta) or the loop, with the same numbers either way.
        defaults = dict(
            lr=lr,
            rho=rho,
            eps=eps,
            weight_decay=weight_decay,
            foreach=foreach,
            capturable=capturable,
            maximize=maximize,
            differentiable=differentiable,
        )
        super().__init__(params, defaults)

    def _check_hyperparameters(self, group: dict[str, Any]) -> dict[str, Any]:
        """lr, eps and weight_decay >= 0, rho in [0, 1] (NaN refused), as PyTorch checks them."""
        super()._check_hyperparameters(group)
        rho = check_number("Adadelta", "rho", group["rho"])
        if not 0.0 <= rho <= 1.0:
            why = "it is NaN" if math.isnan(rho) else "rho must be in [0, 1], e.g. 0.9"
            raise ValueError(f"Adadelta: Invalid rho value: {rho} ({why})")
        group["rho"] = rho
        group["eps"] = check_non_negative("Adadelta", "eps", group["eps"], "epsilon value")
        group["weight_decay"] = check_non_negative(
            "Adadelta", "weight_decay", group["weight_decay"], "weight_decay value"
        )
        return group

    flat_work_arrays = 2  # the flat step keeps std and delta at once

    def _flat_step_keys(self, group: dict[str, Any]) -> tuple[str, ...]:
        """The two running averages are kept flat by the foreach step."""
        return ("square_avg", "acc_delta")

    def _init_group(self, group: dict[str, Any]) -> tuple[list[Tensor], list[Any], list[dict[str, Any]]]:
        """The group's parameters that have a gradient, their gradient arrays and their state (made if new)."""
        params, grads, states = [], [], []
        for p in group["params"]:
            grad = p.grad
            if grad is None:
                continue
            state = self.state.get(p)
            if state is None:  # buffers live where the parameter lives, arrays even for a 0-d p
                zeros = backends.module_of(p.data).zeros_like
                state = self.state[p] = {"step": 0, "square_avg": zeros(p.data), "acc_delta": zeros(p.data)}
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
                rho=group["rho"],
                eps=group["eps"],
                weight_decay=group["weight_decay"],
                maximize=group["maximize"],
            )
            if paths.choose_path(self, group, params, grads, states) == paths.FOREACH:
                _multi_tensor_adadelta(multi_tensor.flat_group(self, group), params, grads, states, **settings)
            else:
                _single_tensor_adadelta(params, grads, states, **settings)


def _single_tensor_adadelta(
    params: list[Tensor],
    grads: list[Any],
    states: list[dict[str, Any]],
    *,
    lr: float,
    rho: float,
    eps: float,
    weight_decay: float,
    maximize: bool,
) -> None:
    """Adadelta, one parameter at a time: the formula at the top of this file, line by line."""
    for p, grad, state in zip(params, grads, states):
        g, data = (-grad if maximize else grad), p.data
        xp = backends.module_of(data)
        state["step"] += 1
        if weight_decay:
            g = g + weight_decay * data
        square_avg, acc_delta = state["square_avg"], state["acc_delta"]
        square_avg *= rho
        square_avg += (1 - rho) * (g * g)
        std = xp.sqrt(square_avg + eps)
        delta = xp.sqrt(acc_delta + eps) / std * g
        acc_delta *= rho
        acc_delta += (1 - rho) * (delta * delta)
        data -= lr * delta
        p._bump_version()  # p changed in place: a graph that saved it is now stale


def _multi_tensor_adadelta(
    flat: multi_tensor.FlatGroup,
    params: list[Tensor],
    grads: list[Any],
    states: list[dict[str, Any]],
    *,
    lr: float,
    rho: float,
    eps: float,
    weight_decay: float,
    maximize: bool,
) -> None:
    """Adadelta for the whole group at once, on its flat arrays (``minitorch.optim.foreach``).

    The same operations as ``_single_tensor_adadelta`` in the same order, so the same bits.
    """
    for state in states:
        state["step"] += 1
    g = multi_tensor.gather_flat(flat, grads, maximize)
    if weight_decay:
        multi_tensor.add_weight_decay(flat, g, params, weight_decay)
    square_avg, acc_delta = flat.flat["square_avg"], flat.flat["acc_delta"]
    std, delta = flat.work
    square_avg *= rho  # loop: square_avg *= rho; square_avg += (1 - rho) * (g * g)
    np.multiply(g, g, out=std)
    std *= 1 - rho
    square_avg += std
    np.add(square_avg, eps, out=std)  # loop: std = sqrt(square_avg + eps)
    np.sqrt(std, out=std)
    np.add(acc_delta, eps, out=delta)  # loop: delta = sqrt(acc_delta + eps) / std * g
    np.sqrt(delta, out=delta)
    delta /= std
    delta *= g
    acc_delta *= rho  # loop: acc_delta *= rho; acc_delta += (1 - rho) * (delta * delta)
    np.multiply(delta, delta, out=std)
    std *= 1 - rho
    acc_delta += std
    delta *= lr  # loop: data -= lr * delta
    multi_tensor.subtract_updates(params, flat.work_views[1])
