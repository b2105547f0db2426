"""Adagrad: each weight's step shrinks with the sum of all its squared gradients so far.

Per parameter, at step t (exactly PyTorch's update)::

    g = grad + weight_decay * p
    clr = lr / (1 + (t - 1) * lr_decay)
    sum = sum + g * g                          starts at initial_accumulator_value
    p = p - clr * g / (sqrt(sum) + eps)

Weights that rarely get a gradient (rare features, rare words) keep large steps; the
price is that every step size only ever decreases.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from minitorch import backends
from minitorch.optim.optimizer import Optimizer, check_non_negative
from minitorch.tensor import Tensor


class Adagrad(Optimizer):
    """``Adagrad(params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10)``."""

    state_keys = ("step", "sum")

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-2,
        lr_decay: float = 0,
        weight_decay: float = 0,
        initial_accumulator_value: float = 0,
        eps: float = 1e-10,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        # foreach, fused: PyTorch's choice of implementation (Optimizer._choose_kernel), with
        # the same numbers either way (there is no fused Adagrad kernel, so fused=True runs the
        # default).
        defaults = dict(
            lr=lr,
            lr_decay=lr_decay,
            weight_decay=weight_decay,
            initial_accumulator_value=initial_accumulator_value,
            eps=eps,
            foreach=foreach,
            maximize=maximize,
            differentiable=differentiable,
            fused=fused,
        )
        super().__init__(params, defaults)
        # PyTorch fills the state of every parameter at construction (so a fresh state_dict
        # already lists each one's "sum"); step() also creates it for groups added later.
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(p, group, self.state.setdefault(p, {}))

    def _check_hyperparameters(self, group: dict[str, Any]) -> dict[str, Any]:
        """lr, lr_decay, weight_decay, initial_accumulator_value and eps >= 0 (NaN refused)."""
        super()._check_hyperparameters(group)
        for key, label in (
            ("lr_decay", "lr_decay"),
            ("initial_accumulator_value", "initial_accumulator_value"),
            ("eps", "epsilon"),
        ):
            group[key] = check_non_negative("Adagrad", key, group[key], f"{label} value")
        return group

    def _init_state(self, p: Tensor, group: dict[str, Any], state: dict[str, Any]) -> None:
        """Step 0 and the running sum of squared gradients, filled with initial_accumulator_value."""
        if not state:
            state.update(step=0, sum=backends.module_of(p.data).full_like(p.data, group["initial_accumulator_value"]))

    def _update_parameter(self, p: Tensor, grad: Any, state: dict[str, Any], group: dict[str, Any]) -> None:
        """One Adagrad step of ``p``: the formula at the top of this file, line by line."""
        lr, weight_decay, eps = group["lr"], group["weight_decay"], group["eps"]
        g = -grad if group["maximize"] else grad
        state["step"] += 1
        if weight_decay:
            g = g + weight_decay * p.data
        clr = lr / (1 + (state["step"] - 1) * group["lr_decay"])  # the decayed learning rate
        state["sum"] += g * g  # in place: it is the state
        std = backends.module_of(p.data).sqrt(state["sum"]) + eps
        p.data -= clr * (g / std)
