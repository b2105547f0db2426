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
        # foreach, fused: accepted as PyTorch's (speed settings); the update is the same either way.
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
                self._init_state(p, group)

    def _check_hyperparameters(self, group: dict[str, Any]) -> dict[str, Any]:
        """lr, lr_decay, weight_decay, initial_accumulator_value and eps >= 0 (NaN refused)."""
        super()._check_hyperparameters(group)
        for key, label in (
            ("lr_decay", "lr_decay"),
            ("weight_decay", "weight_decay"),
            ("initial_accumulator_value", "initial_accumulator_value"),
            ("eps", "epsilon"),
        ):
            group[key] = check_non_negative("Adagrad", key, group[key], f"{label} value")
        return group

    def _init_state(self, p: Tensor, group: dict[str, Any]) -> dict[str, Any]:
        """Step 0 and the running sum of squared gradients, filled with initial_accumulator_value."""
        xp = backends.module_of(p.data)
        state = {"step": 0, "sum": xp.full_like(p.data, group["initial_accumulator_value"])}
        self.state[p] = state
        return state

    def _update(self) -> None:
        """One update of every parameter that has a gradient."""
        for group in self.param_groups:
            lr, lr_decay, weight_decay, eps = group["lr"], group["lr_decay"], group["weight_decay"], group["eps"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                g, data = (-p.grad.data if group["maximize"] else p.grad.data), p.data
                xp = backends.module_of(data)
                state = self.state.get(p) or self._init_state(p, group)
                state["step"] += 1
                if weight_decay:
                    g = g + weight_decay * data
                clr = lr / (1 + (state["step"] - 1) * lr_decay)  # the decayed learning rate
                state["sum"] += g * g
                std = xp.sqrt(state["sum"]) + eps
                data -= clr * (g / std)
                p._bump_version()  # p changed in place: a graph that saved it is now stale
