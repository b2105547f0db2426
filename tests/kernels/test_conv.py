"""The CPU conv kernels (minitorch/kernels/cpu/conv.py) against Conv2d as written in functions/conv.py."""

import numpy as np
import pytest
from kernel_harness import check_kernel

import minitorch
from minitorch.functions.conv import Conv2d
from minitorch.kernels.cpu.conv import CHANNELS_LAST, SHIFTED, channels_last_applies, shifted_applies
from minitorch.kernels.registry import kernels_of
from minitorch.switches import SWITCHES


def tensors(rng, x_shape, w_shape, bias=True, dtype=np.float64, channels_last=False):
    """x, weight and bias (or None) as tensors that require grad; x optionally a channels-last NCHW view."""
    x = rng.standard_normal(x_shape).astype(dtype)
    if channels_last:  # the NCHW view of channels-last memory, as a conv's input often is
        x = np.ascontiguousarray(x.transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2)
    w = rng.standard_normal(w_shape).astype(dtype)
    b = rng.standard_normal(w_shape[0]).astype(dtype) if bias else None
    return [None if a is None else minitorch.tensor(a, requires_grad=True) for a in (x, w, b)]


@pytest.fixture
def design():
    """Set ``SWITCHES.conv_design`` for one test."""

    def set_design(name):
        SWITCHES.conv_design = name

    yield set_design
    SWITCHES.conv_design = "auto"


def test_the_shifted_kernel_comes_first():
    assert kernels_of(Conv2d) == (SHIFTED, CHANNELS_LAST)


CASES = [  # (x shape, weight shape, stride, padding)
    ((2, 3, 6, 6), (4, 3, 3, 3), (1, 1), (1, 1)),
    ((1, 1, 5, 4), (2, 1, 3, 2), (1, 1), (0, 0)),  # one sample, one channel, a 3x2 kernel
    ((3, 2, 7, 5), (3, 2, 2, 2), (1, 1), (1, 0)),
    ((2, 4, 4, 4), (5, 4, 1, 1), (1, 1), (0, 0)),  # 1x1
    ((0, 3, 5, 5), (2, 3, 3, 3), (1, 1), (1, 1)),  # an empty batch
]


@pytest.mark.parametrize("x_shape, w_shape, stride, padding", CASES)
@pytest.mark.parametrize("bias", [True, False])
def test_shifted_kernel_forced(rng, design, x_shape, w_shape, stride, padding, bias):
    design("shifted")
    x, w, b = tensors(rng, x_shape, w_shape, bias)
    check_kernel(SHIFTED, x, w, b, stride, padding)


STRIDED = [
    ((2, 3, 7, 7), (4, 3, 3, 3), (2, 2), (1, 1)),
    ((1, 2, 6, 9), (3, 2, 2, 3), (2, 1), (0, 2)),
    ((2, 1, 5, 5), (2, 1, 5, 5), (3, 3), (0, 0)),  # the window is the whole image
]


@pytest.mark.parametrize("x_shape, w_shape, stride, padding", CASES + STRIDED)
@pytest.mark.parametrize("bias", [True, False])
def test_channels_last_kernel(rng, design, x_shape, w_shape, stride, padding, bias):
    design("im2col")
    x, w, b = tensors(rng, x_shape, w_shape, bias)
    check_kernel(CHANNELS_LAST, x, w, b, stride, padding)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("kernel, name", [(SHIFTED, "shifted"), (CHANNELS_LAST, "im2col")])
def test_both_kernels_in_float32_and_float16(rng, design, dtype, kernel, name):
    design(name)
    x, w, b = tensors(rng, (2, 3, 6, 5), (4, 3, 3, 3), dtype=dtype)
    check_kernel(kernel, x, w, b, (1, 1), (1, 1), scale=4 if dtype == np.float16 else 1)


@pytest.mark.parametrize("kernel, name", [(SHIFTED, "shifted"), (CHANNELS_LAST, "im2col")])
def test_a_channels_last_input_and_only_some_gradients(rng, design, kernel, name):
    design(name)
    x, w, b = tensors(rng, (2, 3, 6, 6), (4, 3, 3, 3), channels_last=True)
    check_kernel(kernel, x, w, b, (1, 1), (1, 1))
    x.requires_grad_(False)  # the first layer: no gradient for the images
    check_kernel(kernel, x, w, b, (1, 1), (1, 1))


def test_auto_takes_the_shifted_kernel_where_it_wins(rng):
    x, w, b = tensors(rng, (2, 8, 16, 16), (4, 8, 3, 3))  # 8 channels, 18x18 padded grid for 16x16 outputs
    check_kernel(SHIFTED, x, w, b, (1, 1), (1, 1))


def _arrays(x_shape, w_shape, dtype=np.float32):
    return np.zeros(x_shape, dtype), np.zeros(w_shape, dtype)


def test_shifted_declines_strides_small_inputs_and_the_im2col_design(design):
    x, w = _arrays((2, 16, 8, 8), (4, 16, 3, 3))
    assert not shifted_applies(x, w, None, (2, 2), (1, 1))  # stride 2
    x, w = _arrays((2, 1, 8, 8), (4, 1, 3, 3))
    assert not shifted_applies(x, w, None, (1, 1), (1, 1))  # auto, one channel (the digits CNN's first layer)
    x, w = _arrays((2, 16, 4, 4), (4, 16, 3, 3))
    assert not shifted_applies(x, w, None, (1, 1), (1, 1))  # auto, a 6x6 padded grid for 4x4 outputs
    x, w = _arrays((2, 16, 16, 16), (4, 16, 3, 3))
    assert shifted_applies(x, w, None, (1, 1), (1, 1))
    design("im2col")
    assert not shifted_applies(x, w, None, (1, 1), (1, 1))
    design("shifted")
    assert shifted_applies(*_arrays((1, 1, 3, 3), (1, 1, 3, 3)), None, (1, 1), (0, 0))


def test_both_decline_integers_and_arrays_of_another_library(design):
    design("shifted")
    x, w = _arrays((1, 1, 3, 3), (1, 1, 3, 3), np.int64)
    assert not shifted_applies(x, w, None, (1, 1), (0, 0))
    assert not channels_last_applies(x, w, None, (1, 1), (0, 0))

    class OtherArray:  # a CuPy array, say: the CPU kernels are NumPy code
        dtype = np.dtype(np.float32)
        shape = (1, 1, 3, 3)

    x, w = OtherArray(), OtherArray()
    assert not shifted_applies(x, w, None, (1, 1), (0, 0))
    assert not channels_last_applies(x, w, None, (1, 1), (0, 0))


def test_with_the_kernels_off_every_design_runs_the_op(rng, design):
    x, w, b = tensors(rng, (2, 8, 16, 16), (4, 8, 3, 3))
    for name in ("auto", "im2col", "shifted"):
        design(name)
        with minitorch.kernels.use_fast_kernels(False):
            assert minitorch.nn.functional.conv2d(x, w, b, padding=1).grad_fn.fast_kernel is None
        with minitorch.kernels.use_fast_kernels(True):
            chosen = minitorch.nn.functional.conv2d(x, w, b, padding=1).grad_fn.fast_kernel
        assert chosen is (CHANNELS_LAST if name == "im2col" else SHIFTED)
