"""Lessons 01-08's own hints speak Chinese after ``set_language("zh")`` and still name the same code.

One wrong answer per hint module (widgets/lessons/lesson01-08), each hint asked for in Chinese:
it must contain Chinese characters and the code names the English hint names (a translation
must never drop ``strides[k]`` or ``grad_output / b``). The English hints are the hint table's
(tests/lessons/test_hint_table.py).
"""

import re

import numpy as np
import pytest

import widgets
from minitorch import nn
from minitorch.functions import Div, unbroadcast
from minitorch.tensor import Tensor
from widgets import check_backward, i18n
from widgets.check import scoreboard
from widgets.check.outcome import Outcome
from widgets.lessons import (
    lesson01_layout,
    lesson02_chain_rule,
    lesson04_engine,
    lesson05_activations,
    lesson06_log_softmax,
    lesson07_linear,
    lesson08_accumulation,
)

CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture(autouse=True)
def _chinese_then_english(monkeypatch):
    """Each test runs in Chinese; afterwards no language is chosen and fonts are English again."""
    monkeypatch.delenv("MINITORCH_LANG", raising=False)
    monkeypatch.setattr(i18n, "_chosen", None)  # first, so that monkeypatch's undo ends at None, not at "zh"
    scoreboard.reset()
    widgets.set_language("zh")
    try:
        yield
    finally:
        monkeypatch.setattr(i18n, "_chosen", None)
        widgets.style.use_language_fonts("en")
        scoreboard.reset()


def _chinese(hint: str | None, *names: str) -> str:
    assert hint, "no hint"
    assert CJK.search(hint), f"not Chinese: {hint!r}"
    for name in names:
        assert name in hint, f"{name!r} missing from {hint!r}"
    return hint


def test_lesson01_offset_with_the_strides_reversed():
    index, strides = (1, 2), (3, 1)
    ok, hint = lesson01_layout.offset_hint(Outcome((index, strides), 1 * 1 + 2 * 3),
                                           Outcome((index, strides), 1 * 3 + 2 * 1))
    assert not ok
    _chinese(hint, "index[k]", "strides[k]")


def test_lesson01_broadcast_with_max_for_size_0():
    ok, hint = lesson01_layout.broadcast_hint(Outcome(((1, 3), (0, 1)), (1, 3)), Outcome(((1, 3), (0, 1)), (0, 3)))
    assert not ok
    _chinese(hint, "max(size_a, size_b)")


def _div_backward_multiplies(ctx, grad):
    a, b = ctx.saved_tensors
    return unbroadcast(grad * b, np.shape(a)), unbroadcast(-grad * a / (b * b), np.shape(b))


def test_lesson02_div_mistake_through_check_backward():
    result = check_backward(Div, _div_backward_multiplies, shapes=[((3,), (3,))],
                            mistakes=lesson02_chain_rule.div_mistakes)
    hints = [row.hint for row in result.rows if not row.ok]
    assert hints
    _chinese(hints[0], "d(a / b)/da", "1 / b", "grad_output")


def test_lesson02_pow_without_the_factor_b():
    a, b, g = np.array([1.5, 2.0]), np.array([3.0, 0.5]), np.ones(2)
    _chinese(lesson02_chain_rule.pow_mistakes(0, g * a ** (b - 1), [a, b], g), "b * a**(b - 1)")


def test_lesson04_an_old_grad_replaced():
    expected, before = [np.array([3.0, 4.0])], [np.array([1.0, 1.0])]
    ok, hint = lesson04_engine.walk_hint(Outcome((before,), [expected[0] - before[0]]), Outcome((before,), expected))
    assert not ok
    _chinese(hint, "0", ".grad", "leaf.grad + g", "backward()")


def test_lesson05_sigmoid_without_one_minus_out():
    x, g = np.array([-1.0, 0.5, 2.0]), np.array([1.0, 2.0, 3.0])
    out = 1 / (1 + np.exp(-x))
    hint = lesson05_activations.activation_mistakes("sigmoid")(0, g * out, [x], g)
    _chinese(hint, "sigmoid' = out * (1 - out)", "(1 - out)")


def test_lesson06_forward_over_the_wrong_dim_and_backward_without_its_sum():
    x = np.arange(6.0).reshape(2, 3) / 3
    wrong = x - np.log(np.exp(x).sum(axis=0, keepdims=True))
    expected = x - np.log(np.exp(x).sum(axis=1, keepdims=True))
    ok, hint = lesson06_log_softmax.forward_hint(Outcome((x, 1), wrong), Outcome((x, 1), expected))
    assert not ok
    _chinese(hint, "维度 0", "dim（1）")
    softmax = np.exp(expected)
    g = np.ones_like(x)
    _chinese(lesson06_log_softmax.backward_mistakes(1)(0, g - softmax * g, [x], g), "grad_output", "dim")


def test_lesson07_linear_without_its_bias():
    layer = nn.Linear(3, 2)
    x = Tensor(np.arange(6.0).reshape(2, 3))
    w, b = layer.weight.detach().numpy(), layer.bias.detach().numpy()
    right, missing = x.numpy() @ w.T + b, x.numpy() @ w.T
    ok, hint = lesson07_linear.linear_hint(Outcome((layer, x), [missing]), Outcome((layer, x), [right]))
    assert not ok
    _chinese(hint, "y = x @ weight.T + bias")


def _trajectory(params, returned, k=4, mistakes=None):
    initial = np.zeros(2)
    return lesson08_accumulation.Trajectory(k, returned, [np.asarray(p, dtype=float) for p in params], initial,
                                            mistakes)


def test_lesson08_no_1_over_k_is_named_in_chinese():
    right = _trajectory([[1.0, 1.0], [2.0, 2.0]], [0.5, 0.4])
    no_scale = _trajectory([[4.0, 4.0], [8.0, 8.0]], [2.0, 1.6])
    expected = _trajectory(right.params, right.returned, mistakes={"no 1/k": no_scale})
    ok, hint = lesson08_accumulation.compare(_trajectory(no_scale.params, [0.5, 0.4]), expected)
    assert not ok
    _chinese(hint, "k = 4", "backward()")
    assert "k 倍" in hint
    # the table's case names and values as well
    assert CJK.search(lesson08_accumulation.describe((None, 4, 3, "SGD")))
    assert repr(right) == "2 步，损失 [0.5, 0.4]"


def test_lesson08_training_step_that_never_steps():
    expected = _trajectory([[1.0, 1.0]], [0.5], k=1)
    ok, hint = lesson08_accumulation.training_compare(_trajectory([[0.0, 0.0]], [0.5], k=1), expected)
    assert not ok
    _chinese(hint, "optimizer.step()", "loss.backward()")


def test_english_is_back_after_set_language_en():
    widgets.set_language("en")
    ok, hint = lesson07_linear.linear_hint(*_linear_outcomes())
    assert hint == "the bias is missing: y = x @ weight.T + bias"


def _linear_outcomes():
    layer = nn.Linear(3, 2)
    x = Tensor(np.ones((1, 3)))
    w, b = layer.weight.detach().numpy(), layer.bias.detach().numpy()
    return Outcome((layer, x), [x.numpy() @ w.T]), Outcome((layer, x), [x.numpy() @ w.T + b])
