"""``kernels/cpu/activations.py``: SiLU and Mish with s (or t) kept, against the ops (which save only x)."""

import numpy as np
import pytest
from kernel_harness import check_kernel

import minitorch
from minitorch.functions.activations import Mish, SiLU
from minitorch.kernels.cpu.activations import KEPT_MISH, KEPT_SILU
from minitorch.kernels.registry import kernels_of


def test_the_kernels_are_registered():
    assert kernels_of(SiLU) == (KEPT_SILU,)
    assert kernels_of(Mish) == (KEPT_MISH,)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(4, 16), (2, 3, 5), (7,), (), (0, 3)])
@pytest.mark.parametrize("kernel", [KEPT_SILU, KEPT_MISH], ids=["silu", "mish"])
def test_kept_kernel_is_the_op(rng, kernel, shape, dtype):
    # the tails too: exp of a non-positive number only, in both forms
    x = (rng.standard_normal(shape) * 6).astype(dtype)
    check_kernel(kernel, minitorch.tensor(x, requires_grad=True), exact=True)


@pytest.mark.parametrize("kernel", [KEPT_SILU, KEPT_MISH], ids=["silu", "mish"])
def test_kept_kernel_far_out(kernel):
    x = np.array([-800.0, -40.0, -1e-3, 0.0, 1e-3, 40.0, 800.0])
    check_kernel(kernel, minitorch.tensor(x, requires_grad=True), exact=True)


def test_float16_stays_with_the_ops():
    x = minitorch.tensor(np.ones(3, np.float16))
    assert not KEPT_SILU.applies(x.data) and not KEPT_MISH.applies(x.data)
