"""Real-GPU checks: the CUDA kernels against NumPy, no hidden syncs, the memory pool.

Skipped (with the reason) on machines without a usable GPU; ``bench/gpu_check.sh`` runs
them with ``pytest -m gpu`` where there is one. The device-generic comparisons with the
CPU are in ``test_devices.py``.
"""

import gc

import numpy as np
import pytest

import minitorch
from minitorch.cuda import kernels as cuda_kernels
from minitorch.functions.fused import bias_relu, softmax_cross_entropy
from minitorch.nn import functional as F

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(
        not minitorch.cuda.is_available(), reason="no usable GPU: " + minitorch.cuda.unavailable_reason()
    ),
]


@pytest.fixture
def cupy():
    return minitorch.cuda.cupy_module()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_relu_kernels_match_numpy(cupy, rng, dtype):
    x = rng.standard_normal((37, 53)).astype(dtype)
    x[0, :5] = 0.0  # exactly zero: forward 0, gradient 0, as PyTorch
    dy = rng.standard_normal((37, 53)).astype(dtype)
    y = cuda_kernels.relu_forward(cupy.asarray(x))
    assert y.dtype == dtype
    np.testing.assert_array_equal(y.get(), cuda_kernels.reference_relu_forward(x))
    dx = cuda_kernels.relu_backward(y, cupy.asarray(dy))
    np.testing.assert_array_equal(dx.get(), cuda_kernels.reference_relu_backward(y.get(), dy))
    # A non-contiguous (transposed) input: the kernel follows the strides.
    np.testing.assert_array_equal(cuda_kernels.relu_forward(cupy.asarray(x).T).get(), np.maximum(x.T, 0))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fused_kernels_match_numpy(cupy, rng, dtype):
    x = rng.standard_normal((64, 10)).astype(dtype)
    b = rng.standard_normal(10).astype(dtype)
    out = cuda_kernels.bias_relu_forward(cupy.asarray(x), cupy.asarray(b))
    np.testing.assert_allclose(out.get(), cuda_kernels.reference_bias_relu_forward(x, b), rtol=1e-6)
    probs = np.exp(x) / np.exp(x).sum(1, keepdims=True)
    target = rng.integers(0, 10, 64)
    got = cuda_kernels.softmax_xent_backward(cupy.asarray(probs), cupy.asarray(target), 1 / 64)
    want = cuda_kernels.reference_softmax_xent_backward(probs, target, 1 / 64)
    np.testing.assert_allclose(got.get(), want, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("shape", [(1, 1), (1, 7), (9, 1), (5, 3)], ids=lambda s: f"N{s[0]}-C{s[1]}")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_kernels_at_the_edges(cupy, rng, shape, dtype):
    """N = 1, C = 1, float64 and non-contiguous (transposed, strided) inputs against NumPy."""
    x = rng.standard_normal(shape).astype(dtype)
    b = rng.standard_normal(shape[1]).astype(dtype)
    xs = cupy.asarray(np.ascontiguousarray(x.T)).T  # same values, transposed strides
    np.testing.assert_array_equal(cuda_kernels.relu_forward(xs).get(), np.maximum(x, 0))
    np.testing.assert_allclose(cuda_kernels.bias_relu_forward(xs, cupy.asarray(b)).get(),
                               cuda_kernels.reference_bias_relu_forward(x, b), rtol=1e-6)
    probs = np.exp(x) / np.exp(x).sum(1, keepdims=True)
    target = rng.integers(0, shape[1], shape[0])
    got = cuda_kernels.softmax_xent_backward(cupy.asarray(probs.T.copy()).T, cupy.asarray(target), 0.5)
    np.testing.assert_allclose(got.get(), cuda_kernels.reference_softmax_xent_backward(probs, target, 0.5),
                               rtol=1e-6, atol=1e-9)
    loss, p, counts, bad = cuda_kernels.softmax_xent_forward(xs, cupy.asarray(target))
    want_loss, want_p, want_counts, want_bad = cuda_kernels.reference_softmax_xent_forward(x, target)
    np.testing.assert_array_equal(counts.get(), want_counts)
    np.testing.assert_array_equal(bad.get(), want_bad)
    np.testing.assert_allclose(loss.get(), want_loss, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(p.get(), want_p, rtol=1e-5, atol=1e-7)
    strided = cupy.asarray(rng.standard_normal((4, 6)).astype(dtype))[:, ::2]  # every other column
    np.testing.assert_array_equal(cuda_kernels.relu_forward(strided).get(), np.maximum(strided.get(), 0))


@pytest.mark.parametrize("decoupled", [False, True])
def test_adam_kernel_matches_numpy(cupy, rng, decoupled):
    p, m, g = (rng.standard_normal((33, 17)).astype(np.float32) for _ in range(3))
    v = rng.random((33, 17)).astype(np.float32)
    decay, wd = (1 - 1e-3 * 1e-2, 0.0) if decoupled else (1.0, 1e-2)
    args = (1e-3 / (1 - 0.9**3), 0.9, 0.999, 1e-8, wd, decay, (1 - 0.999**3) ** 0.5)
    p_d, m_d, v_d, g_d = (cupy.asarray(a) for a in (p, m, v, g))
    cuda_kernels.adam_step(p_d, m_d, v_d, g_d, *args)
    cuda_kernels.reference_adam_step(p, m, v, g, *(np.float32(a) for a in args))
    for got, want in ((p_d, p), (m_d, m), (v_d, v)):
        np.testing.assert_allclose(got.get(), want, rtol=1e-5, atol=1e-6)


def test_sgd_kernel_matches_numpy(cupy, rng):
    p, buf, g = (rng.standard_normal((33, 17)).astype(np.float32) for _ in range(3))
    p_d, buf_d, g_d = cupy.asarray(p), cupy.asarray(buf), cupy.asarray(g)
    cuda_kernels.sgd_momentum_step(p_d, buf_d, g_d, 0.1, 0.9, 1e-2)
    cuda_kernels.reference_sgd_momentum_step(p, buf, g, np.float32(0.1), np.float32(0.9), np.float32(1e-2))
    np.testing.assert_allclose(buf_d.get(), buf, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(p_d.get(), p, rtol=1e-6, atol=1e-6)


def test_fused_ops_match_cpu(rng):
    x = rng.standard_normal((16, 7)).astype(np.float32)
    b = rng.standard_normal(7).astype(np.float32)
    target = rng.integers(0, 7, 16)
    results = []
    for device in ("cpu", "cuda"):
        xs = minitorch.tensor(x, device=device, requires_grad=True)
        bs = minitorch.tensor(b, device=device, requires_grad=True)
        loss = softmax_cross_entropy(bias_relu(xs, bs), minitorch.tensor(target, device=device))
        loss.backward()
        results.append([loss.item(), xs.grad.cpu().numpy(), bs.grad.cpu().numpy()])
    assert results[0][0] == pytest.approx(results[1][0], rel=1e-5)
    for a, c in zip(results[0][1:], results[1][1:]):
        np.testing.assert_allclose(c, a, rtol=1e-5, atol=1e-6)


def test_data_really_lives_on_the_gpu(cupy):
    x = minitorch.ones(3, 4).to("cuda")
    assert isinstance(x.data, cupy.ndarray) and x.is_cuda
    assert isinstance(minitorch.zeros(2, device="cuda").data, cupy.ndarray)
    assert minitorch.cuda.device_count() >= 1 and minitorch.cuda.get_device_name()


def test_training_step_never_synchronises(cupy):
    """Forward, backward and step only queue GPU work: no copy back, no wait (cupyx checks)."""
    import cupyx

    minitorch.manual_seed(0)
    model = minitorch.nn.Sequential(
        minitorch.nn.Linear(32, 64), minitorch.nn.ReLU(), minitorch.nn.Linear(64, 10)
    ).to("cuda")
    opt = minitorch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    x = minitorch.randn(128, 32, device="cuda")
    y = minitorch.randint(0, 10, (128,), device="cuda")

    def step():
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss

    step()  # warm-up: compiles the kernels
    minitorch.cuda.synchronize()
    with cupyx.allow_synchronize(False):
        for _ in range(3):
            loss = step()
    assert np.isfinite(loss.item())


def test_memory_api_follows_allocations(cupy):
    cuda = minitorch.cuda
    # Free unreachable device arrays of earlier tests first; a GC pass can still free some
    # between two reads below, so "back to before" is checked as "at most before".
    gc.collect()
    cuda.synchronize()
    before = cuda.memory_allocated()
    cuda.reset_peak_memory_stats()
    big = minitorch.zeros(1024, 1024, device="cuda")  # 4 MiB
    assert cuda.memory_allocated() >= 4 * 2**20
    assert cuda.max_memory_allocated() >= 4 * 2**20
    assert cuda.max_memory_reserved() >= cuda.max_memory_allocated()
    del big
    assert cuda.memory_allocated() <= before
    assert cuda.max_memory_allocated() >= 4 * 2**20  # the peak remembers
    free, total = cuda.mem_get_info()
    assert 0 < free <= total
    assert cuda.memory_reserved() >= cuda.memory_allocated()
    cuda.empty_cache()
    assert cuda.memory_reserved() >= cuda.memory_allocated()
