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

from minitorch import backends
from minitorch.optim.optimizer import Optimizer, check_flag, check_non_negative, check_number
from minitorch.tensor import Tensor


class Adam(Optimizer):
    """``Adam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *, foreach=None,
    maximize=False, decoupled_weight_decay=False)`` (the last True is AdamW).

    ``foreach``/``fused`` choose only how fast the same formula runs, as in PyTorch
    (``Optimizer._choose_kernel``): ``foreach=False`` runs ``_update_parameter`` below for
    each parameter; the default lets ``minitorch.kernels`` update a group at once where it
    has a kernel for it (several small CPU parameters as one flat array; one GPU kernel per
    parameter).
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

    def _init_state(self, p: Tensor, group: dict[str, Any], state: dict[str, Any]) -> None:
        """Step 0 and both moments at zero, where the parameter lives (amsgrad: their running maximum too)."""
        if not state:
            zeros = backends.module_of(p.data).zeros_like
            state.update(step=0, exp_avg=zeros(p.data), exp_avg_sq=zeros(p.data))
        if group["amsgrad"] and "max_exp_avg_sq" not in state:
            state["max_exp_avg_sq"] = backends.module_of(p.data).zeros_like(p.data)

    def _update_parameter(self, p: Tensor, grad: Any, state: dict[str, Any], group: dict[str, Any]) -> None:
        """One Adam step of ``p``: the formula at the top of this file, line by line."""
        lr, (beta1, beta2), eps, weight_decay = group["lr"], group["betas"], group["eps"], group["weight_decay"]
        data, xp = p.data, backends.module_of(p.data)
        g = -grad if group["maximize"] else grad
        state["step"] += 1
        t = state["step"]
        if weight_decay:
            if group["decoupled_weight_decay"]:  # AdamW: shrink p itself
                data *= 1 - lr * weight_decay
            else:  # Adam: the gradient of an L2 penalty
                g = g + weight_decay * data
        m, v = state["exp_avg"], state["exp_avg_sq"]  # updated in place: they are the state
        m *= beta1  # m = beta1 * m + (1 - beta1) * g
        m += (1 - beta1) * g
        v *= beta2  # v = beta2 * v + (1 - beta2) * g * g
        v += (1 - beta2) * (g * g)
        if group["amsgrad"]:  # the largest second moment so far: steps never grow back
            v_max = state["max_exp_avg_sq"]
            v_max[...] = xp.maximum(v_max, v)
            v = v_max
        step_size = lr / (1 - beta1**t)  # the two bias corrections
        denom = xp.sqrt(v) / math.sqrt(1 - beta2**t) + eps
        data -= step_size * (m / denom)


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
