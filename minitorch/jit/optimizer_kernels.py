"""Replay kernels for an optimizer's step: Adam's flat update without deciding it again.

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
        for (group, flat, params, states, _), grads in zip(plan, ready):
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
            plan.append((group, multi_tensor.flat_group(opt, group), params, states, _path_settings(group)))
        self.groups = opt.param_groups
        return plan

    def _ready(self, plan: list[tuple[Any, ...]]) -> list[list[Any]] | None:
        """Each group's gradient arrays, if the plan still holds (else None: run eagerly)."""
        opt = self.optimizer
        if opt.param_groups is not self.groups or len(plan) != len(opt.param_groups):
            return None
        state = opt.state
        ready = []
        for group, flat, params, states, settings in plan:
            if _path_settings(group) != settings:
                return None
            with_grad = [p for p in group["params"] if p._grad is not None]
            if len(with_grad) != len(params):
                return None
            grads, datas = [], []
            dtype = flat.dtype
            step = states[0]["step"]
            for p, q, s in zip(with_grad, params, states):
                g = p._grad.data
                if p is not q or type(g) is not np.ndarray or g.dtype != dtype or state.get(p) is not s:
                    return None
                if s["step"] != step or g.shape != p.data.shape:
                    return None
                grads.append(g)
                datas.append(p.data)
            if not flat.is_current(params, datas, states):
                return None
            ready.append(grads)
        return ready


_STEP = Optimizer.step  # the method itself (a trace swaps in a recording one while it runs)


def for_call(step: Any) -> Any:
    """The replay kernel of a recorded Python call, or None to make the call itself."""
    owner = step.owner
    if step.method is _STEP and not step.args and not step.kwargs:
        if isinstance(owner, Adam) and type(owner)._update is Adam._update:
            return FlatAdam(owner)
    return None
