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

import numpy as np

from minitorch import backends
from minitorch.optim import foreach as multi_tensor
from minitorch.optim import paths
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
        # foreach, fused: PyTorch's choice of implementation (minitorch.optim.paths): the flat
        # step (_multi_tensor_adagrad) or the loop, with the same numbers either way (there is
        # no fused Adagrad kernel here, so fused=True runs the default).
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

    def _flat_step_keys(self, group: dict[str, Any]) -> tuple[str, ...]:
        """The running sums are kept flat by the foreach step."""
        return ("sum",)

    def _init_group(self, group: dict[str, Any]) -> tuple[list[Tensor], list[Any], list[dict[str, Any]]]:
        """The group's parameters that have a gradient, their gradient arrays and their state."""
        params, grads, states = [], [], []
        for p in group["params"]:
            grad = p.grad
            if grad is None:
                continue
            params.append(p)
            grads.append(grad.data)
            states.append(self.state.get(p) or self._init_state(p, group))
        return params, grads, states

    def _update(self) -> None:
        """One update of every parameter that has a gradient, by the implementation ``choose_path`` picks."""
        for group in self.param_groups:
            params, grads, states = self._init_group(group)
            if not params:
                continue
            settings = dict(
                lr=group["lr"],
                lr_decay=group["lr_decay"],
                weight_decay=group["weight_decay"],
                eps=group["eps"],
                maximize=group["maximize"],
            )
            if paths.choose_path(self, group, params, grads, states) == paths.FOREACH:
                _multi_tensor_adagrad(multi_tensor.flat_group(self, group), params, grads, states, **settings)
            else:
                _single_tensor_adagrad(params, grads, states, **settings)


def _single_tensor_adagrad(
    params: list[Tensor],
    grads: list[Any],
    states: list[dict[str, Any]],
    *,
    lr: float,
    lr_decay: float,
    weight_decay: float,
    eps: float,
    maximize: bool,
) -> None:
    """Adagrad, one parameter at a time: the formula at the top of this file, line by line."""
    for p, grad, state in zip(params, grads, states):
        g, data = (-grad if maximize else grad), p.data
        xp = backends.module_of(data)
        state["step"] += 1
        if weight_decay:
            g = g + weight_decay * data
        clr = lr / (1 + (state["step"] - 1) * lr_decay)  # the decayed learning rate
        state["sum"] += g * g
        std = xp.sqrt(state["sum"]) + eps
        data -= clr * (g / std)
        p._bump_version()  # p changed in place: a graph that saved it is now stale


def _multi_tensor_adagrad(
    flat: multi_tensor.FlatGroup,
    params: list[Tensor],
    grads: list[Any],
    states: list[dict[str, Any]],
    *,
    lr: float,
    lr_decay: float,
    weight_decay: float,
    eps: float,
    maximize: bool,
) -> None:
    """Adagrad for the whole group at once, on its flat arrays (``minitorch.optim.foreach``).

    The same operations as ``_single_tensor_adagrad`` in the same order, so the same bits.
    """
    t = states[0]["step"] + 1  # choose_path made sure every parameter is at the same step
    for state in states:
        state["step"] = t
    g = multi_tensor.gather_flat(flat, grads, maximize)
    if weight_decay:
        multi_tensor.add_weight_decay(flat, g, params, weight_decay)
    clr = lr / (1 + (t - 1) * lr_decay)
    total, work = flat.flat["sum"], flat.work[0]
    np.multiply(g, g, out=work)  # loop: sum += g * g
    total += work
    np.sqrt(total, out=work)  # loop: std = sqrt(sum) + eps; data -= clr * (g / std)
    work += eps
    np.divide(g, work, out=work)
    work *= clr
    multi_tensor.subtract_updates(params, flat.work_views[0])
