"""The GPU backend's logic, tested on any machine.

``is_available()`` and its reasons, the error messages, the memory API and the kernel
dispatch are checked here against a fake CuPy (``tests/devices/fake_cupy.py``), so they run
without a GPU. The same computations on a real GPU are in ``test_devices.py``.
"""

import sys

import fake_cupy
import numpy as np
import pytest
from fake_cupy import FakeCupy, FakeDeviceArray, FakeElementwiseKernel

import minitorch
from minitorch import backends
from minitorch.errors import MiniTorchError
from minitorch.kernels import fast_kernels_enabled, use_fast_kernels
from minitorch.kernels.cuda import sources as cuda_kernels


@pytest.fixture
def use_cupy(monkeypatch):
    """Install a module as ``cupy`` for one test and probe again before and after."""

    def install(module):
        if isinstance(module, FakeCupy):
            fake_cupy.install(monkeypatch, module)  # its cupyx too
        else:
            monkeypatch.setitem(sys.modules, "cupy", module)
        backends.reset_probes()
        return module

    yield install
    backends.reset_probes()


@pytest.fixture
def fake_gpu(use_cupy):
    """A usable fake GPU."""
    fake = use_cupy(FakeCupy())
    assert minitorch.cuda.is_available()
    return fake


# ---------------------------------------------------------------------- is_available
def test_import_and_probe_never_raise():
    import minitorch.cuda as cuda

    assert isinstance(cuda.is_available(), bool)
    assert isinstance(cuda.unavailable_reason(), str) and cuda.unavailable_reason()


def test_reason_when_cupy_is_missing(use_cupy):
    use_cupy(None)  # a None entry in sys.modules makes ``import cupy`` raise ImportError
    assert minitorch.cuda.is_available() is False
    assert "CuPy is not installed" in minitorch.cuda.unavailable_reason()


def test_reason_when_no_device(use_cupy):
    use_cupy(FakeCupy(devices=None))
    assert minitorch.cuda.is_available() is False
    reason = minitorch.cuda.unavailable_reason()
    assert "no CUDA device" in reason and "cudaErrorNoDevice" in reason


def test_reason_when_device_count_is_zero(use_cupy):
    use_cupy(FakeCupy(devices=0))
    assert minitorch.cuda.is_available() is False
    assert "no CUDA device" in minitorch.cuda.unavailable_reason()


def test_reason_when_kernels_cannot_compile(use_cupy):
    use_cupy(FakeCupy(nvrtc=False))
    assert minitorch.cuda.is_available() is False
    assert "NVRTC" in minitorch.cuda.unavailable_reason()


def test_reason_when_a_cuda_library_is_missing(use_cupy):
    use_cupy(FakeCupy(curand=False))
    assert minitorch.cuda.is_available() is False
    reason = minitorch.cuda.unavailable_reason()
    assert "CUDA library is missing" in reason and "libcurand" in reason


def test_fake_gpu_is_available(fake_gpu):
    assert minitorch.cuda.unavailable_reason().startswith("1 CUDA device(s) found")
    assert minitorch.cuda.device_count() == 1
    assert minitorch.cuda.get_device_name() == "Fake GPU"


# ---------------------------------------------------------------------- clear errors
@pytest.mark.parametrize(
    "module, words",
    [(None, "CuPy is not installed"), (FakeCupy(devices=None), "no CUDA device"), (FakeCupy(nvrtc=False), "NVRTC")],
    ids=["no-cupy", "no-device", "no-nvrtc"],
)
def test_moving_to_cuda_without_gpu_says_why(use_cupy, module, words):
    use_cupy(module)
    x = minitorch.ones(2, 3)
    attempts = [
        lambda: x.to("cuda"),
        lambda: x.cuda(),
        lambda: minitorch.zeros(2, device="cuda"),
        lambda: minitorch.randn(2, device="cuda"),
        lambda: minitorch.arange(3, device="cuda"),
        lambda: minitorch.tensor([1.0], device="cuda"),
        lambda: minitorch.nn.Linear(2, 2).to("cuda"),
    ]
    for attempt in attempts:
        with pytest.raises(MiniTorchError, match="no usable GPU") as info:
            attempt()
        assert words in str(info.value)


@pytest.mark.parametrize("name", ["gpu", "tpu", "cuda:1", "mps", ""])
def test_unknown_device_strings(name):
    with pytest.raises(MiniTorchError, match="device"):
        minitorch.ones(2).to(name)
    with pytest.raises(MiniTorchError, match="device"):
        minitorch.zeros(2, device=name)


def test_device_names_normalise():
    assert backends.normalize_device("CPU") == "cpu"
    assert backends.normalize_device("cuda:0") == "cuda"
    assert backends.normalize_device(None) == "cpu"


def test_mixing_devices_names_op_and_both_devices(fake_gpu):
    a = minitorch.ones(2, 3)
    b = minitorch.ones(2, 3).to("cuda")
    cases = [
        (lambda: a + b, "Add"),
        (lambda: b * a, "Mul"),
        (lambda: a @ b.T, "MatMul"),
        (lambda: minitorch.where(a > 0, b, b), "Where"),
        (lambda: minitorch.cat([a, b]), "Cat"),
    ]
    for fn, op in cases:
        with pytest.raises(MiniTorchError) as info:
            fn()
        message = str(info.value)
        assert op in message and "cpu" in message and "cuda" in message, message


def test_inplace_update_across_devices_is_refused(fake_gpu):
    p = minitorch.ones(3).to("cuda")
    with pytest.raises(MiniTorchError, match="cpu"):
        p += minitorch.ones(3)


def test_cuda_index_on_cpu_tensor_is_refused(fake_gpu):
    x = minitorch.arange(5.0)
    idx = minitorch.tensor([0, 1]).to("cuda")
    with pytest.raises(MiniTorchError, match="indices are on cuda"):
        x[idx]


def test_numpy_on_cuda_tensor_is_an_error(fake_gpu):
    x = minitorch.ones(3).cuda()
    with pytest.raises(MiniTorchError, match=r"\.cpu\(\)"):
        x.numpy()
    with pytest.raises(MiniTorchError, match=r"\.cpu\(\)"):
        np.asarray(x)
    assert x.cpu().numpy().tolist() == [1.0, 1.0, 1.0]


def test_backward_gradient_on_other_device(fake_gpu):
    x = minitorch.ones(3, requires_grad=True)
    y = (x.cuda() * 2)
    with pytest.raises(MiniTorchError, match="gradient is on cpu"):
        y.backward(minitorch.ones(3))


# ---------------------------------------------------------------------- memory API
def test_memory_api_without_gpu(use_cupy):
    use_cupy(None)
    cuda = minitorch.cuda
    assert cuda.memory_allocated() == 0
    assert cuda.max_memory_allocated() == 0
    assert cuda.memory_reserved() == 0
    assert cuda.device_count() == 0
    cuda.empty_cache()  # a no-op, as in PyTorch before CUDA is initialised
    cuda.reset_peak_memory_stats()
    assert "no usable GPU" in cuda.memory_summary()
    for fn in (cuda.synchronize, cuda.get_device_name, cuda.current_device):
        with pytest.raises(MiniTorchError, match="CuPy is not installed"):
            fn()


def test_memory_api_reads_the_pool(fake_gpu):
    cuda = minitorch.cuda
    assert cuda.memory_allocated() == 4096
    assert cuda.memory_reserved() == 8192
    assert cuda.max_memory_allocated() >= 4096
    cuda.empty_cache()
    assert fake_gpu._pool.freed == 1
    cuda.synchronize()
    assert fake_gpu.synchronized == 1
    assert "allocated" in cuda.memory_summary()


def test_peak_tracker_wraps_the_allocator(fake_gpu):
    cuda = minitorch.cuda
    assert cuda.memory_allocated() == 4096 and cuda.memory_reserved() == 8192
    assert fake_gpu.allocator is None  # not installed until a peak is asked for: no cost per array
    cuda.reset_peak_memory_stats()
    assert fake_gpu.allocator is not None
    fake_gpu._pool.used_bytes = lambda: 10_000  # as if a big array had just been allocated
    fake_gpu._pool.total_bytes = lambda: 20_000
    assert fake_gpu.allocator(123) == 123  # the pool's malloc still does the allocating
    fake_gpu._pool.used_bytes = lambda: 4096
    fake_gpu._pool.total_bytes = lambda: 8192
    assert cuda.memory_allocated() == 4096
    assert cuda.max_memory_allocated() == 10_000
    assert cuda.max_memory_reserved() == 20_000
    cuda.reset_peak_memory_stats()
    assert (cuda.max_memory_allocated(), cuda.max_memory_reserved()) == (4096, 8192)


def test_mem_get_info(fake_gpu, use_cupy):
    fake_gpu.cuda.runtime.memGetInfo = lambda: (3 * 2**30, 8 * 2**30)
    assert minitorch.cuda.mem_get_info() == (3 * 2**30, 8 * 2**30)
    use_cupy(None)
    assert minitorch.cuda.max_memory_reserved() == 0
    with pytest.raises(MiniTorchError, match="CuPy is not installed"):
        minitorch.cuda.mem_get_info()


# ---------------------------------------------------------------------- kernels
def test_kernels_module_imports_without_gpu(use_cupy):
    use_cupy(None)
    with pytest.raises(MiniTorchError, match="no usable GPU"):
        cuda_kernels.get_kernel(cuda_kernels.RELU_FORWARD)


def test_use_custom_kernels_is_the_one_switch():
    assert minitorch.cuda.use_custom_kernels is use_fast_kernels
    for enabled in (False, True):
        with minitorch.cuda.use_custom_kernels(enabled):
            assert minitorch.cuda.custom_kernels_enabled() is fast_kernels_enabled() is enabled


def test_reference_kernels_match_plain_numpy(rng):
    x = rng.standard_normal((5, 7)).astype(np.float32)
    b = rng.standard_normal(7).astype(np.float32)
    dy = rng.standard_normal((5, 7)).astype(np.float32)
    np.testing.assert_array_equal(cuda_kernels.reference_relu_forward(x), np.maximum(x, 0))
    np.testing.assert_array_equal(cuda_kernels.reference_relu_backward(np.maximum(x, 0), dy), dy * (x > 0))
    np.testing.assert_array_equal(cuda_kernels.reference_bias_relu_forward(x, b), np.maximum(x + b, 0))


def test_relu_dispatches_to_kernels_on_cuda(fake_gpu, rng, fast_kernels):
    FakeElementwiseKernel.compiled.clear()
    data = rng.standard_normal((4, 6)).astype(np.float32)
    x = minitorch.tensor(data).cuda().requires_grad_()
    y = x.relu()
    y.backward(minitorch.ones(4, 6).cuda())
    assert FakeElementwiseKernel.compiled == ["minitorch_relu_forward", "minitorch_relu_backward"]
    np.testing.assert_array_equal(y.cpu().detach().numpy(), np.maximum(data, 0))
    np.testing.assert_array_equal(x.grad.cpu().numpy(), (data > 0).astype(np.float32))
    FakeElementwiseKernel.compiled.clear()
    with minitorch.cuda.use_custom_kernels(False):
        minitorch.relu(x)
    assert FakeElementwiseKernel.compiled == []


def test_fused_cross_entropy_on_cuda_matches_cpu(fake_gpu, rng):
    logits = rng.standard_normal((6, 4)).astype(np.float32)
    target = np.array([0, 3, 1, 1, 2, 0])
    results = []
    for device in ("cpu", "cuda"):
        x = minitorch.tensor(logits).to(device).requires_grad_()
        loss = minitorch.nn.functional.cross_entropy(x, minitorch.tensor(target).to(device))
        loss.backward()
        results.append((loss.item(), x.grad.cpu().numpy(), type(loss.grad_fn).__name__))
    assert results[1][2] == "SoftmaxCrossEntropyBackward"
    assert results[0][0] == pytest.approx(results[1][0], rel=1e-6)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("ignore_index", [None, 1])
def test_float16_cross_entropy_on_cuda_matches_cpu(fake_gpu, rng, ignore_index):
    """A ``.half()`` classifier on cuda: the loss kernels' float16 sources compile (the fake compiles
    each call's real CUDA source) and the loss and gradient match the CPU's float16 and float64."""
    logits = rng.standard_normal((6, 4)).astype(np.float16)
    target = np.array([0, 3, 1, 1, 2, 0])
    kwargs = {} if ignore_index is None else {"ignore_index": ignore_index}
    results = []
    for device, dtype in (("cpu", np.float64), ("cpu", np.float16), ("cuda", np.float16)):
        x = minitorch.tensor(logits.astype(dtype)).to(device).requires_grad_()
        loss = minitorch.nn.functional.cross_entropy(x, minitorch.tensor(target).to(device), **kwargs)
        loss.backward()
        assert loss.dtype == x.dtype and x.grad.dtype == x.dtype
        results.append((float(loss.item()), x.grad.cpu().numpy().astype(np.float64)))
    (want_loss, want_grad), (cpu_loss, cpu_grad), (gpu_loss, gpu_grad) = results
    assert gpu_loss == pytest.approx(want_loss, rel=2e-3) and gpu_loss == pytest.approx(cpu_loss, rel=2e-3)
    np.testing.assert_allclose(gpu_grad, want_grad, rtol=1e-2, atol=2e-4)
    np.testing.assert_allclose(gpu_grad, cpu_grad, rtol=1e-2, atol=2e-4)


def test_fused_ops_gradcheck_on_cpu(rng):
    from minitorch.autograd import gradcheck
    from minitorch.functions.fused import bias_relu, softmax_cross_entropy

    x = minitorch.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    b = minitorch.tensor(rng.standard_normal(4), requires_grad=True)
    assert gradcheck(bias_relu, (x, b))
    target = minitorch.tensor([0, 3, 2])
    for reduction in ("mean", "sum", "none"):
        assert gradcheck(lambda z, r=reduction: softmax_cross_entropy(z, target, r), (x,))


# ---------------------------------------------------------------------- no hidden host copies
def test_training_step_on_device_reads_nothing_back(fake_gpu, monkeypatch, fast_kernels):
    """Forward, backward and an optimizer step copy nothing to the host (fake GPU)."""
    reads = []
    for name in ("get", "item", "tolist", "__int__", "__float__", "__bool__", "__index__"):
        original = getattr(np.ndarray, name) if name != "get" else FakeDeviceArray.get

        def spy(self, *args, _name=name, _original=original):
            reads.append(_name)
            return _original(self, *args)

        monkeypatch.setattr(FakeDeviceArray, name, spy)
    minitorch.manual_seed(0)
    model = minitorch.nn.Sequential(
        minitorch.nn.Linear(8, 16), minitorch.nn.ReLU(), minitorch.nn.Linear(16, 3)
    ).to("cuda")
    opt = minitorch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    x = minitorch.randn(32, 8, device="cuda")
    y = minitorch.randint(0, 3, (32,), device="cuda")
    reads.clear()
    FakeElementwiseKernel.compiled.clear()
    for _ in range(2):
        opt.zero_grad()
        loss = minitorch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
    assert reads == []
    assert {
        "minitorch_bias_relu_forward",  # Sequential runs Linear -> ReLU as one BiasReLU kernel
        "minitorch_relu_backward",
        "minitorch_softmax_xent_backward",
        "minitorch_sgd_momentum_step",
    } <= set(FakeElementwiseKernel.compiled)
    assert all(p.device == "cuda" for p in model.parameters())
    assert all(s["momentum_buffer"].__class__ is FakeDeviceArray for s in opt.state.values())
