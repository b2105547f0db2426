"""``kernels/cpu/smooth_activations.py``: SiLU and Mish with s (or t) kept, against the ops (which save only x)."""

from pathlib import Path

import numpy as np
import pytest
from kernel_harness import check_kernel

import minitorch
import minitorch.nn.functional as F
from minitorch import backends
from minitorch.autograd.function import fast_kernel
from minitorch.functions.activations import Mish, SiLU
from minitorch.kernels import use_fast_kernels
from minitorch.kernels.cpu.smooth_activations import KEPT_MISH, KEPT_SILU
from minitorch.kernels.cuda.activations import KEPT_MISH_CUDA, KEPT_SILU_CUDA
from minitorch.kernels.registry import kernels_of


def test_the_kernels_are_registered():
    assert kernels_of(SiLU) == (KEPT_SILU, KEPT_SILU_CUDA)
    assert kernels_of(Mish) == (KEPT_MISH, KEPT_MISH_CUDA)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
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


@pytest.fixture
def fake_gpu(monkeypatch):
    """The stand-in CuPy of tests/devices as ``cupy`` (a GPU whose arrays are NumPy's underneath)."""
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parent.parent / "devices"))
    import fake_cupy

    fake = fake_cupy.install(monkeypatch)
    backends.reset_probes()
    assert minitorch.cuda.is_available()
    yield fake
    backends.reset_probes()


@pytest.mark.parametrize("op", [SiLU, Mish], ids=["silu", "mish"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_kept_kernels_on_the_device_compute_the_reference(fake_gpu, op, dtype):
    x_host = np.random.default_rng(5).standard_normal((4, 6)) * 5
    up = np.random.default_rng(6).standard_normal(x_host.shape)
    fn = F.silu if op is SiLU else F.mish
    results = []
    for fast in (False, True):
        x = minitorch.tensor(x_host.astype(dtype)).to("cuda").requires_grad_()
        with use_fast_kernels(fast):
            chosen = fast_kernel(op, "cuda", [x.data])
            assert chosen is ((KEPT_SILU_CUDA if op is SiLU else KEPT_MISH_CUDA) if fast else None)
            y = fn(x)
            y.backward(minitorch.tensor(up.astype(dtype)).to("cuda"))
        assert y.device.type == "cuda" and x.grad.device.type == "cuda"
        results.append((y.detach().cpu().numpy(), x.grad.cpu().numpy()))
    for reference, fast in zip(*results):
        np.testing.assert_array_equal(fast, reference)  # the same operations: the same bits
