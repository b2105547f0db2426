"""Lesson 17's parts and checks (widgets/lessons/lesson17_*.py), outside the notebook.

The wrong answers through the lesson's own cells are the hint table's (tests/lessons/
test_hint_table.py); here: the parts themselves are right (TanhGrad's double backward passes
gradcheck and gradgradcheck, parts.Tanh's second derivative is tanh's), each check's hint for
a typical mistake switches to Chinese and still names the same code, and the reference side
of every check holds the values its hints compare with.
"""

import re

import numpy as np
import pytest

import minitorch
import widgets
from minitorch import autograd
from widgets import check_backward, check_function, i18n
from widgets.check import scoreboard
from widgets.lessons import lesson17_higher_order as parts
from widgets.lessons import lesson17_penalty as wgan

CJK = re.compile(r"[\u4e00-\u9fff]")
F64 = minitorch.float64


@pytest.fixture(autouse=True)
def _english_after(monkeypatch):
    """Each test starts in English with no installed backward, and ends so."""
    monkeypatch.delenv("MINITORCH_LANG", raising=False)
    monkeypatch.setattr(i18n, "_chosen", None)
    scoreboard.reset()
    try:
        yield
    finally:
        widgets.set_language("en")
        monkeypatch.setattr(i18n, "_chosen", None)
        autograd.restore_backward()


def in_both(make_hint):
    """``make_hint()`` in English, then in Chinese."""
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


def first_hint(result):
    return next(r.hint for r in result.rows if not r.ok)


def test_tanh_grad_is_tanhs_double_backward_and_differentiates_once_more():
    x = minitorch.tensor([0.3, -1.2, 0.5, 2.0], dtype=F64, requires_grad=True)
    g = minitorch.tensor([1.0, -0.5, 2.0, 0.25], dtype=F64, requires_grad=True)
    assert autograd.gradcheck(parts.TanhGrad.apply, (x, g))
    assert autograd.gradgradcheck(parts.TanhGrad.apply, (x, g))  # the third derivative of tanh
    assert autograd.gradgradcheck(parts.Tanh.apply, (x,))
    (first,) = autograd.grad(parts.Tanh.apply(x).sum(), x, create_graph=True)
    (second,) = autograd.grad(first.sum(), x)
    t = np.tanh(x.detach().numpy())
    np.testing.assert_allclose(first.detach().numpy(), 1 - t * t, rtol=1e-12)
    np.testing.assert_allclose(second.numpy(), -2 * t * (1 - t * t), rtol=1e-12)
    # first order: the backward hands the engine an array, as every op does
    y = parts.Tanh.apply(x).sum()
    y.backward()
    assert isinstance(x.grad.data, np.ndarray)


def test_double_backward_hint_in_chinese():
    def forgets_g(ctx, grad_output):
        x, g = ctx.saved_tensors
        t = np.tanh(x)
        return grad_output * (-2 * t * (1 - t * t)), grad_output * (1 - t * t)

    english, chinese = in_both(lambda: first_hint(check_backward(
        parts.TanhGrad, forgets_g, shapes=parts.TANH_GRAD_SHAPES, mistakes=parts.double_backward_mistakes)))
    assert english.startswith("d/dx of g * (1 - tanh(x)**2) keeps the factor g")
    assert_chinese(english, chinese, "g * (1 - tanh(x)**2)")


def test_hvp_hint_in_chinese_and_the_reference_knows_the_wrong_answers():
    def times_ones(f, x, v):
        (g,) = autograd.grad(f(x), x, create_graph=True)
        (h,) = autograd.grad(g.sum(), x)
        return h

    def check():
        return first_hint(check_function("Hessian-vector product", parts.hvp_runs(times_ones),
                                         parts.hvp_runs(parts.reference_hvp), cases=parts.HVP_CASES,
                                         compare=parts.hvp_hint, describe=parts.describe_case))
    english, chinese = in_both(check)
    assert english.startswith("that is H times a vector of ones")
    assert_chinese(english, chinese, "(g * v).sum()")
    reference = parts.hvp_runs(parts.reference_hvp)("quadratic")
    assert set(reference.wrong) == {"H ones", "H ones * v", "g * v", "g", "2 H v"}
    f, x, v = parts.hvp_problem("quadratic")
    hessian = autograd.functional.hessian(f, x).numpy()
    np.testing.assert_allclose(reference.value, hessian @ v.numpy(), rtol=1e-12)


def test_penalty_hint_in_chinese():
    def whole_batch(critic, real, fake, eps):
        x_hat = (eps * real + (1 - eps) * fake).requires_grad_()
        (g,) = autograd.grad(critic(x_hat).sum(), x_hat, create_graph=True)
        return ((g * g).sum().sqrt() - 1) ** 2

    def check():
        return first_hint(check_function("gradient penalty", wgan.penalty_runs(whole_batch),
                                         wgan.penalty_runs(wgan.reference_penalty), cases=wgan.PENALTY_CASES,
                                         compare=wgan.penalty_hint, describe=wgan.describe_case))
    english, chinese = in_both(check)
    assert english.startswith("one norm for the whole batch")
    assert_chinese(english, chinese, "dim=1", "(norm - 1)**2")


def test_penalty_without_create_graph_has_the_right_value_and_says_what_is_missing():
    def no_graph(critic, real, fake, eps):
        x_hat = (eps * real + (1 - eps) * fake).requires_grad_()
        (g,) = autograd.grad(critic(x_hat).sum(), x_hat)
        return (((g * g).sum(dim=1).sqrt() - 1) ** 2).mean()

    got = wgan.penalty_runs(no_graph)("critic, 6 points")
    expected = wgan.penalty_runs(wgan.reference_penalty)("critic, 6 points")
    np.testing.assert_allclose(got.value, expected.value, rtol=1e-12)
    ok, hint = wgan.penalty_hint(got, expected)
    assert not ok and "create_graph=True" in hint


def test_jvp_hint_in_chinese_and_the_reference_is_functional_jvp():
    def vjp_instead(f, x, v):
        (g,) = autograd.grad(f(x), x, v)
        return g

    def check():
        return first_hint(check_function("jvp from two vjps", parts.jvp_runs(vjp_instead),
                                         parts.jvp_runs(parts.reference_jvp), cases=parts.JVP_CASES[1:],
                                         compare=parts.jvp_hint, describe=parts.describe_case))
    english, chinese = in_both(check)
    assert english.startswith("that is v^T J, a vjp")
    assert_chinese(english, chinese, "J v", "grad_outputs")
    for (case,) in parts.JVP_CASES:
        f, x, v = parts.jvp_problem(case)
        _, expected = autograd.functional.jvp(f, x, v)
        np.testing.assert_allclose(parts.jvp_runs(parts.reference_jvp)(case).value, expected.numpy(), rtol=1e-12)


def test_a_tuple_returned_is_named():
    def tuple_back(f, x, v):
        (g,) = autograd.grad(f(x), x, create_graph=True)
        return autograd.grad((g * v).sum(), x)

    got, expected = parts.hvp_runs(tuple_back)("tanh layer"), parts.hvp_runs(parts.reference_hvp)("tanh layer")
    ok, hint = parts.hvp_hint(got, expected)
    assert not ok and hint.startswith("returned a tuple of 1") and "(g,) = autograd.grad" in hint


def test_gradient_norms_is_the_slope_at_each_interpolate():
    minitorch.manual_seed(0)
    critic = wgan.Critic(dtype=F64)
    real, fake = (minitorch.tensor(a, dtype=F64) for a in wgan.ring_and_blob(5, np.random.default_rng(0)))
    eps = minitorch.tensor(np.full((5, 1), 0.5), dtype=F64)
    norms = wgan.gradient_norms(critic, real, fake, eps)
    penalty = wgan.reference_penalty(critic, real, fake, eps)
    assert norms.shape == (5,)
    np.testing.assert_allclose(((norms - 1) ** 2).mean(), penalty.item(), rtol=1e-12)
