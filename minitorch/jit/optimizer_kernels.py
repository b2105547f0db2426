"""Replay kernels for an optimizer: Adam's flat update without deciding it again, ``zero_grad``.

Eager ``Adam.step()`` gathers each group's parameters that have a gradient and their state
(``Optimizer._init_group``), asks ``Optimizer._choose_kernel`` how to run the group's step
(which readies the flat buffers when the foreach kernel applies) and runs it. In a lowered
step (``lowering.py``) the decision was made at the trace: ``FlatAdam`` calls the very
function the eager step chose, ``adam_foreach`` (``minitorch/kernels/optimizers/foreach.py``)
on the group's flat buffers, reading the numbers that change between steps (the learning
rate a scheduler sets, the betas, the step count in the state) fresh on every replay.
Same function, same arguments: the same bits.

Before each update it checks, by identity, what the decision rested on: the fast kernels
still on, the same groups and parameters with gradients, NumPy gradients of the
parameters' dtype, the state still the flat buffers' views (``load_state_dict`` replaces
it), one step count, the same ``foreach``/``fused``/``amsgrad``/``maximize``. If anything
moved, the step runs eagerly (``optimizer.step()``, which decides again) and the plan is
made anew.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitorch.kernels.optimizers.flat import flat_group
from minitorch.kernels.optimizers.foreach import ADAM_FOREACH, adam_foreach
from minitorch.optim.adam import Adam
from minitorch.optim.optimizer import Optimizer
from minitorch.switches import SWITCHES
from minitorch.trace_hooks import unwrapped


def _path_settings(group: dict[str, Any]) -> tuple[Any, ...]:
    return (group.get("foreach"), group.get("fused"), group["amsgrad"], group["maximize"])


class FlatAdam:
    """``adam.step()`` in a lowered step: ``adam_foreach`` per group, as eager chose it."""

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
        optimizer = self.optimizer
        for (group, _, params, states, _, _), grads in zip(plan, ready):
            adam_foreach(optimizer, group, params, grads, states)

    def _make_plan(self) -> list[tuple[Any, ...]] | None:
        """What the eager step just did, group by group, if every group took the flat path."""
        opt = self.optimizer
        plan = []
        for group in opt.param_groups:
            params, grads, states = opt._init_group(group)
            if not params or opt._choose_kernel(group, params, grads, states) is not ADAM_FOREACH:
                return None
            flat = flat_group(opt, group)
            # per parameter: itself, its data array and shape, its state and the flat views it must hold
            each = [(p, p.data, p.data.shape, s, [flat.views[k][i] for k in flat.keys]) for i, (p, s) in
                    enumerate(zip(params, states))]  # fmt: skip
            plan.append((group, flat, params, states, _path_settings(group), each))
        self.groups = opt.param_groups
        return plan

    def _ready(self, plan: list[tuple[Any, ...]]) -> list[list[Any]] | None:
        """Each group's gradient arrays, if the plan still holds (else None: run eagerly).

        What ``_choose_kernel`` and ``FlatGroup.is_current`` would find, by identity: the same
        parameters with gradients (NumPy arrays of their dtype and shape), their state the
        flat buffers' views, one step count.
        """
        opt = self.optimizer
        if not SWITCHES.fast_kernels or opt.param_groups is not self.groups or len(plan) != len(opt.param_groups):
            return None  # (fast kernels off: the eager step runs the formula)
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


_STEP = unwrapped(Optimizer.step)  # the functions a recorded call names (not their @replayed wrappers)
_ZERO_GRAD = unwrapped(Optimizer.zero_grad)


def for_call(step: Any) -> Any:
    """The replay kernel of a recorded Python call, or None to make the call itself."""
    owner = step.owner
    if step.method is _STEP and not step.args and not step.kwargs:
        kind = type(owner)
        if isinstance(owner, Adam) and kind._update is Optimizer._update and kind._init_group is Optimizer._init_group:
            return FlatAdam(owner)  # (_make_plan checks that eager chose ADAM_FOREACH, which checks the rule)
    if step.method is _ZERO_GRAD and not step.args and step.kwargs.get("set_to_none", True) is True:
        return zero_grad_kernel(owner)
    return None
