"""RMSprop: divide each step by a running root-mean-square of the gradients, as PyTorch computes it.

Per parameter, at every step::

    g = grad + weight_decay * p
    square_avg = alpha * square_avg + (1 - alpha) * g * g     running mean of g**2
    avg = sqrt(square_avg) + eps
        centered: grad_avg = alpha * grad_avg + (1 - alpha) * g   (running mean of g)
                  avg = sqrt(square_avg - grad_avg**2) + eps     (a running standard deviation)
    buf = momentum * buf + g / avg;  p = p - lr * buf    with momentum
    p = p - lr * g / avg                                 without

A parameter whose gradients are large and noisy takes small steps, one whose gradients are
small and steady takes larger ones: each weight gets its own step size.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from minitorch import backends
from minitorch.optim.optimizer import Optimizer, check_non_negative
from minitorch.tensor import Tensor


class RMSprop(Optimizer):
    """``RMSprop(params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False)``; maximize too."""

    # momentum_buffer (momentum > 0) and grad_avg (centered) are made when first needed
    state_keys = ("step", "square_avg")

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-2,
        alpha: float = 0.99,
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum: float = 0,
        centered: bool = False,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        # foreach: PyTorch's choice of implementation (Optimizer._choose_kernel), with the same
        # numbers either way.
        defaults = dict(
            lr=lr,
            alpha=alpha,
            eps=eps,
            weight_decay=weight_decay,
            momentum=momentum,
            centered=centered,
            capturable=capturable,
            foreach=foreach,
            maximize=maximize,
            differentiable=differentiable,
        )
        super().__init__(params, defaults)

    def _check_hyperparameters(self, group: dict[str, Any]) -> dict[str, Any]:
        """lr, eps, momentum, weight_decay and alpha >= 0 (NaN refused), as PyTorch checks them."""
        super()._check_hyperparameters(group)
        for key, label in (
            ("eps", "epsilon"),
            ("momentum", "momentum"),
            ("alpha", "alpha"),
        ):
            group[key] = check_non_negative("RMSprop", key, group[key], f"{label} value")
        return group

    def _init_state(self, p: Tensor, group: dict[str, Any], state: dict[str, Any]) -> None:
        """Step 0 and the running mean of g**2 at zero (centered: of g too; momentum: a buffer), where p lives."""
        if not state:
            state.update(step=0, square_avg=backends.module_of(p.data).zeros_like(p.data))
        if group["centered"] and "grad_avg" not in state:
            state["grad_avg"] = backends.module_of(p.data).zeros_like(p.data)
        if group["momentum"] > 0 and "momentum_buffer" not in state:
            state["momentum_buffer"] = backends.module_of(p.data).zeros_like(p.data)

    def _update_parameter(self, p: Tensor, grad: Any, state: dict[str, Any], group: dict[str, Any]) -> None:
        """One RMSprop step of ``p``: the formula at the top of this file, line by line."""
        lr, alpha, eps, momentum = group["lr"], group["alpha"], group["eps"], group["momentum"]
        weight_decay = group["weight_decay"]
        xp = backends.module_of(p.data)
        g = -grad if group["maximize"] else grad
        state["step"] += 1
        if weight_decay:
            g = g + weight_decay * p.data
        square_avg = state["square_avg"]  # the buffers are updated in place: they are the state
        square_avg *= alpha  # square_avg = alpha * square_avg + (1 - alpha) * g * g
        square_avg += (1 - alpha) * (g * g)
        if group["centered"]:
            grad_avg = state["grad_avg"]
            grad_avg += (1 - alpha) * (g - grad_avg)  # PyTorch's lerp: a running mean of g
            avg = xp.sqrt(square_avg - grad_avg * grad_avg) + eps
        else:
            avg = xp.sqrt(square_avg) + eps
        if momentum > 0:
            buf = state["momentum_buffer"]
            buf *= momentum  # buf = momentum * buf + g / avg
            buf += g / avg
            p.data -= lr * buf
        else:
            p.data -= lr * (g / avg)
