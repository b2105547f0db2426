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
        # foreach: PyTorch's choice of implementation (Optimizer._choose_kernel), with the same
        # numbers either way.
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
        return group

    def _init_state(self, p: Tensor, group: dict[str, Any], state: dict[str, Any]) -> None:
        """Step 0 and both running averages at zero, where the parameter lives."""
        if not state:
            zeros = backends.module_of(p.data).zeros_like
            state.update(step=0, square_avg=zeros(p.data), acc_delta=zeros(p.data))

    def _update_parameter(self, p: Tensor, grad: Any, state: dict[str, Any], group: dict[str, Any]) -> None:
        """One Adadelta step of ``p``: the formula at the top of this file, line by line."""
        lr, rho, eps, weight_decay = group["lr"], group["rho"], group["eps"], group["weight_decay"]
        xp = backends.module_of(p.data)
        g = -grad if group["maximize"] else grad
        state["step"] += 1
        if weight_decay:
            g = g + weight_decay * p.data
        square_avg, acc_delta = state["square_avg"], state["acc_delta"]  # updated in place: they are the state
        square_avg *= rho  # square_avg = rho * square_avg + (1 - rho) * g * g
        square_avg += (1 - rho) * (g * g)
        delta = xp.sqrt(acc_delta + eps) / xp.sqrt(square_avg + eps) * g
        acc_delta *= rho  # acc_delta = rho * acc_delta + (1 - rho) * delta * delta
        acc_delta += (1 - rho) * (delta * delta)
        p.data -= lr * delta
