"""Lesson 07's hints for ``SGD.step`` and ``Adam.step``: which wrong update rule the learner wrote.

    check_function("SGD.step", keep_inputs(lambda s: trajectory(MySGD, s)),
                   keep_inputs(lambda s: trajectory(optim.SGD, s)), cases=..., compare=sgd_hint(trajectory, NAMES))

The check compares the parameters after every step of a short run. When they differ, the
hint replays the same run with each usual mistake (the momentum buffer started at zero,
the bias correction left out, ...) and, when the learner's run is one of them, names that
mistake and the right formula. Otherwise it falls back to the first step and value that differ.
``keep_grads`` is the run's guard: ``step()`` may change ``p.data`` only, never ``p.grad``.
"""

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from minitorch import optim
from widgets.check.mistakes import trajectory_compare
from widgets.check.outcome import Outcome
from widgets.i18n import _

Rule = Callable[[np.ndarray, np.ndarray, dict, dict], None]


def _sgd_rule(
    buffer_start: str = "grad",
    dampen: str = "never",
    decay: str = "before",
    sign: float = -1.0,
    step_with: str = "buffer",
    use_lr: bool = True,
) -> Rule:
    """An SGD update ``rule(p, g, state, group)``, PyTorch's by default, one setting changed for a mistake."""

    def rule(p: np.ndarray, g: np.ndarray, state: dict, group: dict) -> None:
        lr, momentum, wd = group["lr"], group["momentum"], group["weight_decay"]
        decayed = {"before": g + wd * p, "minus": g - wd * p, "none": g, "after": g}[decay]
        update = decayed
        if momentum:
            if "buf" not in state:
                state["buf"] = (
                    np.zeros_like(g)
                    if buffer_start == "zeros"
                    else ((1 - momentum) * decayed if dampen == "always" else decayed.copy())
                )
            else:
                state["buf"] = momentum * state["buf"] + ((1 - momentum) * decayed if dampen != "never" else decayed)
            update = state["buf"] if step_with == "buffer" else decayed
        if decay == "after":
            update = update + wd * p
        p += sign * (lr if use_lr else 1.0) * update

    return rule


def _adam_rule(
    correct_m: bool = True,
    correct_v: bool = True,
    eps_inside: bool = False,
    square: bool = True,
    swap_betas: bool = False,
    t_from_zero: bool = False,
    decay: str = "grad",
    use_sqrt: bool = True,
    sign: float = -1.0,
) -> Rule:
    """An Adam update ``rule(p, g, state, group)``, PyTorch's by default, one setting changed for a mistake."""

    def rule(p: np.ndarray, g: np.ndarray, state: dict, group: dict) -> None:
        lr, (beta1, beta2), eps, wd = group["lr"], group["betas"], group["eps"], group["weight_decay"]
        t = state.get("step", 0) + (0 if t_from_zero else 1)
        state["step"] = state.get("step", 0) + 1
        if decay == "grad":
            g = g + wd * p
        m, v = state.get("m", np.zeros_like(p)), state.get("v", np.zeros_like(p))
        new = g * g if square else g
        if swap_betas:
            m, v = (1 - beta1) * m + beta1 * g, (1 - beta2) * v + beta2 * new
        else:
            m, v = beta1 * m + (1 - beta1) * g, beta2 * v + (1 - beta2) * new
        state["m"], state["v"] = m, v
        with np.errstate(all="ignore"):  # t = 0 divides by zero, g instead of g*g takes a negative's root
            m_hat = m / (1 - beta1**t) if correct_m else m
            v_hat = v / (1 - beta2**t) if correct_v else v
            size = np.sqrt(v_hat + eps) if eps_inside else (np.sqrt(v_hat) if use_sqrt else v_hat) + eps
            p += sign * lr * m_hat / size
        if decay == "decoupled":
            p -= lr * wd * p

    return rule


def _optimizer(rule: Rule, defaults: dict) -> type:
    """An ``optim.Optimizer`` whose ``step()`` applies ``rule`` to every parameter with a gradient."""

    class Wrong(optim.Optimizer):
        def __init__(self, params: Any, **settings: Any) -> None:
            super().__init__(params, {**defaults, **settings})

        def step(self) -> None:  # type: ignore[override]  # as the lesson's MySGD: no closure
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        rule(p.data, p.grad.data.copy(), self.state.setdefault(p, {}), group)

    return Wrong


SGD_DEFAULTS = {"momentum": 0.0, "weight_decay": 0.0}


def sgd_mistakes() -> list[tuple[Rule, str]]:
    """The wrong SGD rules and their hints, in the current language."""
    return [
        (
            _sgd_rule(buffer_start="zeros"),
            _(
                "the momentum buffer starts as zeros, so the first step does not move: "
                "on the first step the buffer is the gradient itself (b = g), after that b = momentum * b + g"
            ),
        ),
        *[
            (
                _sgd_rule(dampen=when),
                _(
                    "the buffer is an average, b = momentum * b + (1 - momentum) * g: PyTorch's SGD adds "
                    "the whole gradient, b = momentum * b + g (b = g on the first step)"
                ),
            )
            for when in ("always", "later")
        ],
        (_sgd_rule(step_with="grad"), _("the momentum buffer is updated but not used: step with it, p = p - lr * b")),
        (_sgd_rule(decay="none"), _("weight decay is missing: add it to the gradient first, g = g + weight_decay * p")),
        (
            _sgd_rule(decay="minus"),
            _("weight decay has the wrong sign: g = g + weight_decay * p (it pulls p towards 0)"),
        ),
        (
            _sgd_rule(decay="after"),
            _(
                "weight decay is added after the momentum buffer: add it to the gradient first, "
                "g = g + weight_decay * p, then b = momentum * b + g"
            ),
        ),
        (_sgd_rule(sign=1.0), _("the step goes uphill: p = p - lr * g (minus: against the gradient)")),
        (_sgd_rule(use_lr=False), _("the learning rate is missing: p = p - lr * g")),
    ]


ADAM_DEFAULTS = {"lr": 1e-3, "betas": (0.9, 0.999), "eps": 1e-8, "weight_decay": 0.0}


def adam_mistakes() -> list[tuple[Rule, str]]:
    """The wrong Adam rules and their hints, in the current language."""
    return [
        (
            _adam_rule(correct_m=False, correct_v=False),
            _(
                "no bias correction: m_hat = m / (1 - beta1 ** t) and "
                "v_hat = v / (1 - beta2 ** t), then p = p - lr * m_hat / (sqrt(v_hat) + eps)"
            ),
        ),
        (_adam_rule(correct_m=False), _("m is not bias-corrected: m_hat = m / (1 - beta1 ** t)")),
        (_adam_rule(correct_v=False), _("v is not bias-corrected: v_hat = v / (1 - beta2 ** t)")),
        (
            _adam_rule(t_from_zero=True),
            _(
                "the bias correction used t = 0 (1 - beta ** 0 = 0): add 1 to state['step'] "
                "first, so the first step has t = 1"
            ),
        ),
        (_adam_rule(eps_inside=True), _("eps is inside the square root: p = p - lr * m_hat / (sqrt(v_hat) + eps)")),
        (_adam_rule(use_sqrt=False), _("the square root is missing: p = p - lr * m_hat / (sqrt(v_hat) + eps)")),
        (_adam_rule(square=False), _("v must average the squared gradient: v = beta2 * v + (1 - beta2) * g * g")),
        (
            _adam_rule(swap_betas=True),
            _("beta and 1 - beta are swapped: m = beta1 * m + (1 - beta1) * g, v = beta2 * v + (1 - beta2) * g * g"),
        ),
        (
            _adam_rule(decay="none"),
            _("weight decay is missing: add it to the gradient first, g = g + weight_decay * p"),
        ),
        (
            _adam_rule(decay="decoupled"),
            _(
                "weight decay is applied to p after the step (that is AdamW): Adam adds it to "
                "the gradient first, g = g + weight_decay * p"
            ),
        ),
        (_adam_rule(sign=1.0), _("the step goes uphill: p = p - lr * m_hat / (sqrt(v_hat) + eps)")),
    ]


def keep_grads(step: int, params: dict[str, Any], grads: dict[str, np.ndarray]) -> None:
    """Raise ValueError when ``step()`` changed a parameter's ``.grad`` (``grads``: copies from before the step)."""
    for name, p in params.items():
        if not np.array_equal(p.grad.data, grads[name], equal_nan=True):  # a NaN step is not a change
            raise ValueError(_("step {step} changed {name}.grad in place: compute on a new array (g = g + ..., not "
                               "g += ...) and keep no buffer that is p.grad.data itself", step=step, name=name))


def _same_run(got: Any, wrong: Any) -> bool:
    """True when two histories (one flat array per step) agree, NaN matching NaN."""
    if got is None or len(got) != len(wrong):
        return False
    return all(
        np.shape(g) == np.shape(w)
        and np.allclose(np.asarray(g, dtype=float), np.asarray(w, dtype=float), rtol=1e-5, atol=1e-6, equal_nan=True)
        for g, w in zip(got, wrong)
    )


def optimizer_hint(
    trajectory: Callable[[type, dict], list],
    mistakes: Callable[[], list[tuple[Rule, str]]],
    defaults: dict,
    names: Sequence[str],
) -> Callable[[Outcome, Outcome], tuple[bool, str]]:
    """``compare`` for runs kept with their settings: names the mistake whose replay the learner's run equals."""
    positional = trajectory_compare(names)

    def compare(got: Outcome, expected: Outcome) -> tuple[bool, str]:
        ok, hint = positional(got.value, expected.value)
        if ok:
            return ok, hint
        (settings,) = expected.args
        for rule, text in mistakes():  # built now, so the hints follow set_language
            try:
                wrong = trajectory(_optimizer(rule, defaults), settings)
            except (ValueError, FloatingPointError):
                continue
            if _same_run(got.value, wrong) and not _same_run(wrong, expected.value):
                return False, text
        return False, hint

    return compare


def sgd_hint(trajectory: Callable[[type, dict], list], names: Sequence[str]) -> Callable[..., tuple[bool, str]]:
    """The ``compare`` of lesson 07's SGD check."""
    return optimizer_hint(trajectory, sgd_mistakes, SGD_DEFAULTS, names)


def adam_hint(trajectory: Callable[[type, dict], list], names: Sequence[str]) -> Callable[..., tuple[bool, str]]:
    """The ``compare`` of lesson 07's Adam check."""
    return optimizer_hint(trajectory, adam_mistakes, ADAM_DEFAULTS, names)
