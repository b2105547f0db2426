"""``kernels/cpu/normalization.py``: LayerNorm and BatchNorm with xhat kept (and BLAS sums), against the ops."""

import numpy as np
import pytest
from kernel_harness import check_kernel

import minitorch
from minitorch.kernels.cpu.normalization import BATCH_NORM, LAYER_NORM


def _t(rng, shape, dtype=np.float32, grad=True, scale=1.0, shift=0.0):
    data = rng.standard_normal(shape) * scale + shift
    return minitorch.tensor(data.astype(dtype), requires_grad=grad)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape, k", [((4, 16), 1), ((1, 8), 1), ((2, 5, 128), 1), ((3, 4, 6), 2), ((0, 8), 1)])
@pytest.mark.parametrize("affine", ["both", "weight", "none"])
def test_layer_norm_kernel_is_the_op(rng, shape, k, dtype, affine):
    normalized = shape[len(shape) - k :]
    weight = _t(rng, normalized, dtype, shift=1.0) if affine != "none" else None
    bias = _t(rng, normalized, dtype) if affine == "both" else None
    check_kernel(LAYER_NORM, _t(rng, shape, dtype, scale=3.0, shift=2.0), weight, bias, k, 1e-5)


def test_layer_norm_on_a_transposed_input_with_some_gradients(rng):
    x = _t(rng, (16, 5)).T  # (5, 16), not contiguous: the sums fall back to NumPy's
    check_kernel(LAYER_NORM, x, _t(rng, (16,), grad=False), _t(rng, (16,)), 1, 1e-5)
    check_kernel(LAYER_NORM, _t(rng, (3, 16), grad=False), _t(rng, (16,)), None, 1, 1e-5)


def _stats(c, dtype=np.float32):
    return minitorch.tensor(np.linspace(-1, 1, c).astype(dtype)), minitorch.tensor(np.linspace(0.5, 2, c).astype(dtype))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(8, 3), (4, 3, 5), (2, 3, 4, 4), (0, 3)])
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_kernel_is_the_op(rng, shape, dtype, training):
    c = shape[1]
    stat = (1, c) + (1,) * (len(shape) - 2)
    weight, bias = _t(rng, stat, dtype, shift=1.0), _t(rng, stat, dtype)
    running_mean, running_var = _stats(c, dtype)
    x = _t(rng, shape, dtype, scale=2.0, shift=1.0)
    check_kernel(BATCH_NORM, x, weight, bias, running_mean, running_var, training, 0.1, 1e-5)


def test_batch_norm_without_affine_parameters_or_running_statistics(rng):
    x = _t(rng, (6, 4, 3))
    check_kernel(BATCH_NORM, x, None, None, None, None, True, 0.1, 1e-5)
    running_mean, running_var = _stats(4)
    check_kernel(BATCH_NORM, x, None, None, running_mean, running_var, False, 0.1, 1e-5)


def test_batch_norm_kernel_updates_the_running_statistics_as_the_op(rng):
    x = _t(rng, (8, 3, 2))
    results = []
    for fast in (False, True):
        running_mean, running_var = _stats(3)
        with minitorch.kernels.use_fast_kernels(fast):
            minitorch.functions.BatchNorm.apply(x, None, None, running_mean, running_var, True, 0.1, 1e-5)
        results.append((running_mean.numpy(), running_var.numpy()))
    np.testing.assert_array_equal(results[0][0], results[1][0])
    np.testing.assert_array_equal(results[0][1], results[1][1])


def test_the_predicates_decline_float16():
    half = np.zeros((2, 4), np.float16)
    assert not LAYER_NORM.applies(half, None, None, 1, 1e-5)
    assert not BATCH_NORM.applies(half, None, None, None, None, True, 0.1, 1e-5)
    assert LAYER_NORM.applies(half.astype(np.float32), None, None, 1, 1e-5)
