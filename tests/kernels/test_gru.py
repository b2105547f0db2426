"""The GRU kernel (``kernels/cpu/gru.py``) against ``GRULayer`` as written in ``functions/recurrent.py``.

Its predicate takes float32 and float64 NumPy arrays: with and without biases, one sample, an
empty batch, one step, inputs that are views; float16 runs the op as written.
"""

import numpy as np
import pytest
from kernel_harness import check_kernel

import minitorch
from minitorch.autograd.function import fast_kernel
from minitorch.functions.recurrent import GRULayer
from minitorch.kernels import use_fast_kernels
from minitorch.kernels.cpu.gru import KEPT_GATES


def gru_args(rng, T, N, I, H, dtype=np.float64, bias="both", strided=False):
    """GRULayer's arguments as leaves: x, h0, W_ih, W_hh, b_ih, b_hh."""

    def leaf(*shape):
        return minitorch.tensor((rng.standard_normal(shape) * 0.6).astype(dtype), requires_grad=True)

    if strided:  # x a transposed view of (N, T, I)
        x = minitorch.tensor((rng.standard_normal((N, T, I)) * 0.6).astype(dtype)).transpose(0, 1).detach()
        x.requires_grad_(True)
        assert not x.data.flags.c_contiguous
    else:
        x = leaf(T, N, I)
    b_ih = leaf(3 * H) if bias in ("both", "ih") else None
    b_hh = leaf(3 * H) if bias in ("both", "hh") else None
    return x, leaf(N, H), leaf(3 * H, I), leaf(3 * H, H), b_ih, b_hh


CASES = {  # (T, N, I, H, options)
    "one step": (1, 3, 2, 4, {}),
    "one sample": (5, 1, 3, 2, {}),
    "empty batch": (4, 0, 3, 2, {}),
    "several steps": (9, 2, 3, 3, {}),
    "no bias": (4, 2, 3, 3, {"bias": "none"}),
    "only b_ih": (4, 2, 3, 3, {"bias": "ih"}),
    "only b_hh": (4, 2, 3, 3, {"bias": "hh"}),
    "views": (5, 3, 4, 3, {"strided": True}),
}


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["float64", "float32"])
@pytest.mark.parametrize("case", list(CASES))
def test_gru_kernel_computes_the_reference_gru(case, dtype):
    T, N, I, H, options = CASES[case]
    check_kernel(KEPT_GATES, *gru_args(np.random.default_rng(0), T, N, I, H, dtype, **options))


def test_gru_kernel_declines_float16_and_other_devices():
    with use_fast_kernels(True):
        arrays = [a.data if a is not None else None for a in gru_args(np.random.default_rng(0), 3, 2, 2, 2)]
        assert fast_kernel(GRULayer, "cpu", arrays) is KEPT_GATES
        assert fast_kernel(GRULayer, "cuda", arrays) is None
        half = gru_args(np.random.default_rng(0), 3, 2, 2, 2, np.float16)
        assert fast_kernel(GRULayer, "cpu", [a.data if a is not None else None for a in half]) is None
