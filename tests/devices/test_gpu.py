"""Real-GPU checks: the CUDA kernels against NumPy, no hidden syncs, capture_step, the memory pool.

Skipped (with the reason) on machines without a usable GPU; ``bench/gpu_check.sh`` runs
them with ``pytest -m gpu`` where there is one. The device-generic comparisons with the
CPU are in ``test_devices.py``.
"""

import gc

import numpy as np
import pytest

import minitorch
from minitorch.cuda import syncs
from minitorch.functions.fused import bias_relu, softmax_cross_entropy
from minitorch.kernels.cuda import sources as cuda_kernels
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


def _training_step():
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

    return step


def test_training_step_never_synchronises(cupy):
    """Forward, backward and step only queue GPU work: the event behind a spinning kernel is still
    pending when the step returns (``minitorch.cuda.syncs``, which sees any kind of sync)."""
    step = _training_step()
    assert syncs.synchronises(step) is False
    assert np.isfinite(step().item())


@pytest.mark.parametrize("kind", ["item", "float", "mask", "synchronize"])
def test_a_deliberate_sync_is_seen(cupy, kind):
    """The control: the same step with one sync in it is caught, whatever the kind."""
    step = _training_step()
    read = {
        "item": lambda loss: loss.item(),
        "float": lambda loss: float(loss),
        "mask": lambda loss: loss.reshape(1)[loss.reshape(1) > 0],
        "synchronize": lambda loss: minitorch.cuda.synchronize(),
    }[kind]
    assert syncs.synchronises(lambda: read(step())) is True


@pytest.mark.parametrize("ignore_index", [-100, 1])
def test_float16_cross_entropy_on_the_gpu(rng, ignore_index):
    """A .half() classifier: the float16 loss kernels compile and agree with float64 on the CPU."""
    logits = rng.standard_normal((64, 10)).astype(np.float16)
    target = rng.integers(0, 10, 64)
    results = []
    for device, dtype in (("cpu", np.float64), ("cuda", np.float16)):
        x = minitorch.tensor(logits.astype(dtype), device=device, requires_grad=True)
        loss = F.cross_entropy(x, minitorch.tensor(target, device=device), ignore_index=ignore_index)
        loss.backward()
        assert loss.dtype == x.dtype and x.grad.dtype == x.dtype
        results.append((loss.item(), x.grad.cpu().numpy().astype(np.float64)))
    assert results[1][0] == pytest.approx(results[0][0], rel=2e-3)
    np.testing.assert_allclose(results[1][1], results[0][1], rtol=1e-2, atol=1e-4)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_float16_and_wide_softmax_kernels_match_numpy(cupy, rng, dtype):
    """The forward loss kernel for every float dtype (float16 sums in float) against its NumPy twin."""
    x = (rng.standard_normal((33, 7)) * 3).astype(dtype)
    target = rng.integers(0, 7, 33)
    loss, p, counts, bad = cuda_kernels.softmax_xent_forward(cupy.asarray(x), cupy.asarray(target))
    want_loss, want_p, _, _ = cuda_kernels.reference_softmax_xent_forward(x.astype(np.float64), target)
    tol = 2e-3 if dtype == np.float16 else 1e-5
    np.testing.assert_allclose(loss.get().astype(np.float64), want_loss, rtol=tol, atol=tol)
    np.testing.assert_allclose(p.get().astype(np.float64), want_p, rtol=tol, atol=tol)


def test_scatter_multiply_on_the_gpu(rng):
    a = rng.standard_normal((4, 5)).astype(np.float32)
    src = rng.standard_normal((4, 5)).astype(np.float32)
    index = rng.integers(0, 4, (4, 5))  # repeated rows: products of several values
    want = minitorch.scatter(minitorch.tensor(a), 0, minitorch.tensor(index), minitorch.tensor(src), reduce="multiply")
    got = minitorch.scatter(minitorch.tensor(a, device="cuda"), 0, minitorch.tensor(index, device="cuda"),
                            minitorch.tensor(src, device="cuda"), reduce="multiply")
    np.testing.assert_allclose(got.cpu().numpy(), want.numpy(), rtol=1e-6)


def test_capture_step_trains_like_the_eager_step(cupy, rng):
    """``capture_step`` on a real GPU: replays with new inputs copied in train the same weights."""
    batches = [(rng.standard_normal((64, 16)).astype(np.float32), rng.integers(0, 4, 64)) for _ in range(6)]

    def make():
        minitorch.manual_seed(0)
        model = minitorch.nn.Sequential(
            minitorch.nn.Linear(16, 32), minitorch.nn.ReLU(), minitorch.nn.Linear(32, 4)
        ).to("cuda")
        opt = minitorch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        x = minitorch.zeros(64, 16, device="cuda")
        y = minitorch.zeros(64, dtype=minitorch.int64, device="cuda")

        def step():
            opt.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            return loss

        def feed(batch):
            x.data[...] = cupy.asarray(batch[0])
            y.data[...] = cupy.asarray(batch[1])

        return model, step, feed

    eager_model, eager_step, eager_feed = make()
    eager_feed(batches[0])
    for _ in range(3):  # what capture_step's warm-up does
        eager_step()
    eager_losses = []
    for batch in batches[1:]:
        eager_feed(batch)
        eager_losses.append(eager_step().item())

    model, step, feed = make()
    feed(batches[0])
    graphed = minitorch.cuda.capture_step(step, warmup=3)
    losses = []
    for batch in batches[1:]:
        feed(batch)
        losses.append(graphed().item())
    assert graphed.replays == len(batches) - 1
    np.testing.assert_allclose(losses, eager_losses, rtol=1e-5)
    for p, q in zip(model.parameters(), eager_model.parameters()):
        np.testing.assert_allclose(p.detach().cpu().numpy(), q.detach().cpu().numpy(), rtol=1e-5, atol=1e-6)


def test_source_matches_cupy(cupy):
    """``tests/devices/cuda_source.py`` (how ``make test`` compiles without a GPU) generates the very
    source real CuPy compiled for the same call, layouts and 64-bit indexing included."""
    import cuda_source

    k = cuda_kernels
    x = cupy.arange(30, dtype=cupy.float32).reshape(5, 6)
    cases = [
        (k.RELU_FORWARD, (x,)),
        (k.RELU_FORWARD, (x.T,)),
        (k.RELU_FORWARD, (cupy.zeros((4, 3, 2, 6), cupy.float16).transpose(3, 1, 0, 2)[::2],)),
        (k.BIAS_RELU_FORWARD, (x, cupy.ones(6, cupy.float32))),
        (k.SOFTMAX_XENT_BACKWARD, (x, cupy.zeros((5, 1), cupy.int64), cupy.float32(0.5), 6, -100)),
        (k.SOFTMAX_XENT_BACKWARD, (x.astype(cupy.float16), cupy.zeros((5, 1), cupy.int64), x.sum().astype(
            cupy.float16), 6, -100)),
        (k.SGD_MOMENTUM_STEP, (x, 0.1, 0.9, 0.0, x.copy(), x.copy())),
        (syncs.SPIN, (0, cupy.empty(1, cupy.int64))),
    ]
    free, _ = cupy.cuda.runtime.memGetInfo()
    if free > 6 * 2**30:  # arrays over 2 GiB: 64-bit indexing
        big = cupy.zeros(2**30 + 8, cupy.float16)
        cases.append((k.RELU_FORWARD, (big,)))
    for spec, args in cases:
        kernel = cupy.ElementwiseKernel(*spec)
        kernel(*args)
        ours = cuda_source.kernel_call(spec, args).source()
        header = "".join(f"#include <{h}>\n" for h in cupy._core.core._cupy_header_list)
        assert ours == header + kernel.cached_code, spec[3]
    cupy.cuda.Device().synchronize()


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
