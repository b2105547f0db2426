"""Lesson 14's checks: the right answers pass, and each typical wrong answer gets a hint naming it."""

import numpy as np
import pytest

import minitorch
from minitorch.nn import functional as F
from widgets import check_function
from widgets.check import scoreboard
from widgets.lessons import lesson14_loss_scaling as ls


@pytest.fixture(autouse=True)
def _fresh():
    scoreboard.reset()


def hints(result):
    return " | ".join(r.hint for r in result.rows if not r.ok)


# ---------------------------------------------------------------------- exercise 1
def make_step(scale_loss=True, unscale=True, skip=True, step_first=False, skip_always=False):
    def step(model, xb, yb, optimizer, scale):
        optimizer.zero_grad()
        with minitorch.autocast("cpu"):
            loss = F.cross_entropy(model(xb), yb)
        (loss * scale if scale_loss else loss).backward()
        grads = [p.grad for p in model.parameters()]
        if step_first:
            optimizer.step()
        if unscale:
            for g in grads:
                g /= scale
        finite = all(np.isfinite(g.numpy()).all() for g in grads)
        if skip_always or (skip and not finite):
            return False
        if not step_first:
            optimizer.step()
        return True
    return step


def check_step(step_fn):
    return check_function("loss scaling step", ls.scaled_step_runs(step_fn),
                          ls.scaled_step_runs(ls.reference_scaled_step), cases=ls.SCALED_STEP_CASES,
                          compare=ls.scaled_step_hint, describe=ls.describe_scaled_step)


def test_right_step_passes_and_the_table_says_which_steps_were_skipped():
    result = check_step(make_step())
    assert result.passed, result
    assert "taken, skipped, taken" in repr(result.rows[1].cells["got"])


@pytest.mark.parametrize("mistake, words", [
    (dict(unscale=False), "still multiplied by the scale"),
    (dict(skip=False), "yet the step was taken"),
    (dict(skip_always=True), "although every gradient was finite"),
    (dict(scale_loss=False, unscale=False), "underflowed in float16"),
    (dict(scale_loss=False), "times too small"),
    (dict(step_first=True), "the parameters differ"),
])
def test_wrong_steps_are_named(mistake, words):
    result = check_step(make_step(**mistake))
    assert not result.passed
    assert words in hints(result), hints(result)


def test_unfinished_step_is_not_done():
    def unfinished(model, xb, yb, optimizer, scale):
        raise NotImplementedError()
    assert check_step(unfinished).status == "not done"


# ---------------------------------------------------------------------- exercise 2
def check_rule(rule):
    return check_function("scale update rule", ls.update_rule_outcomes(rule),
                          ls.update_rule_outcomes(ls.reference_update_scale), cases=ls.UPDATE_RULE_CASES,
                          compare=ls.update_rule_hint, describe=ls.describe_update_rule)


def halves_on_clean(scale, tracker, found_inf, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000):
    return scale * backoff_factor, 0


def grows_early(scale, tracker, found_inf, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000):
    if found_inf:
        return scale * backoff_factor, 0
    tracker += 1
    if tracker >= growth_interval - 1:
        return scale * growth_factor, 0
    return scale, tracker


def grows_late(scale, tracker, found_inf, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000):
    if found_inf:
        return scale * backoff_factor, 0
    if tracker == growth_interval:  # compared before counting this step
        return scale * growth_factor, 0
    return scale, tracker + 1


def keeps_tracker_on_inf(scale, tracker, found_inf, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000):
    if found_inf:
        return scale * backoff_factor, tracker
    return ls.reference_update_scale(scale, tracker, found_inf, growth_factor, backoff_factor, growth_interval)


def keeps_counting_after_growth(scale, tracker, found_inf, growth_factor=2.0, backoff_factor=0.5,
                                growth_interval=2000):
    new_scale, new_tracker = ls.reference_update_scale(scale, tracker, found_inf, growth_factor, backoff_factor,
                                                       growth_interval)
    return new_scale, tracker + 1 if new_scale > scale else new_tracker


def fixed_factors(scale, tracker, found_inf, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000):
    return ls.reference_update_scale(scale, tracker, found_inf, 2.0, 0.5, growth_interval)


def returns_a_list(*args, **kwargs):
    return list(ls.reference_update_scale(*args, **kwargs))


def test_right_rule_passes_and_matches_grad_scaler():
    assert check_rule(ls.reference_update_scale).passed
    scaler = minitorch.amp.GradScaler("cpu", init_scale=1024.0, growth_interval=3)
    p = minitorch.nn.Parameter(minitorch.ones(1))
    opt = minitorch.optim.SGD([p], lr=0.0)
    scale, tracker = 1024.0, 0
    for found_inf in [False, False, False, True, False, False, True, False, False, False, False]:
        opt.zero_grad()
        scaler.scale(p.sum() * (float("inf") if found_inf else 1.0)).backward()
        scaler.step(opt)
        scaler.update()
        scale, tracker = ls.reference_update_scale(scale, tracker, found_inf, growth_interval=3)
        assert scaler.get_scale() == scale and scaler.state_dict()["_growth_tracker"] == tracker


@pytest.mark.parametrize("rule, words", [
    (halves_on_clean, "shrank the scale on a clean step"),
    (grows_early, "grew before growth_interval clean steps"),
    (grows_late, "did not grow although this is clean step"),
    (keeps_tracker_on_inf, "after an inf/NaN step the tracker restarts at 0"),
    (keeps_counting_after_growth, "after growing, the tracker restarts at 0"),
    (fixed_factors, "use growth_factor (4)"),
    (returns_a_list, "return a tuple"),
])
def test_wrong_rules_are_named(rule, words):
    result = check_rule(rule)
    assert not result.passed
    assert words in hints(result), hints(result)
