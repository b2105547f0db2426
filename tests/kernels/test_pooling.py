"""The CPU pooling kernels (minitorch/kernels/cpu/pooling.py) against MaxPool2d and AvgPool2d as written."""

import numpy as np
import pytest
from kernel_harness import check_kernel

import minitorch
from minitorch.functions.maxpool import MaxPool2d
from minitorch.functions.pooling import AdaptiveAvgPool2d, AvgPool2d
from minitorch.kernels.cpu.pooling import (
    KEPT_ADAPTIVE_AVG,
    OFFSETS_MAX,
    TILED_MAX,
    VIEW_AVG,
    avg_pool_view_applies,
    max_pool_offsets_applies,
    max_pool_tiled_applies,
)
from minitorch.kernels.registry import kernels_of


def image(rng, shape, dtype=np.float64, relu=False, channels_last=False, grad=True):
    """A tensor of ``shape``: a ReLU's output (many ties at 0) if ``relu``, optionally channels-last memory."""
    x = rng.standard_normal(shape)
    if relu:
        x = np.maximum(x, 0)
    x = x.astype(dtype)
    if channels_last:  # the NCHW view of channels-last memory, as a conv's output is
        x = np.ascontiguousarray(x.transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2)
    return minitorch.tensor(x, requires_grad=grad and x.dtype.kind == "f")


def test_the_tiled_kernel_comes_first():
    assert kernels_of(MaxPool2d) == (TILED_MAX, OFFSETS_MAX)
    assert kernels_of(AvgPool2d) == (VIEW_AVG,)
    assert kernels_of(AdaptiveAvgPool2d) == (KEPT_ADAPTIVE_AVG,)


@pytest.mark.parametrize("shape", [(3, 4, 8, 8), (2, 3, 7, 5), (1, 1, 2, 2), (0, 2, 4, 4)])
@pytest.mark.parametrize("kernel", [(2, 2), (3, 3), (2, 3)])
@pytest.mark.parametrize("channels_last", [False, True])
def test_tiled_max_pool(rng, shape, kernel, channels_last):
    if shape[2] < kernel[0] or shape[3] < kernel[1]:
        pytest.skip("no whole window")
    x = image(rng, shape, relu=True, channels_last=channels_last)
    check_kernel(TILED_MAX, x, kernel, kernel, exact=True)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int64, np.int8])
def test_tiled_max_pool_dtypes(rng, dtype):
    x = image(rng, (2, 3, 6, 6), dtype=dtype, relu=True)
    if x.data.dtype.kind in "iu":
        x = minitorch.tensor((x.data * 0 + np.arange(36).reshape(6, 6) % 5).astype(dtype))
    check_kernel(TILED_MAX, x, (2, 2), (2, 2), exact=True)


def test_tiled_max_pool_with_nan_hands_over_to_the_offset_walk(rng):
    x = np.arange(2 * 2 * 4 * 4, dtype=np.float64).reshape(2, 2, 4, 4) % 5
    x[0, 0, 0, 1] = x[0, 0, 1, 1] = np.nan  # two NaNs in one window: the last one wins
    t = minitorch.tensor(x, requires_grad=True)
    check_kernel(TILED_MAX, t, (2, 2), (2, 2), exact=True)
    with minitorch.kernels.use_fast_kernels(True):
        y = minitorch.nn.functional.max_pool2d(t, 2)
        assert y.grad_fn.fast_kernel is TILED_MAX and y.grad_fn.kernel_saved == ()  # the walk's state
        y.backward(minitorch.ones(*y.shape, dtype=minitorch.float64))
    assert t.grad.numpy()[0, 0, 1, 1] == 1 and t.grad.numpy()[0, 0, 0, 1] == 0


OFFSET_CASES = [  # (shape, kernel, stride, padding)
    ((2, 3, 7, 7), (3, 3), (2, 2), (0, 0)),  # overlapping windows
    ((2, 2, 6, 6), (3, 3), (1, 1), (1, 1)),
    ((1, 2, 7, 6), (3, 2), (2, 1), (1, 0)),
    ((2, 2, 6, 6), (2, 2), (2, 2), (1, 1)),  # tiling, but padded: not the tiled kernel
    ((1, 1, 5, 5), (2, 2), (1, 1), (0, 0)),
]


@pytest.mark.parametrize("shape, kernel, stride, padding", OFFSET_CASES)
def test_offsets_max_pool(rng, shape, kernel, stride, padding):
    x = image(rng, shape, relu=True)
    check_kernel(OFFSETS_MAX, x, kernel, stride, padding, exact=True)


def test_offsets_max_pool_nan_and_minus_infinity_under_padding():
    x = np.full((1, 2, 5, 5), -np.inf)  # every window's real pixels are -inf: the first real one wins
    x[0, 1] = np.arange(25).reshape(5, 5) % 4
    x[0, 1, 1, 1] = x[0, 1, 2, 2] = np.nan
    check_kernel(OFFSETS_MAX, minitorch.tensor(x, requires_grad=True), (3, 3), (1, 1), (1, 1), exact=True)


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_offsets_max_pool_dtypes(rng, dtype):
    x = image(rng, (2, 3, 7, 7), dtype=dtype, relu=True)
    check_kernel(OFFSETS_MAX, x, (3, 3), (2, 2), exact=True)


def test_max_pool_kernels_decline():
    x = np.zeros((1, 1, 4, 4), np.float32)
    assert max_pool_tiled_applies(x, (2, 2), (2, 2))
    assert not max_pool_tiled_applies(x, (2, 2), (1, 1))  # overlapping
    assert not max_pool_tiled_applies(x, (2, 2), (2, 2), (1, 1))  # padded
    assert not max_pool_tiled_applies(x.astype(bool), (2, 2), (2, 2))
    assert not max_pool_offsets_applies(x.astype(bool), (2, 2), (2, 2))

    class OtherArray:  # a CuPy array, say: the CPU kernels are NumPy code
        dtype = np.dtype(np.float32)

    assert not max_pool_tiled_applies(OtherArray(), (2, 2), (2, 2))
    assert not max_pool_offsets_applies(OtherArray(), (2, 2), (2, 2))
    assert not avg_pool_view_applies(OtherArray(), (2, 2), (2, 2), (0, 0))


@pytest.mark.parametrize("shape, kernel, stride, padding", OFFSET_CASES + [((2, 3, 4, 4), (2, 2), (2, 2), (0, 0))])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
def test_avg_pool_view(rng, shape, kernel, stride, padding, dtype):
    x = image(rng, shape, dtype=dtype)
    check_kernel(VIEW_AVG, x, kernel, stride, padding)


def test_avg_pool_view_of_integers(rng):
    x = minitorch.tensor(rng.integers(-9, 9, size=(2, 2, 5, 5)))
    check_kernel(VIEW_AVG, x, (2, 2), (1, 1), (1, 1), exact=True)


@pytest.mark.parametrize("size", [(2, 3), (1, 1), (5, 7), (8, 9)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
def test_adaptive_avg_pool_keeps_its_matrices(rng, size, dtype):
    x = image(rng, (2, 3, 5, 7), dtype=dtype)
    check_kernel(KEPT_ADAPTIVE_AVG, x, size, exact=True)
