"""``kernels/cpu/products.py``: a stack of matrices times one matrix as one product, against MatMul."""

import numpy as np
import pytest
from kernel_harness import check_kernel

import minitorch
from minitorch.kernels.cpu.products import STACKED, stacked_product


def _t(rng, shape, dtype=np.float32, grad=True):
    return minitorch.tensor(rng.standard_normal(shape).astype(dtype), requires_grad=grad)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    "a_shape, b_shape",
    [((2, 3, 4), (4, 5)), ((1, 1, 4), (4, 5)), ((2, 3, 4, 5), (5, 6)), ((4, 7, 8), (8, 1)), ((0, 3, 4), (4, 5)),
     ((2, 3, 0), (0, 5))],  # fmt: skip
)
def test_the_stacked_product_is_matmuls(rng, a_shape, b_shape, dtype):
    check_kernel(STACKED, _t(rng, a_shape, dtype), _t(rng, b_shape, dtype))


@pytest.mark.parametrize("needs", [(True, False), (False, True)])
def test_one_gradient_alone(rng, needs):
    check_kernel(STACKED, _t(rng, (3, 4, 6), grad=needs[0]), _t(rng, (6, 2), grad=needs[1]))


def test_a_transposed_weight_view(rng):
    w = _t(rng, (5, 6))
    check_kernel(STACKED, _t(rng, (2, 3, 6)), w.T)


def test_without_gradients_it_is_the_forward_alone(rng):
    check_kernel(STACKED, _t(rng, (2, 3, 4), grad=False), _t(rng, (4, 5), grad=False))


def test_the_predicate_declines_what_is_not_a_contiguous_float_stack_times_a_matrix(rng):
    a, b = rng.standard_normal((2, 3, 4)).astype(np.float32), rng.standard_normal((4, 5)).astype(np.float32)
    assert STACKED.applies(a, b)
    assert not STACKED.applies(a[0], b)  # a matrix: already one product
    assert not STACKED.applies(a, np.stack([b, b]))  # a stack times a stack
    assert not STACKED.applies(a.transpose(0, 2, 1).copy().transpose(0, 2, 1), b)  # not C-contiguous
    assert not STACKED.applies(a.astype(np.float16), b.astype(np.float16))  # float16: the op widens it
    assert not STACKED.applies(a, b.astype(np.float64))  # mixed dtypes (matmul refuses them)
    assert not STACKED.applies(a.astype(np.int64), b.astype(np.int64))


def test_stacked_product_falls_back_to_matmul_for_anything_else(rng):
    a = rng.standard_normal((2, 4, 3)).astype(np.float32).transpose(0, 2, 1)  # not contiguous
    b = rng.standard_normal((4, 5)).astype(np.float32)
    np.testing.assert_array_equal(stacked_product(a, b), a @ b)
