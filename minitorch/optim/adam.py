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
from minitorch.optim import foreach as multi_tensor
from minitorch.optim.optimizer import Optimizer, check_flag, check_foreach, check_non_negative, check_number
from minitorch.tensor import Tensor


class Adam(Optimizer):
    """``Adam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *, foreach=None,
    maximize=False, decoupled_weight_decay=False)`` (the last True is AdamW).

    ``foreach``: True updates each group's CPU parameters together as one flat array
    (``minitorch.optim.foreach``), False one parameter at a time, None (the default) flat
    where that is faster (several small parameters). The numbers are the same either way;
    groups the flat step can't take (GPU arrays, mixed dtypes, parameters at different
    step counts) always go one parameter at a time, even with ``foreach=True``.
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

    def _update(self) -> None:
        """One update of every parameter that has a gradient."""
        for group in self.param_groups:
            foreach = group.get("foreach")
            decoupled = group.get("decoupled_weight_decay", self.decoupled)
            # amsgrad and maximize: the loop below only (neither the flat step nor the GPU kernel has them)
            amsgrad, maximize = group.get("amsgrad", False), group.get("maximize", False)
            plain = not amsgrad and not maximize
            if plain and foreach is not False and multi_tensor.adam_step(self, group, decoupled, foreach is None):
                continue  # done on the group's flat arrays, with the same numbers as the loop below
            lr, (beta1, beta2), eps, weight_decay = group["lr"], group["betas"], group["eps"], group["weight_decay"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                g = -p.grad.data if maximize else p.grad.data
                data = p.data
                state = self.state.get(p)
                xp = backends.module_of(data)
                if state is None:  # moments live where the parameter lives (NumPy or CuPy)
                    state = {"step": 0, "exp_avg": xp.zeros_like(data), "exp_avg_sq": xp.zeros_like(data)}
                    if amsgrad:
                        state["max_exp_avg_sq"] = xp.zeros_like(data)
                    self.state[p] = state
                state["step"] += 1
                t = state["step"]
                kernels = backends.kernels_for(data)  # None on the CPU
                if kernels is not None and g.dtype == data.dtype and plain:
                    # On a GPU the whole update below is one CUDA kernel (minitorch.cuda.kernels)
                    # instead of about a dozen launches and four temporaries.
                    decay = 1 - lr * weight_decay if decoupled else 1.0
                    coupled = 0.0 if decoupled else weight_decay
                    step_size, bias2 = lr / (1 - beta1**t), math.sqrt(1 - beta2**t)
                    m, v = state["exp_avg"], state["exp_avg_sq"]
                    kernels.adam_step(data, m, v, g, step_size, beta1, beta2, eps, coupled, decay, bias2)
                    p._bump_version()  # p changed in place: a graph that saved it is now stale
                    continue
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
                    v = state.setdefault("max_exp_avg_sq", xp.zeros_like(data))
                    xp.maximum(v, state["exp_avg_sq"], out=v)
                denom = xp.sqrt(v)
                denom /= math.sqrt(1 - beta2**t)
                denom += eps
                update = m / denom
                update *= step_size
                data -= update
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
