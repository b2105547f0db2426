"""Lesson 14's checks: loss scaling by hand and the dynamic scale rule, with hints naming the mistake.

    check_function("loss scaling step", scaled_step_runs(scaled_step), scaled_step_runs(reference_scaled_step),
                   cases=SCALED_STEP_CASES, compare=scaled_step_hint, describe=describe_scaled_step)
    check_function("scale update rule", update_rule_outcomes(update_scale),
                   update_rule_outcomes(reference_update_scale), cases=UPDATE_RULE_CASES,
                   compare=update_rule_hint, describe=describe_update_rule)

``scaled_step_runs(step_fn)`` trains a small fresh model for a few steps with ``step_fn``,
one loss scale per step, and records after each step whether it was taken, every
gradient and every parameter. ``scaled_step_hint`` compares two such records step by step
and says what went wrong first: the loss not scaled (gradients flushed to zero), the
gradients not unscaled (``scale`` times too large), a step taken on inf/NaN gradients, a
clean step skipped. ``update_rule_hint`` does the same for one call of the scale rule.
"""

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import minitorch
from minitorch import nn, optim
from minitorch.nn import functional as F
from minitorch.tensor import Tensor
from widgets.check.check_result import format_value
from widgets.check.mistakes import constant_factor
from widgets.i18n import _

# step(model, xb, yb, optimizer, scale) -> True when the step was taken, False when skipped
ScaledStep = Callable[[nn.Module, Tensor, Tensor, optim.Optimizer, float], Any]
SMALLEST_NORMAL = 2.0**-14  # float16's smallest normal number, 6.1e-5; below it, fewer digits, then 0


# ---------------------------------------------------------------------- exercise 1: one scaled step
def reference_scaled_step(model: nn.Module, xb: Tensor, yb: Tensor, optimizer: optim.Optimizer, scale: float) -> bool:
    """Scale the loss, backward, unscale the gradients, step unless one is inf/NaN; True if stepped."""
    optimizer.zero_grad()
    with minitorch.autocast("cpu"):
        loss = F.cross_entropy(model(xb), yb)
    (loss * scale).backward()
    grads = [p.grad for p in model.parameters() if p.grad is not None]
    for g in grads:
        g /= scale
    if not all(np.isfinite(g.numpy()).all() for g in grads):
        return False
    optimizer.step()
    return True


class StepRecord:
    """What one step left behind: whether it was taken, the gradients and the parameters."""

    def __init__(self, scale: float, stepped: Any, grads: list[np.ndarray | None], params: list[np.ndarray]) -> None:
        self.scale = scale
        self.stepped = stepped
        self.grads = grads
        self.params = params

    def __repr__(self) -> str:
        if isinstance(self.stepped, (bool, np.bool_)):
            return _("taken") if self.stepped else _("skipped")
        return _("returned {value}", value=format_value(self.stepped))


def _batch(size: int = 32, seed: int = 0) -> tuple[Tensor, Tensor]:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((size, 64)).astype(np.float32)
    y = rng.integers(0, 10, size)
    return minitorch.tensor(x), minitorch.tensor(y)


# what a case does to the fresh model or the batch before its steps
TINY_GRADIENTS = "tiny gradients"          # last layer shrunk: the first layer's gradients underflow in float16
LARGE_ACTIVATIONS = "large activations"    # hidden bias +100: only parameter 2's gradient overflows, to inf (no NaN)
NAN_IN_BATCH = "a NaN in the batch"        # one input is NaN: every gradient is NaN (no inf)


def scaled_step_runs(step_fn: ScaledStep) -> Callable[..., list[StepRecord]]:
    """``run(scales, lr, setup)``: ``step_fn`` on a fresh 64-16-10 model, one step per scale.

    ``setup`` is "" or one of the constants above. ``TINY_GRADIENTS`` shrinks the last
    layer's weights 100,000 times, so that without loss scaling many of the first layer's
    gradients underflow in float16. ``LARGE_ACTIVATIONS`` makes the hidden layer's outputs
    about 100, so that at 2^16 the second weight's gradient alone overflows to inf while
    every other gradient, and the first parameter's, stays finite: a test for NaN only, or
    of the first parameter only, takes that step. ``NAN_IN_BATCH`` gives NaN gradients and
    no inf: a test for inf only takes that step.
    """
    def run(scales: Sequence[float], lr: float, setup: str | bool = "") -> list[StepRecord]:
        setup = TINY_GRADIENTS if setup is True else setup
        minitorch.manual_seed(0)
        model = nn.Sequential(nn.Linear(64, 16), nn.ReLU(), nn.Linear(16, 10))
        with minitorch.no_grad():
            if setup == TINY_GRADIENTS:
                model[2].weight *= 1e-5
            elif setup == LARGE_ACTIVATIONS:
                model[0].bias += 100.0
        optimizer = minitorch.optim.SGD(model.parameters(), lr=lr)
        records: list[StepRecord] = []
        for i, scale in enumerate(scales):
            xb, yb = _batch(seed=i)
            if setup == NAN_IN_BATCH:
                xb = minitorch.tensor(np.where(np.arange(xb.numel()).reshape(xb.shape) == 5, np.nan, xb.numpy()))
            stepped = step_fn(model, xb, yb, optimizer, scale)
            grads = [None if p.grad is None else p.grad.numpy().copy() for p in model.parameters()]
            params = [p.detach().numpy().copy() for p in model.parameters()]
            records.append(StepRecord(scale, stepped, grads, params))
        return records
    return run


SCALED_STEP_CASES = [
    ([1024.0, 2.0**16], 0.1),                   # ordinary steps
    ([2.0**16, 2.0**30, 2.0**16], 0.1),         # 2**30 makes a gradient overflow: that step is skipped
    ([2.0**16, 2.0**16], 0.1, TINY_GRADIENTS),  # tiny gradients: they need the scale to survive float16
    ([2.0**16, 2.0**8], 0.1, LARGE_ACTIVATIONS),  # at 2**16 only parameter 2's gradient is inf: skipped
    ([2.0**16], 0.1, NAN_IN_BATCH),             # NaN gradients, no inf: skipped
]


def describe_scaled_step(args: tuple[Any, ...]) -> str:
    """The table's name for one case: its scales, as powers of 2, and its setup."""
    scales = ", ".join(f"2^{int(np.log2(s))}" for s in args[0])
    setup = TINY_GRADIENTS if len(args) > 2 and args[2] is True else (args[2] if len(args) > 2 else "")
    shown = {TINY_GRADIENTS: _("tiny gradients"), LARGE_ACTIVATIONS: _("large activations"),
             NAN_IN_BATCH: _("a NaN in the batch")}.get(setup, setup)  # the constants are the cases' keys
    return _("scales {scales}, {setup}", scales=scales, setup=shown) if setup else _("scales {scales}", scales=scales)


def _grad_hint(where: str, got: list[np.ndarray | None], expected: list[np.ndarray | None], scale: float,
               skipped: bool = False) -> str | None:
    """Why the gradients after a step differ (None when they match); ``skipped``: both runs skipped it."""
    for k, (g, e) in enumerate(zip(got, expected)):
        if e is None:
            continue
        if g is None:
            return _("{where}: parameter {k} has no gradient: did backward() run?", where=where, k=k)
        if g.shape != e.shape:
            return _("{where}: parameter {k}'s gradient has shape {got}, expected {expected}", where=where, k=k,
                     got=g.shape, expected=e.shape)
        both = np.isfinite(g) & np.isfinite(e)
        if np.array_equal(np.isfinite(g), np.isfinite(e)) and np.allclose(g[both], e[both], rtol=1e-3, atol=1e-9):
            continue
        flushed = (g == 0) & (e != 0)
        if flushed.any():
            return _("{where}: {n} gradients of parameter {k} are 0 where they should not be: "
                     "they underflowed in float16. Multiply the loss by the scale before backward()", where=where,
                     n=int(flushed.sum()), k=k)
        c = constant_factor(g[both], e[both], rtol=1e-3, atol=1e-12)
        if c is not None and np.isclose(c, scale, rtol=1e-3) and skipped:
            return _("{where}: skipped, rightly, but the gradients left in p.grad are still multiplied by the scale "
                     "({scale:g}): you tested for inf/NaN before unscaling. Unscale first (step 2), then test "
                     "(step 3): the unscaled gradients are what the step would use", where=where, scale=scale)
        if c is not None and np.isclose(c, scale, rtol=1e-3):
            return _("{where}: the gradients are still multiplied by the scale ({scale:g}): divide every "
                     "p.grad by it (unscale) before the optimizer step", where=where, scale=scale)
        if c is not None and np.isclose(c, scale * scale, rtol=1e-3):
            return _("{where}: the gradients are scale² ({square:g}) times too large: to unscale, divide "
                     "them by the scale (p.grad /= scale); you multiplied them by it", where=where,
                     square=scale * scale)
        if c is not None and np.isclose(c, 1 / scale, rtol=1e-3):
            return _("{where}: the gradients are {scale:g} times too small: multiply the loss by the scale "
                     "before backward(), once, and divide the gradients by it once (did you unscale twice?)",
                     where=where, scale=scale)
        wrong = ~np.isclose(g, e, rtol=1e-3, atol=1e-9) & both
        if wrong.any() and np.all(np.abs(e[wrong]) < SMALLEST_NORMAL):
            return _("{where}: the gradients that differ are all below {smallest:.2g}, where float16 keeps "
                     "fewer digits (subnormal numbers): was the loss multiplied by the scale before backward()?",
                     where=where, smallest=SMALLEST_NORMAL)
        with np.errstate(invalid="ignore", over="ignore"):  # inf - inf: no RuntimeWarning for the learner
            differences = np.abs(g - e)
        finite = differences[np.isfinite(differences)]
        if not finite.size:  # np.nanmax would warn "All-NaN slice encountered" to the learner
            return _("{where}: parameter {k}'s gradient is inf/NaN where the reference's is not", where=where, k=k)
        return _("{where}: parameter {k}'s gradient differs from the reference (largest difference "
                 "{largest:.3g})", where=where, k=k, largest=float(finite.max()))
    return None


def scaled_step_hint(got: list[StepRecord], expected: list[StepRecord]) -> tuple[bool, str]:
    """``compare`` for ``check_function``: the first step where the learner's run differs, and why."""
    if len(got) != len(expected):
        return False, _("{got} steps recorded, expected {expected}", got=len(got), expected=len(expected))
    for i, (g, e) in enumerate(zip(got, expected), 1):
        where = _("step {i} (scale {scale:g})", i=i, scale=e.scale)
        if not isinstance(g.stepped, (bool, np.bool_)):
            return False, _("{where}: return True when the step was taken, False when it was skipped; "
                            "got {value}", where=where, value=format_value(g.stepped))
        hint = _grad_hint(where, g.grads, e.grads, e.scale, skipped=not e.stepped and not g.stepped)
        if hint:
            return False, hint
        params_same = all(np.array_equal(a, b, equal_nan=True) for a, b in zip(g.params, e.params))
        if not e.stepped and (g.stepped or not params_same):
            return False, _("{where}: {missed}, yet the step was taken: "
                            "check every gradient with np.isfinite(p.grad.numpy()).all() and skip optimizer.step() "
                            "(return False) if one is not", where=where, missed=_missed_nonfinite(e.grads))
        if e.stepped and not g.stepped:
            return False, _("{where}: skipped (returned False) although every gradient was finite: skip only "
                            "when some gradient is inf or NaN", where=where)
        if not all(np.allclose(a, b, rtol=1e-5, atol=1e-7) for a, b in zip(g.params, e.params)):
            return False, _("{where}: the gradients are right but the parameters differ: call optimizer.step() "
                            "once, after unscaling", where=where)
    return True, ""


def _missed_nonfinite(grads: list[np.ndarray | None]) -> str:
    """Which non-finite values a skipped step had, as a learner's test might miss them: inf only, NaN only, ..."""
    bad = [k for k, g in enumerate(grads) if g is not None and not np.isfinite(g).all()]
    has_inf = any(np.isinf(g).any() for g in grads if g is not None)
    has_nan = any(np.isnan(g).any() for g in grads if g is not None)
    text = _("the gradients held inf/NaN")
    if has_inf and not has_nan:
        text = _("the gradients held inf, and no NaN (np.isnan misses inf: np.isfinite catches both)")
    elif has_nan and not has_inf:
        text = _("the gradients held NaN, and no inf (np.isinf misses NaN: np.isfinite catches both)")
    if bad and 0 not in bad:
        text = _("{held}, only in parameter(s) {params}, not in parameter 0 (test every gradient)", held=text,
                 params=", ".join(map(str, bad)))
    return text


# ---------------------------------------------------------------------- exercise 2: the scale rule
def reference_update_scale(scale: float, growth_tracker: int, found_inf: bool, growth_factor: float = 2.0,
                           backoff_factor: float = 0.5, growth_interval: int = 2000) -> tuple[float, int]:
    """GradScaler.update's rule: back off after inf/NaN, grow after ``growth_interval`` clean steps."""
    if found_inf:
        return scale * backoff_factor, 0
    growth_tracker += 1
    if growth_tracker == growth_interval:
        return scale * growth_factor, 0
    return scale, growth_tracker


class Outcome:
    """One call of an update rule: its arguments (for the hints) and what it returned."""

    def __init__(self, args: tuple[Any, ...], value: Any, grows_at_2000: bool = False) -> None:
        self.args = args
        self.value = value
        self.grows_at_2000 = grows_at_2000  # grew on clean step 2000 although growth_interval is not 2000

    def __repr__(self) -> str:
        return format_value(self.value)


def update_rule_outcomes(rule: Callable[..., Any]) -> Callable[..., Outcome]:
    """``run(scale, tracker, found_inf, growth_interval, growth_factor, backoff_factor)`` -> ``Outcome``."""
    def run(scale: float, tracker: int, found_inf: bool, growth_interval: int, growth_factor: float = 2.0,
            backoff_factor: float = 0.5) -> Outcome:
        value = rule(scale, tracker, found_inf, growth_factor=growth_factor, backoff_factor=backoff_factor,
                     growth_interval=growth_interval)
        grows_at_2000 = False
        if growth_interval != 2000:  # a probe for a rule that wrote PyTorch's default 2000 instead of the argument
            try:
                probe = rule(scale, 1999, False, growth_factor=growth_factor, backoff_factor=backoff_factor,
                             growth_interval=growth_interval)
                grows_at_2000 = isinstance(probe, tuple) and len(probe) == 2 and probe[0] > scale
            except Exception:  # the probe only sharpens a hint; the real call above is what is judged
                pass
        return Outcome((scale, tracker, found_inf, growth_interval, growth_factor, backoff_factor), value,
                       grows_at_2000)
    return run


UPDATE_RULE_CASES = [
    (65536.0, 0, True, 2000),       # inf: back off
    (65536.0, 7, True, 2000),       # inf after 7 clean steps: back off and restart the count
    (65536.0, 7, False, 2000),      # a clean step: count it
    (1024.0, 1, False, 3),          # the 2nd clean step of 3: not yet
    (1024.0, 2, False, 3),          # the 3rd clean step of 3: grow, restart the count
    (1024.0, 0, False, 1),          # growth_interval 1: grow after every clean step
    (100.0, 4, False, 5, 4.0, 0.25),  # other factors
    (100.0, 4, True, 5, 4.0, 0.25),
]


def describe_update_rule(args: tuple[Any, ...]) -> str:
    """The table's name for one case of the scale rule."""
    scale, tracker, found_inf, interval = args[:4]
    factors = _(", factors {growth:g}/{backoff:g}", growth=args[4], backoff=args[5]) if len(args) > 4 else ""
    if found_inf:
        return _("scale {scale:g}, tracker {tracker}, inf, interval {interval}{factors}", scale=scale, tracker=tracker,
                 interval=interval, factors=factors)
    return _("scale {scale:g}, tracker {tracker}, clean, interval {interval}{factors}", scale=scale, tracker=tracker,
             interval=interval, factors=factors)


def update_rule_hint(got: Outcome, expected: Outcome) -> tuple[bool, str]:
    """``compare`` for ``check_function``: which part of the rule a wrong (scale, tracker) breaks."""
    scale, tracker, found_inf, interval, growth, backoff = expected.args
    if not isinstance(got.value, tuple) or len(got.value) != 2:
        return False, _("return a tuple (new_scale, new_growth_tracker), got {value}", value=format_value(got.value))
    (got_scale, got_tracker), (want_scale, want_tracker) = got.value, expected.value
    if (got_scale, got_tracker) == (want_tracker, want_scale) and want_tracker != want_scale:
        return False, _("returned (tracker, scale): the order is (new_scale, new_growth_tracker), as the "
                        "function's name and GradScaler keep them")
    if not np.isclose(got_scale, want_scale) and got.grows_at_2000 and want_scale > scale:
        return False, _("did not grow after {interval} clean steps, but grows after 2000: use the "
                        "growth_interval argument ({interval} here), not the number 2000", interval=interval)
    if not np.isclose(got_scale, want_scale):
        return False, _scale_hint(got_scale, want_scale, scale, tracker, found_inf, interval, growth, backoff)
    if got_tracker != want_tracker:
        if found_inf:
            return False, _("after an inf/NaN step the tracker restarts at 0, got {got}", got=got_tracker)
        if want_scale != scale:
            return False, _("after growing, the tracker restarts at 0 (the next growth needs {interval} new clean "
                            "steps), got {got}", interval=interval, got=got_tracker)
        return False, _("a clean step adds one to the tracker: expected {expected}, got {got}", expected=want_tracker,
                        got=got_tracker)
    return True, ""


def _scale_hint(got: float, want: float, scale: float, tracker: int, found_inf: bool, interval: int, growth: float,
                backoff: float) -> str:
    if found_inf:
        if np.isclose(got, scale):
            return _("kept the scale after an inf/NaN step: multiply it by backoff_factor")
        if np.isclose(got, scale * 0.5) and backoff != 0.5:
            return _("halved the scale: use backoff_factor ({backoff:g}), not 0.5", backoff=backoff)
        if got > scale:
            return _("grew the scale after an inf/NaN step: an inf/NaN step backs off (scale * backoff_factor)")
    else:
        if np.isclose(got, scale * backoff) or np.isclose(got, scale * 0.5):
            return _("shrank the scale on a clean step (found_inf is False): back off only after an inf/NaN "
                     "step")
        if np.isclose(want, scale) and got > scale:
            return _("grew before growth_interval clean steps in a row: this is clean step {step} of "
                     "{interval}; grow only when the tracker, counting this step, reaches growth_interval",
                     step=tracker + 1, interval=interval)
        if np.isclose(got, scale) and want > scale:
            return _("did not grow although this is clean step {interval} of {interval} in a row: add this step "
                     "to the tracker first, then compare it with growth_interval", interval=interval)
        if np.isclose(got, scale * 2) and growth != 2:
            return _("doubled the scale: use growth_factor ({growth:g}), not 2", growth=growth)
    return _("new scale {got:g}, expected {expected:g}", got=got, expected=want)
