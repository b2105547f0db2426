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

from minitorch import backends
from minitorch.optim.optimizer import Optimizer, check_non_negative, check_number


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
        # foreach: accepted as PyTorch's (a speed setting); the update is the same either way.
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

    def _update(self) -> None:
        """One update of every parameter that has a gradient."""
        for group in self.param_groups:
            lr, rho, eps, weight_decay = group["lr"], group["rho"], group["eps"], group["weight_decay"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                g, data = (-p.grad.data if group["maximize"] else p.grad.data), p.data
                xp = backends.module_of(data)
                state = self.state.get(p)
                if state is None:  # buffers live where the parameter lives, arrays even for a 0-d p
                    state = {"step": 0, "square_avg": xp.zeros_like(data), "acc_delta": xp.zeros_like(data)}
                    self.state[p] = state
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
