"""The hint engine: each wrong answer gets a hint that names its mistake (not only "values differ")."""

import json

import numpy as np
import pytest

import minitorch
from minitorch.functions import Amax, Mean, Mul, Pow, Sum, unbroadcast
from widgets import check_backward, check_function, progress
from widgets.check import scoreboard
from widgets.check.mistakes import derivative_hint, factor_hint, trajectory_compare


@pytest.fixture(autouse=True)
def _fresh():
    scoreboard.reset()
    yield
    minitorch.autograd.restore_backward()


def hints(result):
    return " | ".join(r.hint for r in result.rows if not r.ok)


def mul_ignoring_needs(ctx, grad):
    a, b = ctx.saved_tensors
    return unbroadcast(grad * b, a.shape), unbroadcast(grad * a, b.shape)


def mul_right(ctx, grad):
    a, b = ctx.saved_tensors
    need_a, need_b = ctx.needs_input_grad
    return (unbroadcast(grad * b, np.shape(a)) if need_a else None,
            unbroadcast(grad * a, np.shape(b)) if need_b else None)


def test_python_number_operand_needs_none():
    cases = [((4,), (4,)), ((3,), 2.0)]
    assert check_backward(Mul, mul_right, shapes=cases).passed
    crashed = check_backward(Mul, mul_ignoring_needs, shapes=cases)
    assert not crashed.passed and "needs_input_grad" in hints(crashed)

    def pow_ignoring_needs(ctx, grad):
        a, b, out = ctx.saved_tensors
        return grad * b * a ** (b - 1), grad * out * np.log(a)

    result = check_backward(Pow, pow_ignoring_needs, shapes=[((4,), (4,)), ((4,), 3.0)])
    assert not result.passed and "needs_input_grad[1] is False: return None" in hints(result)


def test_ties_catch_first_max_only_and_unsplit():
    ties = np.array([[1.0, 3.0, 3.0, 0.0], [2.0, -1.0, 2.0, 0.5]])

    def unsplit(ctx, grad):
        a, out = ctx.saved_tensors
        return (np.expand_dims(grad, ctx.axes) * (a == out)).astype(a.dtype), None, None

    result = check_backward(Amax, unsplit, shapes=[(3, 4), ties], args=((1,), False))
    assert not result.passed and "ties" in hints(result)


def test_float32_gradient_must_stay_float32():
    def float64_mean(ctx, grad):
        g = np.broadcast_to(np.expand_dims(grad, ctx.axes), ctx.in_shape) / ctx.count
        return np.array(g, dtype=np.float64), None, None

    result = check_backward(Mean, float64_mean, shapes=[(3, 4)], args=((1,), False))
    assert not result.passed and "float32 input: keep the input's dtype" in hints(result)


def test_constant_factor_names_the_number_of_elements():
    def sum_divided(ctx, grad):
        g = np.broadcast_to(np.expand_dims(grad, ctx.axes), ctx.in_shape)
        return g / 4, None, None

    result = check_backward(Sum, sum_divided, shapes=[(3, 4)], args=((1,), False))
    assert "off by exactly 1/4: did you divide by the number of elements" in hints(result)
    assert "off by exactly a factor 12" in factor_hint(np.full(3, 12.0), np.ones(3), sizes=(12,))


def test_stray_axis_and_broadcast_hint_only_for_the_output_shape():
    def not_unpacked(ctx, grad):
        saved = ctx.saved_tensors
        return grad * np.asarray(saved[1:]), grad * np.asarray(saved[:1])

    assert "did you unpack ctx.saved_tensors" in hints(check_backward(Mul, not_unpacked, shapes=[((3,), (3,))]))

    def wrong_shape(ctx, grad):
        return np.ones((7,)), np.ones((7,))

    result = check_backward(Mul, wrong_shape, shapes=[((3, 1), (1, 4))])
    assert "did you reduce" not in hints(result) and "must have that input's shape" in hints(result)

    def unreduced(ctx, grad):
        a, b = ctx.saved_tensors
        return grad * b, grad * a

    assert "did you reduce" in hints(check_backward(Mul, unreduced, shapes=[((3, 1), (1, 4))]))


def test_not_done_names_the_function_and_error_points_at_the_learners_line():
    def my_backward(ctx, grad):
        raise NotImplementedError()

    result = check_backward(Mul, my_backward, shapes=[((3,), (3,))])
    assert result.status == "not done" and "`my_backward` still raises" in result.message

    def broken(ctx, grad):
        return np.linalg.inv(grad)  # NumPy raises; the line shown must be this one

    result = check_backward(Mul, broken, shapes=[((3,), (3,))])
    assert "np.linalg.inv(grad)" in result.error and "linalg.py" not in result.error


def test_function_checker_types_raises_and_generators():
    assert "return a tuple" in hints(check_function("t", lambda: [1, 2], lambda: (1, 2), [()]))
    assert "return a Python number" in hints(
        check_function("f", lambda: minitorch.tensor(1.5), lambda: 1.5, [()]))
    assert "forget `return`" in hints(check_function("n", lambda: None, lambda: 3, [()]))

    def ref(a, b):
        return minitorch.broadcast_shape(a, b)

    ok = check_function("b", ref, ref, [((3,), (4,))], raises=ValueError)
    assert "must raise ValueError" not in hints(ok) and not ok.passed  # MiniTorchError is no ValueError
    silent = check_function("b", lambda a, b: a, ref, [((3,), (4,))], raises=ValueError)
    assert "no error raised" in hints(silent)

    def two_passes(pairs):
        names = [n for n, _ in pairs]
        return names + [n for n, _ in pairs]

    result = check_function("g", two_passes, lambda pairs: [n for n, _ in pairs] * 2,
                            [lambda: (iter([("a", 1)]),)])
    assert "generator" in hints(result) and "single loop" in hints(result)


def test_trajectory_and_derivative_hints():
    compare = trajectory_compare(["w[0]", "b[0]"])
    ok, hint = compare([[1.0, 2.0], [1.5, 2.5]], [[1.0, 2.0], [1.5, 2.4]])
    assert not ok and "step 2, b[0]: got 2.5, expected 2.4" in hint and "steps 1-1 matched" in hint
    assert "sign is flipped" in derivative_hint(-3.0, 3.0)
    assert "divide by 2 * eps" in derivative_hint(6.0, 3.0)
    assert "one-sided" in derivative_hint(3.0 + 3e-4, 3.0)


def test_progress_reads_saved_outputs(tmp_path):
    cell_score = {"cell_type": "code", "source": 'lesson_score(["a", "b", "c"])', "outputs": []}
    out = {"output_type": "execute_result", "data": {"text/plain": "a: PASSED - ok\n  [ok  ] x"}}
    out_b = {"output_type": "execute_result", "data": {"text/plain": ["b: FAILED - 1 of 2"]}}
    cells = [{"cell_type": "code", "source": "check()", "outputs": [out, out_b]}, cell_score]
    (tmp_path / "03_x.ipynb").write_text(json.dumps({"cells": cells}))
    report = progress(tmp_path)
    assert report.lessons == {"03_x": {"a": "passed", "b": "failed", "c": "not done"}}
    assert "1 of 3 exercises passed" in repr(report) and "03_x" in report._repr_html_()


def test_cuda_c_reads_c_and_refuses_python():
    from widgets.lessons.lesson10_cuda_c import KernelSyntaxError, run_kernel_body

    x = np.array([-2.0, 0.0, 3.5], dtype=np.float32)
    for body in ["y = x > (T)0 ? x : (T)0", "y = fmaxf(x, 0.0f);", "y = (fabs(x) + x) / 2", "y = max(x, (T)0)"]:
        got = run_kernel_body(body, x)
        assert got.dtype == np.float32 and got.tolist() == [0.0, 0.0, 3.5], body
    for body, words in [("y = np.maximum(x, 0)", "Python, not C"), ("y = x if x > 0 else 0", "Python, not CUDA C"),
                        ("x > 0 ? x : 0", "must assign"), ("y = foo(x)", "unknown name")]:
        with pytest.raises(KernelSyntaxError, match=words):
            run_kernel_body(body, x)
