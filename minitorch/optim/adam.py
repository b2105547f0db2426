"""Adam and AdamW, with bias correction, exactly as PyTorch computes them.

Per parameter, at step t::

    g = grad (+ weight_decay * p for Adam; AdamW instead shrinks p by lr * weight_decay)
    m = beta1 * m + (1 - beta1) * g           first moment (mean of gradients)
    v = beta2 * v + (1 - beta2) * g * g       second moment (mean of squares)
    v_max = max(v_max, v)                     amsgrad only: then v_max replaces v below
    p = p - lr / (1 - beta1**t) * m / (sqrt(v) / sqrt(1 - beta2**t) + eps)

(``maximize=True`` uses -grad: gradient ascent.)

Both moments start at zero, so early on they underestimate; dividing by 1 - beta**t (the
"bias correction") undoes that.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np

from minitorch import backends
from minitorch.optim import foreach as multi_tensor
from minitorch.optim import paths
from minitorch.optim.optimizer import Optimizer, check_flag, check_foreach, check_non_negative, check_number
from minitorch.tensor import Tensor


class Adam(Optimizer):
    """``Adam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *, foreach=None,
    maximize=False, decoupled_weight_decay=False)`` (the last True is AdamW).

    ``foreach``/``fused`` choose the implementation (``minitorch.optim.paths``): False
    the single-tensor loop, True each group's CPU parameters together as one flat array
    (``_multi_tensor_adam``), None (the default) the fused kernel on a GPU and the flat
    step where it is faster (several small parameters). On the CPU the numbers are the
    same either way; groups the flat step can't take (mixed dtypes, parameters at
    different step counts) go one parameter at a time, even with ``foreach=True``.
    """

    decoupled = False  # AdamW sets True: weight decay shrinks p directly
    state_keys = ("step", "exp_avg", "exp_avg_sq")

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        amsgrad: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
        decoupled_weight_decay: bool = False,
    ) -> None:
        defaults = dict(
            lr=lr,
            betas=betas,
            eps=eps,
            weight_decay=weight_decay,
            amsgrad=amsgrad,
            maximize=maximize,
            foreach=foreach,
            capturable=capturable,
            differentiable=differentiable,
            fused=fused,
            decoupled_weight_decay=decoupled_weight_decay or self.decoupled,
        )
        super().__init__(params, defaults)

    def _check_hyperparameters(self, group: dict[str, Any]) -> dict[str, Any]:
        """lr, eps and weight_decay >= 0 and betas a pair in [0, 1), as PyTorch checks them (NaN refused)."""
        super()._check_hyperparameters(group)
        name = type(self).__name__
        group["eps"] = check_non_negative(name, "eps", group["eps"], "epsilon value")
        group["weight_decay"] = check_non_negative(name, "weight_decay", group["weight_decay"], "weight_decay value")
        group["foreach"] = check_foreach(name, group.get("foreach"))
        for key in ("amsgrad", "decoupled_weight_decay"):
            if key in group:
                group[key] = check_flag(name, key, group[key])
        betas = group["betas"]
        if isinstance(betas, Tensor) or not isinstance(betas, (tuple, list)):
            raise TypeError(f"{name}: betas must be a pair (beta1, beta2), e.g. (0.9, 0.999), got {betas!r}")
        if len(betas) != 2:
            raise ValueError(
                f"{name}: betas must be a pair (beta1, beta2), e.g. (0.9, 0.999), got {len(betas)} values {betas!r}"
            )
        checked = []
        for i, beta in enumerate(betas):
            beta = check_number(name, f"betas[{i}]", beta)
            if not 0.0 <= beta < 1.0:
                raise ValueError(
                    f"{name}: Invalid beta parameter at index {i}: {beta} (each beta must be in [0, 1), "
                    "e.g. betas=(0.9, 0.999))"
                )
            checked.append(beta)
        group["betas"] = tuple(checked)
        return group

    def _fused_step_supports(self, group: dict[str, Any]) -> bool:
        """The GPU kernel computes plain Adam/AdamW: no amsgrad, no maximize."""
        return not group["amsgrad"] and not group["maximize"]

    def _flat_step_keys(self, group: dict[str, Any]) -> tuple[str, ...]:
        """The moments (and amsgrad's running maximum) are kept flat by the foreach step."""
        return ("exp_avg", "exp_avg_sq", "max_exp_avg_sq") if group["amsgrad"] else ("exp_avg", "exp_avg_sq")

    def _init_group(self, group: dict[str, Any]) -> tuple[list[Tensor], list[Any], list[dict[str, Any]]]:
        """The group's parameters that have a gradient, their gradient arrays and their state (made if new)."""
        params, grads, states = [], [], []
        for p in group["params"]:
            grad = p.grad
            if grad is None:
                continue
            state = self.state.get(p)
            if state is None:  # moments live where the parameter lives (NumPy or CuPy)
                zeros = backends.module_of(p.data).zeros_like
                state = self.state[p] = {"step": 0, "exp_avg": zeros(p.data), "exp_avg_sq": zeros(p.data)}
            if group["amsgrad"] and "max_exp_avg_sq" not in state:
                state["max_exp_avg_sq"] = backends.module_of(p.data).zeros_like(p.data)
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
            beta1, beta2 = group["betas"]
            settings = dict(
                lr=group["lr"],
                beta1=beta1,
                beta2=beta2,
                eps=group["eps"],
                weight_decay=group["weight_decay"],
                decoupled=group.get("decoupled_weight_decay", self.decoupled),
                amsgrad=group["amsgrad"],
                maximize=group["maximize"],
            )
            path = paths.choose_path(self, group, params, grads, states)
            if path == paths.FUSED:
                _fused_adam(params, grads, states, **settings)
            elif path == paths.FOREACH:
                _multi_tensor_adam(multi_tensor.flat_group(self, group), params, grads, states, **settings)
            else:
                _single_tensor_adam(params, grads, states, **settings)


def _single_tensor_adam(
    params: list[Tensor],
    grads: list[Any],
    states: list[dict[str, Any]],
    *,
    lr: float,
    beta1: float,
    beta2: float,
    eps: float,
    weight_decay: float,
    decoupled: bool,
    amsgrad: bool,
    maximize: bool,
) -> None:
    """Adam, one parameter at a time: the formula at the top of this file, line by line."""
    for p, grad, state in zip(params, grads, states):
        g = -grad if maximize else grad
        data = p.data
        xp = backends.module_of(data)
        state["step"] += 1
        t = state["step"]
        if weight_decay:
            if decoupled:
                data *= 1 - lr * weight_decay
            else:
                g = g + weight_decay * data
        m, v = state["exp_avg"], state["exp_avg_sq"]
        m *= beta1
        m += (1 - beta1) * g
        v *= beta2
        v += (1 - beta2) * (g * g)
        step_size = lr / (1 - beta1**t)
        if amsgrad:  # the largest second moment so far: steps never grow back
            v = state["max_exp_avg_sq"]
            xp.maximum(v, state["exp_avg_sq"], out=v)
        denom = xp.sqrt(v)
        denom /= math.sqrt(1 - beta2**t)
        denom += eps
        update = m / denom
        update *= step_size
        data -= update
        p._bump_version()  # p changed in place: a graph that saved it is now stale


def _multi_tensor_adam(
    flat: multi_tensor.FlatGroup,
    params: list[Tensor],
    grads: list[Any],
    states: list[dict[str, Any]],
    *,
    lr: float,
    beta1: float,
    beta2: float,
    eps: float,
    weight_decay: float,
    decoupled: bool,
    amsgrad: bool,
    maximize: bool,
) -> None:
    """Adam for the whole group at once, on its flat arrays (``minitorch.optim.foreach``).

    The same operations as ``_single_tensor_adam`` in the same order, with the group's flat
    arrays in place of each parameter's, so the results are identical to the last bit.
    """
    t = states[0]["step"] + 1  # choose_path made sure every parameter is at the same step
    for state in states:
        state["step"] = t
    g = multi_tensor.gather_flat(flat, grads, maximize)
    if weight_decay and not decoupled:
        multi_tensor.add_weight_decay(flat, g, params, weight_decay)
    m, v, work = flat.flat["exp_avg"], flat.flat["exp_avg_sq"], flat.work[0]
    m *= beta1  # loop: m *= beta1; m += (1 - beta1) * g
    np.multiply(g, 1 - beta1, out=work)
    m += work
    v *= beta2  # loop: v *= beta2; v += (1 - beta2) * (g * g)
    np.multiply(g, g, out=work)
    work *= 1 - beta2
    v += work
    step_size = lr / (1 - beta1**t)
    if amsgrad:
        v_max = flat.flat["max_exp_avg_sq"]
        np.maximum(v_max, v, out=v_max)
        v = v_max
    np.sqrt(v, out=work)  # loop: denom = sqrt(v) / sqrt(1 - beta2**t) + eps; update = m / denom * step_size
    work /= math.sqrt(1 - beta2**t)
    work += eps
    np.divide(m, work, out=work)
    work *= step_size
    # AdamW shrinks p first; its update does not read p, so doing it here is the same
    decay = 1 - lr * weight_decay if weight_decay and decoupled else None
    multi_tensor.subtract_updates(params, flat.work_views[0], decay)


def _fused_adam(
    params: list[Tensor],
    grads: list[Any],
    states: list[dict[str, Any]],
    *,
    lr: float,
    beta1: float,
    beta2: float,
    eps: float,
    weight_decay: float,
    decoupled: bool,
    amsgrad: bool,
    maximize: bool,
) -> None:
    """Adam on the GPU, one CUDA kernel per parameter (``minitorch.cuda.kernels.adam_step``).

    About a dozen launches and four temporaries per parameter become one. ``choose_path``
    picks this only without amsgrad and maximize, which the kernel does not compute.
    """
    decay = 1 - lr * weight_decay if decoupled else 1.0
    coupled = 0.0 if decoupled else weight_decay
    for p, g, state in zip(params, grads, states):
        state["step"] += 1
        t = state["step"]
        step_size, bias2 = lr / (1 - beta1**t), math.sqrt(1 - beta2**t)
        m, v = state["exp_avg"], state["exp_avg_sq"]
        backends.kernels_for(p.data).adam_step(p.data, m, v, g, step_size, beta1, beta2, eps, coupled, decay, bias2)
        p._bump_version()  # p changed in place: a graph that saved it is now stale


class AdamW(Adam):
    """Adam with decoupled weight decay: ``p *= 1 - lr * weight_decay`` before the Adam step."""

    decoupled = True

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 1e-2,
        amsgrad: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        super().__init__(
            params,
            lr,
            betas,
            eps,
            weight_decay,
            amsgrad,
            foreach=foreach,
            maximize=maximize,
            capturable=capturable,
            differentiable=differentiable,
            fused=fused,
        )
