"""Replay kernels for an optimizer: Adam's flat update without deciding it again, ``zero_grad``.

Eager ``Adam.step()`` gathers each group's parameters that have a gradient, builds the
settings, asks ``paths.choose_path`` which implementation to run (which readies the flat
buffers) and runs it. In a lowered step (``lowering.py``) the decision was made at the
trace: ``FlatAdam`` calls the very function the eager step chose, ``_multi_tensor_adam``
on the group's flat buffers, reading the numbers that change between steps (the learning
rate a scheduler sets, the betas, the step count in the state) fresh on every replay.
Same function, same arguments: the same bits.

Before each update it checks, by identity, what the decision rested on: the same groups
and parameters with gradients, NumPy gradients of the parameters' dtype, the state still
the flat buffers' views (``load_state_dict`` replaces it), one step count, the same
``foreach``/``fused``/``amsgrad``/``maximize``. If anything moved, the step runs eagerly
(``optimizer.step()``, which decides again) and the plan is made anew.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitorch.optim import foreach as multi_tensor
from minitorch.optim import paths
from minitorch.optim.adam import Adam, _multi_tensor_adam
from minitorch.optim.optimizer import Optimizer


def _path_settings(group: dict[str, Any]) -> tuple[Any, ...]:
    return (group.get("foreach"), group.get("fused"), group["amsgrad"], group["maximize"])


class FlatAdam:
    """``adam.step()`` in a lowered step: ``_multi_tensor_adam`` per group, as eager chose it."""

    def __init__(self, optimizer: Adam) -> None:
        self.optimizer = optimizer
        self.plan: list[tuple[Any, ...]] | None = None
        self.groups: list[dict[str, Any]] | None = None

    def __call__(self) -> None:
        plan = self.plan
        ready = self._ready(plan) if plan is not None else None
        if plan is None or ready is None:
            self.optimizer.step()  # eager: decides afresh; then plan the next replays on what it did
            self.plan = self._make_plan()
            return
        decoupled = self.optimizer.decoupled
        for (group, flat, params, states, _, _), grads in zip(plan, ready):
            beta1, beta2 = group["betas"]
            _multi_tensor_adam(
                flat,
                params,
                grads,
                states,
                lr=group["lr"],
                beta1=beta1,
                beta2=beta2,
                eps=group["eps"],
                weight_decay=group["weight_decay"],
                decoupled=group.get("decoupled_weight_decay", decoupled),
                amsgrad=group["amsgrad"],
                maximize=group["maximize"],
            )

    def _make_plan(self) -> list[tuple[Any, ...]] | None:
        """What the eager step just did, group by group, if every group took the flat path."""
        opt = self.optimizer
        plan = []
        for group in opt.param_groups:
            params, grads, states = opt._init_group(group)
            if not params or paths.choose_path(opt, group, params, grads, states) != paths.FOREACH:
                return None
            flat = multi_tensor.flat_group(opt, group)
            # per parameter: itself, its data array and shape, its state and the flat views it must hold
            each = [(p, p.data, p.data.shape, s, [flat.views[k][i] for k in flat.keys]) for i, (p, s) in
                    enumerate(zip(params, states))]  # fmt: skip
            plan.append((group, flat, params, states, _path_settings(group), each))
        self.groups = opt.param_groups
        return plan

    def _ready(self, plan: list[tuple[Any, ...]]) -> list[list[Any]] | None:
        """Each group's gradient arrays, if the plan still holds (else None: run eagerly).

        What ``choose_path`` and ``FlatGroup.is_current`` would find, by identity: the same
        parameters with gradients (NumPy arrays of their dtype and shape), their state the
        flat buffers' views, one step count.
        """
        opt = self.optimizer
        if opt.param_groups is not self.groups or len(plan) != len(opt.param_groups):
            return None
        state = opt.state
        ready = []
        for group, flat, _, states, settings, each in plan:
            if _path_settings(group) != settings:
                return None
            if sum(1 for p in group["params"] if p._grad is not None) != len(each):
                return None
            dtype, step, keys = flat.dtype, states[0]["step"], flat.keys
            grads = []
            for p, data, shape, s, views in each:
                grad = p._grad
                if grad is None or p.data is not data or state.get(p) is not s or s["step"] != step:
                    return None
                g = grad.data
                if type(g) is not np.ndarray or g.dtype != dtype or g.shape != shape:
                    return None
                for key, view in zip(keys, views):
                    if s[key] is not view:
                        return None
                grads.append(g)
            ready.append(grads)
        return ready


def zero_grad_kernel(optimizer: Optimizer) -> Any:
    """``optimizer.zero_grad()`` (to None, its default) without the ``.grad`` property's round trips."""

    def zero_grad() -> None:
        for group in optimizer.param_groups:
            for p in group["params"]:
                p._grad = None

    return zero_grad


_STEP = Optimizer.step  # the methods themselves (a trace swaps in recording ones while it runs)
_ZERO_GRAD = Optimizer.zero_grad


def for_call(step: Any) -> Any:
    """The replay kernel of a recorded Python call, or None to make the call itself."""
    owner = step.owner
    if step.method is _STEP and not step.args and not step.kwargs:
        if isinstance(owner, Adam) and type(owner)._update is Adam._update:
            return FlatAdam(owner)
    if step.method is _ZERO_GRAD and not step.args and step.kwargs.get("set_to_none", True) is True:
        return zero_grad_kernel(owner)
    return None
