"""check_backward / check_function: right code passes, wrong code fails with the right hint."""

import numpy as np
import pytest

import minitorch
from minitorch.autograd import Function
from minitorch.functions import MatMul, Mul, Sum, unbroadcast
from widgets import check_backward, check_function, lesson_score
from widgets.check import scoreboard

BROADCAST = [((3,), (3,)), ((3, 1), (1, 4)), ((2, 3), (3,))]


def mul_backward(ctx, grad):
    a, b = ctx.saved_tensors
    return unbroadcast(grad * b, a.shape), unbroadcast(grad * a, b.shape)


@pytest.fixture(autouse=True)
def _fresh_scoreboard():
    scoreboard.reset()


def test_right_backward_passes():
    result = check_backward(Mul, mul_backward, shapes=BROADCAST)
    assert result.passed and result.status == "passed"
    assert len(result.rows) == 6 and all(r.ok for r in result.rows)
    assert max(r.error_fd for r in result.rows) < 1e-6
    assert max(r.error_ref for r in result.rows) == 0
    assert not Mul.backward_overridden  # install=False: the reference stays


def test_unreduced_broadcast_fails_with_the_broadcast_hint():
    def no_reduce(ctx, grad):
        a, b = ctx.saved_tensors
        return grad * b, grad * a

    result = check_backward(Mul, no_reduce, shapes=BROADCAST)
    assert result.status == "failed" and not result
    bad = [r for r in result.rows if not r.ok]
    assert {r.case for r in bad} == {"(3, 1) & (1, 4)", "(2, 3) & (3,)"}
    assert all("did you reduce the broadcast dimensions?" in r.hint for r in bad)
    assert [r.ok for r in result.rows if r.case == "(3,) & (3,)"] == [True, True]


@pytest.mark.parametrize(
    "wrong, hint",
    [
        (lambda ctx, g: tuple(-x for x in mul_backward(ctx, g)), "sign is flipped"),
        (lambda ctx, g: mul_backward(ctx, np.ones_like(g)), "multiply by grad_output"),
        (lambda ctx, g: mul_backward(ctx, g)[::-1], "another input's gradient"),
        (lambda ctx, g: mul_backward(ctx, g)[0], "return one per input"),
        (lambda ctx, g: (None, None), "returned None for input 0"),
        (lambda ctx, g: tuple(x * 2 for x in mul_backward(ctx, g)), "twice the right values"),
        (lambda ctx, g: tuple(x + 1 for x in mul_backward(ctx, g)), "differ from the true derivative everywhere"),
        (lambda ctx, g: None, "forget `return`"),
        (lambda ctx, g: tuple(x.astype(np.float32) for x in mul_backward(ctx, g)), "keep the input's dtype"),
        (lambda ctx, g: tuple(x * np.nan for x in mul_backward(ctx, g)), "contains NaN or Inf"),
    ],
)
def test_wrong_backwards_get_specific_hints(wrong, hint):
    result = check_backward(Mul, wrong, shapes=[((4,), (4,))])
    assert result.status == "failed"
    assert hint in result.rows[0].hint


def test_learner_exception_is_shown_not_raised():
    def crashing(ctx, grad):
        a, b = ctx.saved_tensors
        return a.transpose(5), b

    result = check_backward(Mul, crashing, shapes=[((3,), (3,))])
    assert result.status == "failed"
    assert "AxisError" in result.error or "ValueError" in result.error
    assert "return a.transpose(5), b" in result.error  # the learner's line
    assert "return a.transpose(5), b" in result._repr_html_()


def test_not_implemented_is_not_done_and_reference_stays():
    def todo(ctx, grad):
        raise NotImplementedError()

    result = check_backward(Mul, todo, install=True)
    assert result.status == "not done"
    assert "reference" in result.note and not Mul.backward_overridden


def test_install_keeps_a_passing_backward_and_refuses_a_failing_one():
    result = check_backward(Mul, mul_backward, install=True)
    assert result.passed and Mul.backward_overridden and "Installed" in result.note
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    (x * x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 4.0])
    failing = check_backward(Mul, lambda ctx, g: mul_backward(ctx, 2 * g), install=True)
    assert not failing.passed and not Mul.backward_overridden and "Not installed" in failing.note


def test_non_elementwise_ops_and_extra_args():
    assert check_backward(MatMul, None, shapes=[((2, 3), (3, 4)), ((3,), (3, 2))]).passed
    assert check_backward(Sum, None, shapes=[(3, 4)], args=((1,), False)).passed


def test_learners_own_function_and_plain_functions():
    class Cube(Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a**3

        @staticmethod
        def backward(ctx, grad):
            (a,) = ctx.saved_tensors
            return 3 * a * a * grad

    assert check_backward(Cube).passed

    class BadCube(Cube):
        @staticmethod
        def backward(ctx, grad):
            (a,) = ctx.saved_tensors
            return 2 * a * grad

    assert check_backward(BadCube).status == "failed"
    assert check_backward(lambda a, b: (a * b).tanh(), shapes=BROADCAST).passed


def test_html_is_deterministic_and_has_the_table():
    first = check_backward(Mul, mul_backward, shapes=BROADCAST)._repr_html_()
    second = check_backward(Mul, mul_backward, shapes=BROADCAST)._repr_html_()
    assert first == second
    assert "<table" in first and "error vs finite diff" in first and "0x" not in first


def test_check_function_and_scoreboard():
    ok = check_function("broadcast shape", minitorch.broadcast_shape, minitorch.broadcast_shape,
                        [((3, 1), (1, 5)), ((2, 3), (3,))])
    assert ok.passed and len(ok.rows) == 2

    def wrong_shape(a, b):
        return tuple(max(x, y) for x, y in zip(a, b))

    bad = check_function("broadcast shape v2", wrong_shape, minitorch.broadcast_shape,
                         [((3, 1), (1, 5)), ((2, 3), (3,))])
    assert bad.status == "failed" and [r.ok for r in bad.rows] == [True, False]

    def todo(*args):
        raise NotImplementedError

    assert check_function("todo", todo, minitorch.broadcast_shape, [((1,), (1,))]).status == "not done"
    board = lesson_score(["broadcast shape", "broadcast shape v2", "todo", "never tried"])
    assert (board.count("passed"), board.count("failed"), board.count("not done")) == (1, 1, 2)
    assert "1 of 4 exercises passed" in board._repr_html_()


def test_check_function_with_fresh_arguments_for_mutating_code():
    def make():
        return (np.array([1.0, 2.0]),)

    def double_in_place(a):
        a *= 2
        return a

    result = check_function("in place", double_in_place, lambda a: a * 2, [make])
    assert result.passed
