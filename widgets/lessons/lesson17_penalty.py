"""Lesson 17's WGAN-GP part: a tiny critic, toy data, and the check of the gradient penalty.

    check_function("gradient penalty", penalty_runs(gradient_penalty), penalty_runs(reference_penalty),
                   cases=PENALTY_CASES, compare=penalty_hint, describe=describe_case)

``penalty_runs`` computes the learner's penalty for a fresh float64 critic and backpropagates
it into the critic's weights; ``penalty_hint`` compares the value and those gradients with the
reference and names the usual mistakes (one norm for the whole batch, no square root, no
``- 1``, the interpolation the wrong way round, ``create_graph`` forgotten...).
"""

from collections.abc import Callable
from typing import Any

import numpy as np

import minitorch
from minitorch import autograd, nn
from minitorch.tensor import Tensor
from widgets.i18n import _
from widgets.lessons.lesson17_outcome import (
    F64,
    Outcome,
    as_tensor,
    common_hint,
    grad_error_hint,
    named_wrong,
    outcome_of,
)


class Critic(nn.Module):
    """A tiny WGAN critic for 2-D points: tanh(x @ W1 + b1) @ W2 + b2, one score per point."""

    def __init__(self, hidden: int = 16, dtype: Any = minitorch.float32) -> None:
        super().__init__()
        self.W1 = nn.Parameter((minitorch.randn(2, hidden) * 0.8).to(dtype))
        self.b1 = nn.Parameter(minitorch.zeros(hidden).to(dtype))
        self.W2 = nn.Parameter((minitorch.randn(hidden, 1) * hidden ** -0.5).to(dtype))
        self.b2 = nn.Parameter(minitorch.zeros(1).to(dtype))

    def forward(self, x: Tensor) -> Tensor:
        """Scores of shape (n, 1) for points of shape (n, 2)."""
        return minitorch.tanh(x @ self.W1 + self.b1) @ self.W2 + self.b2


def ring_and_blob(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``n`` real points (a noisy unit circle) and ``n`` fake ones (a blob centred at (2.5, 0)), float32."""
    angle = rng.uniform(0, 2 * np.pi, n)
    real = np.stack([np.cos(angle), np.sin(angle)], axis=1) + rng.normal(0, 0.05, (n, 2))
    fake = rng.normal(0, 0.3, (n, 2)) + np.array([2.5, 0.0])
    return real.astype(np.float32), fake.astype(np.float32)


def _penalty_problem(case: str) -> tuple[Critic, Tensor, Tensor, Tensor]:
    """(critic, real, fake, eps) in float64 for a case ``"critic, N points"``."""
    n = int(case.split(", ")[1].split()[0])
    minitorch.manual_seed(n)
    critic = Critic(dtype=F64)
    rng = np.random.default_rng(n)
    real, fake = ring_and_blob(n, rng)
    eps = rng.uniform(0, 1, (n, 1))
    return critic, as_tensor(real), as_tensor(fake), as_tensor(eps)


PENALTY_CASES = [("critic, 6 points",), ("critic, 32 points",)]


def reference_penalty(critic: Any, real: Tensor, fake: Tensor, eps: Tensor) -> Tensor:
    """mean over the batch of (|d critic / d x_hat| - 1)**2, x_hat = eps real + (1 - eps) fake."""
    x_hat = (eps * real + (1 - eps) * fake).requires_grad_()
    (g,) = autograd.grad(critic(x_hat).sum(), x_hat, create_graph=True)
    norm = (g * g).sum(dim=1).sqrt()
    return ((norm - 1) ** 2).mean()


def _penalty_wrong(critic: Any, real: Tensor, fake: Tensor, eps: Tensor) -> dict[str, Any]:
    """The values of the wrong penalties learners write."""

    def slopes(points: Tensor) -> Tensor:
        points = points.detach().requires_grad_()
        (g,) = autograd.grad(critic(points).sum(), points)
        return g

    g = slopes(eps * real + (1 - eps) * fake)
    squares = (g * g).sum(dim=1)
    norm = squares.sqrt()
    at = {name: ((slopes(p) * slopes(p)).sum(dim=1).sqrt() - 1) ** 2
          for name, p in (("real", real), ("fake", fake), ("reversed", (1 - eps) * real + eps * fake))}
    return {
        "whole batch": (((g * g).sum().sqrt() - 1) ** 2).numpy(),
        "no sqrt": ((squares - 1) ** 2).mean().numpy(),
        "no minus 1": (norm ** 2).mean().numpy(),
        "sum": ((norm - 1) ** 2).sum().numpy(),
        "abs": (norm - 1).abs().mean().numpy(),
        "mean first": ((norm.mean() - 1) ** 2).numpy(),
        "norm over dim 0": (((g * g).sum(dim=0).sqrt() - 1) ** 2).mean().numpy(),
        "reversed": at["reversed"].mean().numpy(),
        "real": at["real"].mean().numpy(),
        "fake": at["fake"].mean().numpy(),
    }


def penalty_runs(penalty_fn: Callable[..., Any]) -> Callable[[str], Outcome]:
    """``run(case)``: the penalty of a fresh critic, and the critic's parameter gradients from its backward."""
    reference = penalty_fn is reference_penalty

    def run(case: str) -> Outcome:
        critic, real, fake, eps = _penalty_problem(case)
        try:
            penalty = penalty_fn(critic, real, fake, eps)
            outcome = outcome_of(penalty)
            if outcome.value is not None and outcome.graph:
                penalty.backward()
                outcome.grads = [None if p.grad is None else p.grad.numpy().copy() for p in critic.parameters()]
        except NotImplementedError:
            raise
        except Exception as exc:
            return Outcome(error=f"{type(exc).__name__}: {exc}")
        if reference:
            outcome.wrong = _penalty_wrong(*_penalty_problem(case))
        return outcome

    return run


def penalty_hint(got: Outcome, expected: Outcome) -> tuple[bool, str]:
    """``compare``: the penalty's value and the critic's gradients, or the mistake named."""
    if got.error:
        if "input 0 does not require grad" in got.error:
            return False, _("x_hat does not require grad, so there is no gradient with respect to it: make it a "
                            "leaf that does, x_hat = (...).requires_grad_()")
        scalar = _("the critic gives one score per point, shape (n, 1): differentiate their sum, "
                   "critic(x_hat).sum() (each score depends on its own point only, so row i of the gradient is "
                   "still the gradient of score i)")
        return False, grad_error_hint(got.error, scalar) or got.error.splitlines()[0]
    common = common_hint(got, expected)
    if common:
        return common
    if np.allclose(got.value, expected.value, rtol=1e-7, atol=1e-10):
        if not got.graph:
            return False, _("the right value, but the critic's weights get no gradient from it: call autograd.grad "
                            "with create_graph=True, so that the penalty can be trained")
        for p, (g, e) in enumerate(zip(got.grads, expected.grads)):
            if e is None and g is None:  # b2: the slopes do not depend on the critic's last bias
                continue
            if g is None or e is None or not np.allclose(g, e, rtol=1e-6, atol=1e-9):
                return False, _("the right value, but the gradient of the critic's parameter {p} differs: build "
                                "the penalty from the gradient autograd.grad(..., create_graph=True) returns, "
                                "without .detach() or .item()", p=p)
        return True, ""
    named = named_wrong(got, expected, {
        "whole batch": _("one norm for the whole batch: the penalty takes each point's own gradient norm, "
                         "sum over dim=1 only, then the mean of (norm - 1)**2"),
        "norm over dim 0": _("the norm is over each point's coordinates, dim=1 (the gradient has shape (n, 2))"),
        "no sqrt": _("(|g|**2 - 1)**2: take the square root of the sum of squares, the norm |g|, before "
                     "subtracting 1"),
        "no minus 1": _("the penalty pulls the norm towards 1: (norm - 1)**2, not norm**2"),
        "sum": _("the sum over the batch: take the mean of (norm - 1)**2"),
        "abs": _("|norm - 1|: WGAN-GP squares it, (norm - 1)**2"),
        "mean first": _("(mean of the norms - 1)**2: square each point's (norm - 1) first, then take the mean"),
        "reversed": _("x_hat = eps * real + (1 - eps) * fake: eps weighs the real point"),
        "real": _("that is the penalty at the real points: take it at the interpolates x_hat between real and fake"),
        "fake": _("that is the penalty at the fake points: take it at the interpolates x_hat between real and fake"),
    })
    return False, named or _("differs from the penalty mean((|d critic(x_hat) / d x_hat| - 1)**2), x_hat = eps * "
                             "real + (1 - eps) * fake")


def gradient_norms(critic: Any, real: Tensor, fake: Tensor, eps: Tensor) -> np.ndarray:
    """Each interpolate's gradient norm |d critic / d x_hat|, as a NumPy array (for the plots)."""
    x_hat = (eps * real + (1 - eps) * fake).requires_grad_()
    (g,) = autograd.grad(critic(x_hat).sum(), x_hat)
    return np.sqrt((g.numpy() ** 2).sum(axis=1))


def describe_case(args: tuple[Any, ...]) -> str:
    """The table's name for a case ``("critic, N points",)``, in the learner's language."""
    return _("a critic on {n} points", n=int(args[0].split(", ")[1].split()[0]))


__all__ = [
    "Critic",
    "PENALTY_CASES",
    "describe_case",
    "gradient_norms",
    "penalty_hint",
    "penalty_runs",
    "reference_penalty",
    "ring_and_blob",
]
