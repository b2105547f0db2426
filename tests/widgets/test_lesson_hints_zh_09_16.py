"""Lessons 09-16's hints in Chinese: with set_language("zh") a typical wrong answer of each lesson file
gets a Chinese hint that still names the same code as the English one.

One wrong answer per file of ``widgets/lessons`` (lesson09_conv_parts ... lesson16_replay); each test
also asserts the English hint, so a hint that went through ``_()`` is known to switch languages.
"""

import re

import numpy as np
import pytest

import minitorch
import widgets
from widgets import check_function, i18n
from widgets.check import scoreboard
from widgets.check.outcome import Outcome, keep_inputs
from widgets.lessons import lesson09_conv_parts as conv_parts
from widgets.lessons import lesson10_cuda_c as cuda_c
from widgets.lessons import lesson11_nonfinite as nonfinite
from widgets.lessons import lesson12_recurrent as recurrent
from widgets.lessons import lesson13_attention as attention
from widgets.lessons import lesson14_loss_scaling as loss_scaling
from widgets.lessons import lesson15_data_parallel as data_parallel
from widgets.lessons import lesson16_replay as replay

CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture(autouse=True)
def _english_after(monkeypatch):
    """Each test starts in English (no language chosen, MINITORCH_LANG unset) and ends in English."""
    monkeypatch.delenv("MINITORCH_LANG", raising=False)
    monkeypatch.setattr(i18n, "_chosen", None)
    scoreboard.reset()
    try:
        yield
    finally:
        widgets.set_language("en")
        monkeypatch.setattr(i18n, "_chosen", None)


def in_both(make_hint):
    """``make_hint()`` in English, then in Chinese: (english, chinese)."""
    english = make_hint()
    widgets.set_language("zh")
    chinese = make_hint()
    widgets.set_language("en")
    return english, chinese


def assert_chinese(english, chinese, *names):
    assert not CJK.search(english), english
    assert CJK.search(chinese), chinese
    for name in names:
        assert name in english and name in chinese, (name, english, chinese)


def failed_hints(result):
    return " | ".join(r.hint for r in result.rows if not r.ok)


def test_lesson09_bias_summed_over_the_filters():
    def grad_b(g):
        return g.sum(axis=1)  # the wrong axis

    def check():
        return failed_hints(check_function("conv2d grad_b", grad_b, conv_parts.reference_grad_b,
                                           conv_parts.cases("b"), compare=conv_parts.compare_grad_b,
                                           describe=conv_parts.describe("b")))
    english, chinese = in_both(check)
    assert "you summed over the filters" in english
    assert_chinese(english, chinese, "axis=1", "axis=0")


def test_lesson09_case_names_and_the_assembled_conv_hint():
    args = conv_parts.cases("x")[0]
    english, chinese = in_both(lambda: conv_parts.describe("x")(args))
    assert english.startswith("x (1, 1, 5, 5), w (2, 1, 3, 3), stride (2, 2), padding (1, 1)")
    assert_chinese(english, chinese, "(1, 1, 5, 5)", "(2, 1, 3, 3)")
    rng = np.random.default_rng(0)
    x, w, b = rng.standard_normal((1, 2, 5, 5)), rng.standard_normal((3, 2, 3, 3)), rng.standard_normal(3)
    grad_output = rng.standard_normal((1, 3, 3, 3))
    english, chinese = in_both(lambda: conv_parts.conv_mistakes(1, np.zeros_like(w), [x, w, b], grad_output))
    assert english.startswith("the weight gradient is wrong")
    assert_chinese(english, chinese, "conv_grad_w", "conv2d grad_w")


def test_lesson10_python_in_a_kernel_body():
    def message():
        with pytest.raises(cuda_c.KernelSyntaxError) as caught:
            cuda_c.run_kernel_body("y = x if x > 0 else 0", np.zeros(3, np.float32))
        return str(caught.value)
    english, chinese = in_both(message)
    assert english.startswith("'if' is Python, not CUDA C")
    assert_chinese(english, chinese, "'if'", "CUDA C", "'condition ? a : b'", "'y = x > (T)0 ? x : (T)0'")


def test_lesson11_inf_missed_by_isnan():
    t = minitorch.tensor(np.array([1.0, np.inf]))
    pairs = [("p0", t)]
    english, chinese = in_both(lambda: nonfinite.nonfinite_hint(Outcome((pairs,), []), Outcome((pairs,), ["p0"]))[1])
    assert "holds inf (no NaN) and was missed" in english
    assert_chinese(english, chinese, "p0", "np.isnan", "np.isfinite")


def test_lesson12_rnn_cell_without_the_recurrent_term():
    rng = np.random.default_rng(0)
    x, h, W_ih, W_hh, b = (rng.standard_normal(s) for s in [(2, 3), (2, 4), (4, 3), (4, 4), (4,)])

    def wrong_cell(x, h, W_ih, W_hh, b):
        return np.tanh(x @ W_ih.T + b)

    def right_cell(x, h, W_ih, W_hh, b):
        return np.tanh(x @ W_ih.T + h @ W_hh.T + b)

    args = (x, h, W_ih, W_hh, b)
    english, chinese = in_both(lambda: recurrent.rnn_cell_hint(keep_inputs(wrong_cell)(*args),
                                                                keep_inputs(right_cell)(*args))[1])
    assert "the recurrent term is missing" in english
    assert_chinese(english, chinese, "h @ W_hh.T")


def test_lesson13_mask_above_the_diagonal():
    T = 4
    english, chinese = in_both(lambda: attention.mask_hint(np.triu(np.ones((T, T), dtype=bool)),
                                                           attention.reference_mask(T))[1])
    assert english.startswith("True above the diagonal")
    assert_chinese(english, chinese, "np.tril", "s <= t")


def test_lesson14_fixed_growth_factor_and_the_case_names():
    def fixed_factors(scale, tracker, found_inf, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000):
        return loss_scaling.reference_update_scale(scale, tracker, found_inf, 2.0, 0.5, growth_interval)

    def check():
        result = check_function("scale update rule", loss_scaling.update_rule_outcomes(fixed_factors),
                                loss_scaling.update_rule_outcomes(loss_scaling.reference_update_scale),
                                cases=loss_scaling.UPDATE_RULE_CASES, compare=loss_scaling.update_rule_hint,
                                describe=loss_scaling.describe_update_rule)
        return failed_hints(result) + " || " + result.rows[-1].case
    english, chinese = in_both(check)
    assert "doubled the scale: use growth_factor (4), not 2" in english
    assert english.endswith("scale 100, tracker 4, inf, interval 5, factors 4/0.25")
    assert_chinese(english, chinese, "growth_factor", "backoff_factor", "4/0.25")
    assert "growth_factor（4）" in chinese and "因子 4/0.25" in chinese


def test_lesson15_summed_but_not_divided():
    def summed(comm, grads):
        return [comm.allreduce(g) for g in grads]

    def check():
        return failed_hints(check_function("gradient averaging", data_parallel.averaging_on_ranks(summed),
                                           data_parallel.averaging_on_ranks(data_parallel.reference_average),
                                           cases=[(2,), (3,)], compare=data_parallel.averaging_hint))
    english, chinese = in_both(check)
    assert "forgot to divide by the world size" in english
    assert_chinese(english, chinese, "comm.size = 2", "comm.size = 3")


def test_lesson16_replay_returning_none():
    def forgets_return(recording, inputs):
        replay.reference_replay(recording, inputs)

    def check():
        result = check_function("replay loop", replay.replay_runs(forgets_return),
                                replay.replay_runs(replay.reference_replay), cases=replay.REPLAY_CASES,
                                compare=replay.replay_hint, describe=replay.describe_replay_case)
        return failed_hints(result) + " || " + result.rows[0].case
    english, chinese = in_both(check)
    assert english.startswith("returned None: return the output buffer")
    assert english.endswith("mlp forward, replayed twice")
    assert_chinese(english, chinese, "buffers[recording.output]")
