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
        # foreach: accepted as PyTorch's (a speed setting); the update is the same either way.
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
            ("weight_decay", "weight_decay"),
            ("alpha", "alpha"),
        ):
            group[key] = check_non_negative("RMSprop", key, group[key], f"{label} value")
        return group

    def _update(self) -> None:
        """One update of every parameter that has a gradient."""
        for group in self.param_groups:
            lr, alpha, eps = group["lr"], group["alpha"], group["eps"]
            weight_decay, momentum, centered = group["weight_decay"], group["momentum"], group["centered"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                g, data = (-p.grad.data if group["maximize"] else p.grad.data), p.data
                xp = backends.module_of(data)
                state = self.state.get(p)
                if state is None:  # buffers live where the parameter lives, arrays even for a 0-d p
                    state = self.state[p] = {"step": 0, "square_avg": xp.zeros_like(data)}
                state["step"] += 1
                if weight_decay:
                    g = g + weight_decay * data
                square_avg = state["square_avg"]
                square_avg *= alpha
                square_avg += (1 - alpha) * (g * g)
                if centered:
                    grad_avg = state.setdefault("grad_avg", xp.zeros_like(data))
                    grad_avg += (1 - alpha) * (g - grad_avg)  # PyTorch's lerp: a running mean of g
                    avg = xp.sqrt(square_avg - grad_avg * grad_avg)
                else:
                    avg = xp.sqrt(square_avg)
                avg = avg + eps
                if momentum > 0:
                    buf = state.setdefault("momentum_buffer", xp.zeros_like(data))
                    buf *= momentum
                    buf += g / avg
                    data -= lr * buf
                else:
                    data -= lr * (g / avg)
                p._bump_version()  # p changed in place: a graph that saved it is now stale
