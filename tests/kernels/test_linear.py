"""``kernels/cpu/linear.py``: Linear's products as single BLAS calls and its bias gradient as ones @ g."""

import numpy as np
import pytest
from kernel_harness import check_kernel

import minitorch
from minitorch.errors import MiniTorchError
from minitorch.kernels.cpu.linear import BLAS


def _t(rng, shape, dtype=np.float32, grad=True):
    return minitorch.tensor(rng.standard_normal(shape).astype(dtype), requires_grad=grad)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("x_shape", [(1, 6), (7, 6), (64, 6), (2, 5, 6), (3, 2, 4, 6), (6,), (0, 6)])
@pytest.mark.parametrize("bias", [True, False])
def test_linear_kernel_is_the_op(rng, x_shape, dtype, bias):
    b = _t(rng, (4,), dtype) if bias else None
    check_kernel(BLAS, _t(rng, x_shape, dtype), _t(rng, (4, 6), dtype), b)


def test_a_non_contiguous_input_and_only_some_gradients(rng):
    x = _t(rng, (6, 5)).T  # (5, 6), a transposed view
    check_kernel(BLAS, x, _t(rng, (4, 6)), _t(rng, (4,), grad=False))
    check_kernel(BLAS, _t(rng, (3, 5, 6), grad=False), _t(rng, (4, 6)), _t(rng, (4,)))
    check_kernel(BLAS, _t(rng, (3, 5, 6)), _t(rng, (4, 6), grad=False), None)


def test_the_predicate_declines_float16_and_mixed_dtypes(rng):
    x, w, b = (rng.standard_normal(s).astype(np.float32) for s in ((3, 6), (4, 6), (4,)))
    assert BLAS.applies(x, w, b) and BLAS.applies(x, w, None)
    assert not BLAS.applies(x.astype(np.float16), w.astype(np.float16), b.astype(np.float16))  # the op widens
    assert not BLAS.applies(x, w.astype(np.float64), None)
    assert not BLAS.applies(x, w, b.astype(np.float64))


def test_linear_refuses_a_bias_of_another_dtype_as_pytorch():
    x, w = minitorch.ones(2, 3), minitorch.ones(4, 3)
    with pytest.raises(MiniTorchError, match="bias dtype minitorch.float64 and input dtype minitorch.float32"):
        minitorch.nn.functional.linear(x, w, minitorch.ones(4, dtype=minitorch.float64))


@pytest.mark.parametrize("x_shape", [(7, 6), (2, 5, 6)])
def test_given_buffers_the_functions_write_into_them_with_the_same_bits(rng, x_shape):
    # what a compiled step does (jit/kernels.py): the same calls into arrays made once
    from minitorch.kernels.cpu import linear

    x, w, b = (rng.standard_normal(s).astype(np.float32) for s in (x_shape, (4, 6), (4,)))
    g = rng.standard_normal((*x_shape[:-1], 4)).astype(np.float32)
    rows = int(np.prod(x_shape[:-1]))
    cases = [
        (linear.linear_forward, (x, w, b), {}, np.empty((*x_shape[:-1], 4), np.float32)),
        (linear.linear_grad_x, (g, w), {}, np.empty(x_shape, np.float32)),
        (linear.linear_grad_weight, (g, x), {}, np.empty((4, 6), np.float32)),
        (linear.linear_grad_bias, (g,), {"ones": np.ones(rows, np.float32)}, np.empty(4, np.float32)),
    ]
    for function, args, extra, out in cases:
        result = function(*args, **extra, out=out)
        assert result is out or result.base is out  # (sum_leading gives a view of it)
        assert out.tobytes() == function(*args).tobytes(), function.__name__
