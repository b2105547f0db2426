"""erf and GELU kernels (``kernels/cpu/special.py``, ``kernels/cuda/special.py``) against
``Erf`` and ``Gelu`` as written in ``functions/special.py``.

- SciPy's erf: ``Erf`` of every float dtype, the exact ``Gelu`` of float64 and float16;
- the blocked float32 GELU, over one block, several (the last one partial), views, empty;
- the tanh form keeping its tanh for backward;
- on a GPU, CuPy's erf (here on the stand-in CuPy of ``tests/devices``, with SciPy's erf
  standing in for CuPy's: what is tested is the wiring, the contract and the arithmetic around it).
Then what the predicates decline, and the float32 GELU's own accuracy (its tails).
"""

import math
import sys
from pathlib import Path

import numpy as np
import pytest
from kernel_harness import check_kernel

import minitorch
from minitorch.autograd.function import fast_kernel
from minitorch.functions.special import Erf, Gelu
from minitorch.kernels import use_fast_kernels
from minitorch.kernels.cpu import special as cpu_special
from minitorch.kernels.cpu.special import BLOCK, GELU_FLOAT32, normal_cdf_float32
from minitorch.nn import functional as F

scipy_special = pytest.importorskip("scipy.special")
ERF_SCIPY, GELU_SCIPY = cpu_special.ERF_SCIPY, cpu_special.GELU_SCIPY


def leaf(values, dtype):
    return minitorch.tensor(np.asarray(values).astype(dtype), requires_grad=True)


def wide_values(rng, shape):
    """Normal values of spread 3, with the edges: 0, +-1e-3, +-6 (far tails), +-30, +-inf, NaN."""
    x = rng.standard_normal(shape) * 3
    edges = [0.0, 1e-3, -1e-3, 6.0, -6.0, 30.0, -30.0, np.inf, -np.inf, np.nan]
    flat = x.reshape(-1)
    flat[: min(len(edges), flat.size)] = edges[: flat.size]
    return x


SHAPES = [(3, 5), (1,), (0,), (2, 0, 3), (7, 4, 6)]


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_scipy_erf_is_erf(shape, dtype):
    check_kernel(ERF_SCIPY, leaf(wide_values(np.random.default_rng(0), shape), dtype))


def test_scipy_erf_of_a_view():
    x = np.random.default_rng(1).standard_normal((6, 4))
    check_kernel(ERF_SCIPY, leaf(x, np.float64)[:, ::2].t())


@pytest.mark.parametrize("dtype", [np.float64, np.float16])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_scipy_gelu_is_gelu(shape, dtype):
    x = np.random.default_rng(2).standard_normal(shape) * 3  # (float16's GELU overflows x^2 past 256)
    check_kernel(GELU_SCIPY, leaf(x, dtype), "none")


@pytest.mark.parametrize(
    "shape",
    [(3, 5), (1,), (0,), (BLOCK,), (3 * BLOCK // 128 + 7, 128)],
    ids=["small", "one", "empty", "one block", "3+"],
)
def test_float32_gelu_is_gelu(shape):
    check_kernel(GELU_FLOAT32, leaf(wide_values(np.random.default_rng(3), shape), np.float32), "none")


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_tanh_gelu_keeping_its_tanh_is_gelu(shape, dtype):
    x = np.random.default_rng(7).standard_normal(shape) * 3
    check_kernel(cpu_special.GELU_TANH, leaf(x, dtype), "tanh")


def test_float32_gelu_of_a_view_over_several_blocks():
    x = leaf(np.random.default_rng(4).standard_normal((3 * BLOCK // 128 + 7, 128)) * 2, np.float32)
    view = x.t()
    assert not view.data.flags.c_contiguous
    check_kernel(GELU_FLOAT32, view, "none")


def test_what_the_predicates_decline():
    with use_fast_kernels(True):
        _what_the_predicates_decline()


def _what_the_predicates_decline():
    x32, x64 = np.zeros(3, np.float32), np.zeros(3)
    assert fast_kernel(Gelu, "cpu", [x32, "tanh"]) is fast_kernel(Gelu, "cpu", [x64, "tanh"]) is cpu_special.GELU_TANH
    assert not cpu_special.exact_gelu_float32(x32, "tanh") and not cpu_special.exact_gelu_not_float32(x64, "tanh")
    assert fast_kernel(Gelu, "cpu", [x32, "none"]) is GELU_FLOAT32
    assert not cpu_special.exact_gelu_not_float32(x32, "none")  # float32 has its own kernel
    assert fast_kernel(Gelu, "cpu", [x64, "none"]) is GELU_SCIPY
    assert fast_kernel(Erf, "cpu", [x32]) is ERF_SCIPY
    assert not cpu_special.numpy_float(np.zeros(3, np.int64))
    with use_fast_kernels(False):
        assert fast_kernel(Gelu, "cpu", [x32, "none"]) is None and fast_kernel(Erf, "cpu", [x64]) is None


# ---------------------------------------------------------------------- the float32 GELU's accuracy
def test_float32_normal_cdf_keeps_its_tails():
    """GELU's float32 Phi (a fitted erfc, in float32) against math.erfc, to relative precision in the tails."""
    x = np.concatenate([np.linspace(-12, 12, 4801), [np.inf, -np.inf, 0.0]]).astype(np.float32)
    cdf, pdf, _ = normal_cdf_float32(x)
    assert cdf.dtype == pdf.dtype == np.float32
    exact = np.array([0.5 * math.erfc(-float(v) / math.sqrt(2)) for v in x])
    density = np.array([math.exp(-(float(v) ** 2) / 2) / math.sqrt(2 * math.pi) for v in x])
    near = np.abs(x) < 5
    np.testing.assert_allclose(cdf[near], exact[near], rtol=3e-6)
    np.testing.assert_allclose(pdf[near], density[near], rtol=3e-6)
    np.testing.assert_allclose(cdf, exact, rtol=3e-5, atol=1e-37)  # the far tail: float32's own rounding of x^2
    nan_cdf, nan_pdf, _ = normal_cdf_float32(np.array([np.nan], np.float32))
    assert np.isnan(nan_cdf[0]) and np.isnan(nan_pdf[0])


def test_float32_gelu_over_several_blocks_matches_float64_and_torch():
    """An input longer than one block (the last one partial), laid out transposed: the float32
    GELU kernel, its Phi and its gradient agree with float64 and with PyTorch."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    x64 = (rng.standard_normal((3 * BLOCK // 128 + 7, 128)) * 2).T  # not C-contiguous
    up = rng.standard_normal(x64.shape)
    outs, grads = [], []
    with use_fast_kernels(True):
        for dtype in ("float32", "float64"):
            x = minitorch.tensor(x64.astype(dtype), requires_grad=True)
            y = F.gelu(x)
            assert (y.grad_fn.fast_kernel is GELU_FLOAT32) == (dtype == "float32")
            y.backward(minitorch.tensor(up.astype(dtype)))
            outs.append(y.detach().numpy().astype(np.float64))
            grads.append(x.grad.numpy().astype(np.float64))
    np.testing.assert_allclose(outs[0], outs[1], rtol=2e-6, atol=1e-7)
    np.testing.assert_allclose(grads[0], grads[1], rtol=2e-6, atol=1e-6)
    t = torch.tensor(x64.astype(np.float32), requires_grad=True)
    torch.nn.functional.gelu(t).backward(torch.tensor(up.astype(np.float32)))
    np.testing.assert_allclose(outs[0], torch.nn.functional.gelu(t).detach().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(grads[0], t.grad.numpy(), rtol=1e-5, atol=1e-5)


# ---------------------------------------------------------------------- on a (stand-in) GPU
@pytest.fixture
def fake_gpu_with_erf(monkeypatch):
    """The stand-in CuPy of tests/devices as ``cupy``, with SciPy's erf as CuPy's."""
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parent.parent / "devices"))
    from fake_cupy import FakeCupy

    from minitorch import backends
    from minitorch.kernels.cuda import special as cuda_special

    fake = FakeCupy()
    monkeypatch.setitem(sys.modules, "cupy", fake)
    backends.reset_probes()
    assert minitorch.cuda.is_available()
    assert cuda_special.cupy_erf(type(fake.zeros(1))) is None  # the stand-in has no cupyx: no kernel
    monkeypatch.setattr(cuda_special, "cupy_erf", lambda array_type: lambda x: fake.asarray(scipy_special.erf(x.get())))
    yield cuda_special
    backends.reset_probes()


@pytest.mark.parametrize("op", ["erf", "gelu"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_cupy_erf_kernels_compute_the_reference_on_the_device(fake_gpu_with_erf, op, dtype):
    cuda_special = fake_gpu_with_erf
    x_host = wide_values(np.random.default_rng(5), (4, 6))[:, 1:]  # (no NaN: the fake GPU's where warns)
    up = np.random.default_rng(6).standard_normal(x_host.shape)
    fn = minitorch.erf if op == "erf" else F.gelu
    results = []
    for fast in (False, True):
        x = minitorch.tensor(x_host.astype(dtype)).to("cuda").requires_grad_()
        with use_fast_kernels(fast):
            chosen = fast_kernel(Erf if op == "erf" else Gelu, "cuda", [x.data] + ([] if op == "erf" else ["none"]))
            assert chosen is ((cuda_special.ERF_CUPY if op == "erf" else cuda_special.GELU_CUPY) if fast else None)
            y = fn(x)
            y.backward(minitorch.tensor(up.astype(dtype)).to("cuda"))
        assert y.device.type == "cuda" and x.grad.device.type == "cuda"
        results.append((y.detach().cpu().numpy(), x.grad.cpu().numpy()))
    rtol = 1e-12 if dtype == "float64" else 2e-6
    for reference, fast in zip(*results):
        np.testing.assert_allclose(fast, reference, rtol=rtol, atol=rtol)
