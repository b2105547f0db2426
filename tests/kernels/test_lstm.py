"""The LSTM kernel (``kernels/cpu/lstm.py``) against ``LSTMLayer`` as written in ``functions/recurrent.py``.

Its predicate takes float32 and float64 NumPy arrays of any shape and layout: with and without
biases and a projection, one sample, an empty batch, more steps than a backward chunk, inputs
that are views. The op's own backward must also run on the kernel's nodes (``check_kernel``).
"""

import numpy as np
import pytest
from kernel_harness import check_kernel

import minitorch
from minitorch.autograd import gradcheck
from minitorch.autograd.function import fast_kernel
from minitorch.functions import lstm_layer
from minitorch.functions.recurrent import LSTMLayer
from minitorch.kernels import use_fast_kernels
from minitorch.kernels.cpu.lstm import CHUNK, FEATURE_MAJOR


def lstm_args(rng, T, N, I, H, dtype=np.float64, bias="both", proj=None, strided=False):
    """LSTMLayer's arguments as leaves: x, h0, c0, W_ih, W_hh, b_ih, b_hh, W_hr."""

    def leaf(*shape):
        return minitorch.tensor((rng.standard_normal(shape) * 0.6).astype(dtype), requires_grad=True)

    P = proj or H
    if strided:  # x a transposed view of (N, T, I), W_ih a transposed view of (I, 4H)
        x = minitorch.tensor((rng.standard_normal((N, T, I)) * 0.6).astype(dtype)).transpose(0, 1).detach()
        x.requires_grad_(True)
        w_ih = minitorch.tensor((rng.standard_normal((I, 4 * H)) * 0.6).astype(dtype)).t().detach()
        w_ih.requires_grad_(True)
        assert not x.data.flags.c_contiguous and not w_ih.data.flags.c_contiguous
    else:
        x, w_ih = leaf(T, N, I), leaf(4 * H, I)
    b_ih = leaf(4 * H) if bias in ("both", "ih") else None
    b_hh = leaf(4 * H) if bias in ("both", "hh") else None
    return x, leaf(N, P), leaf(N, H), w_ih, leaf(4 * H, P), b_ih, b_hh, leaf(P, H) if proj else None


CASES = {  # (T, N, I, H, options)
    "one step": (1, 3, 2, 4, {}),
    "one sample": (5, 1, 3, 2, {}),
    "empty batch": (4, 0, 3, 2, {}),
    "several chunks": (2 * CHUNK + 3, 2, 3, 3, {}),
    "one chunk exactly": (CHUNK, 2, 2, 3, {}),
    "no bias": (4, 2, 3, 3, {"bias": "none"}),
    "only b_ih": (4, 2, 3, 3, {"bias": "ih"}),
    "only b_hh": (4, 2, 3, 3, {"bias": "hh"}),
    "projection": (6, 2, 3, 4, {"proj": 2}),
    "projection, no bias, one sample": (CHUNK + 1, 1, 2, 3, {"proj": 1, "bias": "none"}),
    "views": (5, 3, 4, 3, {"strided": True}),
    "hidden 1": (3, 2, 2, 1, {}),
}


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["float64", "float32"])
@pytest.mark.parametrize("case", list(CASES))
def test_lstm_kernel_computes_the_reference_lstm(case, dtype):
    T, N, I, H, options = CASES[case]
    args = lstm_args(np.random.default_rng(0), T, N, I, H, dtype, **options)
    check_kernel(FEATURE_MAJOR, *args)


def test_lstm_kernel_declines_float16_and_the_switch_turns_it_off():
    args = lstm_args(np.random.default_rng(0), 3, 2, 2, 2)
    arrays = [a.data if a is not None else None for a in args]
    with use_fast_kernels(True):
        assert fast_kernel(LSTMLayer, "cpu", arrays) is FEATURE_MAJOR
        assert fast_kernel(LSTMLayer, "cuda", arrays) is None  # a CPU kernel only
        half = lstm_args(np.random.default_rng(0), 3, 2, 2, 2, np.float16)
        assert fast_kernel(LSTMLayer, "cpu", [a.data if a is not None else None for a in half]) is None
    with use_fast_kernels(False):
        assert fast_kernel(LSTMLayer, "cpu", arrays) is None
        assert LSTMLayer.apply(*args).grad_fn.fast_kernel is None


def test_lstm_kernel_gradcheck_over_several_chunks_of_steps_with_one_sample():
    # The backward walks the steps in chunks (CHUNK): CHUNK + 3 steps make a full chunk and a
    # partial one. With N = 1 the gradient of c_T, transposed, is contiguous: it must be copied.
    args = lstm_args(np.random.default_rng(1), CHUNK + 3, 1, 2, 2)

    def weighted(outputs):  # every output (all h, h_T, c_T) counts, each with its own weight
        return sum(o.sum() * (i + 1) for i, o in enumerate(outputs))

    with use_fast_kernels(True):
        assert fast_kernel(LSTMLayer, "cpu", [a.data if a is not None else None for a in args]) is FEATURE_MAJOR
        assert gradcheck(lambda *a: weighted(lstm_layer(*a)), args[:7])


@pytest.mark.parametrize("kernels", [True, False], ids=["kernel", "reference"])
def test_lstm_backward_leaves_the_incoming_gradient_alone(kernels):
    args = lstm_args(np.random.default_rng(2), 3, 1, 2, 3, bias="none")
    with use_fast_kernels(kernels):
        out = LSTMLayer.apply(*args)
    assert (out.grad_fn.fast_kernel is FEATURE_MAJOR) == kernels
    grad = np.random.default_rng(3).standard_normal(out.shape)
    kept = grad.copy()
    op = out.grad_fn.fast_kernel or LSTMLayer
    grads = op.backward(out.grad_fn, grad)
    np.testing.assert_array_equal(grad, kept)
    assert not any(np.shares_memory(g, grad) for g in grads if g is not None)
