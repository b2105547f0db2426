"""The same ops, autograd, nn, optim and save/load on every device, compared with the CPU.

Parametrised over "cpu", "cuda" (a real GPU: skipped with the reason when none is usable)
and "fake-cuda" (``tests/devices/fake_cupy.py``: the device bookkeeping without a GPU, so the
GPU code paths run on every machine). Each test computes on the device and checks
values, gradients and where the results live against a CPU run of the same thing.
"""


import fake_cupy
import numpy as np
import pytest
from fake_cupy import FakeCupy

import minitorch
from minitorch import backends
from minitorch.nn import functional as F


def _real_cuda():
    usable = minitorch.cuda.is_available()
    reason = "no usable GPU: " + minitorch.cuda.unavailable_reason()
    return pytest.param("cuda", marks=[pytest.mark.gpu, pytest.mark.skipif(not usable, reason=reason)], id="cuda")


@pytest.fixture(params=["cpu", _real_cuda(), "fake-cuda"])
def device(request, monkeypatch):
    """The device name to use ("cuda" for the fake too, which stands in for CuPy)."""
    if request.param != "fake-cuda":
        yield request.param
        return
    fake_cupy.install(monkeypatch, FakeCupy())
    backends.reset_probes()
    assert minitorch.cuda.is_available()
    yield "cuda"
    backends.reset_probes()


def host(t):
    """A tensor's values as a NumPy array, from any device."""
    return t.detach().cpu().numpy()


def run_both(fn, arrays, device):
    """fn on CPU tensors and on device tensors made from ``arrays``; values and grads of each."""
    out = {}
    for where in ("cpu", device):
        inputs = [minitorch.tensor(a).to(where).requires_grad_() for a in arrays]
        y = fn(*inputs)
        assert y.device == where, f"result of {fn} left {where}"
        weights = minitorch.tensor(np.linspace(0.5, 1.5, y.numel()).reshape(y.shape), dtype=y.dtype)
        (y * weights.to(where)).sum().backward()
        for t in inputs:
            assert t.grad is None or t.grad.device == where
        out[where] = (host(y), [None if t.grad is None else host(t.grad) for t in inputs])
    return out["cpu"], out[device]


OPS = {
    "add_broadcast": (lambda a, b: a + b[0], [(3, 4), (1, 4)]),
    "sub_mul_div": (lambda a, b: (a - b) * a / (b.abs() + 1), [(3, 4), (3, 4)]),
    "pow_scalar": (lambda a, b: a**2 + b**3, [(3, 4), (3, 4)]),
    "pow_tensor": (lambda a, b: a.abs() ** b, [(3, 4), (3, 4)]),
    "unary": (lambda a, b: a.exp() + b.sigmoid() + a.tanh() + b.relu() + a.sin() * b.cos(), [(3, 4), (3, 4)]),
    "log_sqrt": (lambda a, b: (a.abs() + 1).log() + (b.abs() + 1).sqrt(), [(3, 4), (3, 4)]),
    "clamp_max_min": (
        lambda a, b: a.clamp(-0.5, 0.5) + minitorch.maximum(a, b) - minitorch.minimum(a, b),
        [(3, 4), (3, 4)],
    ),
    "where_scalar": (lambda a, b: minitorch.where(a > 0, a, 0.0) + minitorch.where(b > 0, a, b), [(3, 4), (3, 4)]),
    "matmul": (lambda a, b: a @ b.T, [(3, 4), (5, 4)]),
    "batched_matmul": (lambda a, b: a.reshape(2, 3, 2) @ b.reshape(2, 2, 5)[:1], [(3, 4), (5, 4)]),
    "reductions": (
        lambda a, b: a.sum(0) + a.mean(1).sum() + a.amax(1).sum() + b.var(0) + b.logsumexp(1).sum(),
        [(3, 4), (3, 4)],
    ),
    "max_dim": (lambda a, b: a.max(1)[0] + b.min(0)[0].sum(), [(3, 4), (3, 4)]),
    "shapes": (
        lambda a, b: a.view(4, 3).T.reshape(2, 6).unsqueeze(0).expand(2, 2, 6).flatten(1).sum(0)
        + minitorch.cat([a, b], 1).permute(1, 0).reshape(-1)[:12]
        + minitorch.stack([a, b]).sum(0).reshape(-1),
        [(3, 4), (3, 4)],
    ),
    "indexing": (
        lambda a, b: a[minitorch.tensor([0, 2, 0])].sum(0) + b[b > 0].sum() + a[1:, ::2].sum() + a[..., None][0, 1],
        [(3, 4), (3, 4)],
    ),
}


@pytest.mark.parametrize("name", sorted(OPS))
def test_ops_and_gradients_match_cpu(device, name, rng):
    fn, shapes = OPS[name]
    arrays = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    (y_cpu, g_cpu), (y_dev, g_dev) = run_both(fn, arrays, device)
    np.testing.assert_allclose(y_dev, y_cpu, rtol=1e-5, atol=1e-5)
    for a, b in zip(g_cpu, g_dev):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-5)


def test_gradcheck_on_device(device, rng):
    x = minitorch.tensor(rng.standard_normal((3, 4))).to(device).requires_grad_()
    w = minitorch.tensor(rng.standard_normal((4, 2))).to(device).requires_grad_()
    assert minitorch.autograd.gradcheck(lambda a, b: ((a @ b).tanh() * a.sum(1, keepdim=True)).relu(), (x, w))


def test_factories_on_device(device):
    made = [
        minitorch.zeros(2, 3, device=device),
        minitorch.ones(2, device=device),
        minitorch.full((2,), 7.0, device=device),
        minitorch.arange(5, device=device),
        minitorch.linspace(0, 1, 5, device=device),
        minitorch.eye(3, device=device),
        minitorch.zeros_like(minitorch.ones(2, device=device)),
    ]
    assert all(t.device == device for t in made)
    assert made[3].tolist() == [0, 1, 2, 3, 4] and made[3].dtype == minitorch.int64
    for factory in (minitorch.rand, minitorch.randn):
        minitorch.manual_seed(3)
        a = factory(4, 5)
        minitorch.manual_seed(3)
        b = factory(4, 5, device=device)
        assert b.device == device
        np.testing.assert_array_equal(host(a), host(b))  # same seed, same numbers anywhere


def test_moves_are_differentiable(device):
    x = minitorch.tensor([1.0, -2.0, 3.0], requires_grad=True)
    y = (x.to(device) * 3).relu().cpu().sum()
    y.backward()
    assert x.grad.device == "cpu" and x.grad.tolist() == [3.0, 0.0, 3.0]
    assert x.cuda().device == "cuda" if device == "cuda" else True
    assert "device='cuda:0'" in repr(x.to(device)) or device == "cpu"


def _mlp():
    return minitorch.nn.Sequential(
        minitorch.nn.Linear(6, 16), minitorch.nn.ReLU(), minitorch.nn.Linear(16, 3)
    )


@pytest.mark.parametrize("optimizer", ["sgd", "adam"])
def test_training_steps_match_cpu(device, optimizer, rng):
    x = rng.standard_normal((20, 6)).astype(np.float32)
    target = rng.integers(0, 3, 20)
    results = {}
    for where in ("cpu", device):
        minitorch.manual_seed(0)
        model = _mlp().to(where)
        params = list(model.parameters())
        if optimizer == "sgd":
            opt = minitorch.optim.SGD(params, lr=0.1, momentum=0.9, weight_decay=1e-3)
        else:
            opt = minitorch.optim.Adam(params, lr=1e-2)
        xs, ts = minitorch.tensor(x).to(where), minitorch.tensor(target).to(where)
        losses = []
        for _ in range(3):
            opt.zero_grad()
            loss = F.cross_entropy(model(xs), ts)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        assert all(p.device == where for p in model.parameters())
        for state in opt.state.values():
            for value in state.values():
                if backends.is_backend_array(value):
                    assert backends.device_of(value) == where  # optimizer state lives with p
        results[where] = (losses, [host(p) for p in model.parameters()])
    np.testing.assert_allclose(results[device][0], results["cpu"][0], rtol=1e-5)
    for a, b in zip(results["cpu"][1], results[device][1]):
        np.testing.assert_allclose(b, a, rtol=1e-4, atol=1e-6)


def test_conv_pool_batchnorm_match_cpu(device, rng):
    x = rng.standard_normal((2, 3, 8, 8)).astype(np.float32)
    outs = {}
    for where in ("cpu", device):
        minitorch.manual_seed(1)
        net = minitorch.nn.Sequential(
            minitorch.nn.Conv2d(3, 4, 3, padding=1),
            minitorch.nn.BatchNorm2d(4),
            minitorch.nn.ReLU(),
            minitorch.nn.MaxPool2d(2),
            minitorch.nn.Flatten(),
            minitorch.nn.Linear(64, 2),
        ).to(where)
        xs = minitorch.tensor(x).to(where).requires_grad_()
        net(xs).sum().backward()
        outs[where] = [host(xs.grad)] + [host(p.grad) for p in net.parameters()]
    for a, b in zip(outs["cpu"], outs[device]):
        np.testing.assert_allclose(b, a, rtol=1e-4, atol=1e-5)


def test_save_load_from_device_model(device, tmp_path):
    minitorch.manual_seed(2)
    model = _mlp().to(device)
    path = tmp_path / "model.npz"
    minitorch.save(model.state_dict(), path)
    restored = _mlp()
    restored.load_state_dict(minitorch.load(path))
    for (name, p), (_, q) in zip(model.named_parameters(), restored.named_parameters()):
        assert q.device == "cpu"
        np.testing.assert_array_equal(host(p), host(q), err_msg=name)
    on_device = minitorch.load(path, map_location=device)
    assert all(v.device == device for v in on_device.values())
