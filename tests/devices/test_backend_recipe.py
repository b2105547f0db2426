"""A new backend is one file plus one registration: the recipe, followed and exercised.

``simulated_backend.py`` adds a device ``"sim"`` (in a test, so it is registered here
and removed afterwards). Nothing else in MiniTorch knows about it, yet tensors, every
kind of op, backward, modules, optimizers and the error messages work on it.
"""

import numpy as np
import pytest
import simulated_backend
from fake_cupy import FakeDeviceArray

import minitorch
from minitorch import backends, nn
from minitorch.errors import MiniTorchError
from minitorch.nn import functional as F


@pytest.fixture
def sim():
    backend = simulated_backend.register()
    yield backend
    backends.unregister("sim")


def test_the_device_name_is_known_once_registered(sim):
    assert "sim" in backends.names()
    assert backends.normalize_device("sim:0") == "sim"
    with pytest.raises(MiniTorchError, match="single"):
        backends.normalize_device("sim:1")
    with pytest.raises(ValueError, match="already registered"):
        simulated_backend.register()


def test_unknown_after_unregistering():
    simulated_backend.register()
    backends.unregister("sim")
    with pytest.raises(MiniTorchError, match="unknown device 'sim'"):
        minitorch.zeros(2, device="sim")


def test_tensors_live_on_the_new_device(sim):
    x = minitorch.tensor([1.0, 2.0], device="sim")
    assert x.device == "sim" and isinstance(x.data, FakeDeviceArray)
    assert minitorch.zeros(2, 3, device="sim").device == "sim"
    assert minitorch.arange(4, device="sim").device == "sim"
    assert repr(x) == "tensor([1., 2.], device='sim:0')"
    assert x.cpu().device == "cpu" and x.tolist() == [1.0, 2.0]


def test_ops_and_backward_stay_on_the_device(sim, rng):
    a_np, w_np = rng.standard_normal((4, 3)), rng.standard_normal((3, 2))
    results = {}
    for device in ("cpu", "sim"):
        a = minitorch.tensor(a_np, device=device, requires_grad=True)
        w = minitorch.tensor(w_np, device=device, requires_grad=True)
        loss = ((a @ w).relu() * 2 - a.sum(1, keepdim=True).exp().log()).mean() + a[1:, 0].sum()
        loss.backward()
        assert loss.device == a.grad.device == w.grad.device == device
        results[device] = (loss.item(), a.grad.cpu().numpy(), w.grad.cpu().numpy())
    np.testing.assert_allclose(results["sim"][0], results["cpu"][0])
    for got, want in zip(results["sim"][1:], results["cpu"][1:]):
        np.testing.assert_allclose(got, want)


def test_moving_between_devices_is_differentiable(sim):
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    y = (x.to("sim") * 3).sum()
    assert y.device == "sim"
    y.backward()
    assert x.grad.device == "cpu" and x.grad.tolist() == [3.0, 3.0]


def test_mixing_devices_is_an_error_naming_both(sim):
    with pytest.raises(MiniTorchError, match=r"Add.*input 0 on cpu, input 1 on sim"):
        minitorch.ones(2) + minitorch.ones(2, device="sim")


def test_a_training_step_matches_the_cpu(sim, rng):
    x_np = rng.standard_normal((8, 4)).astype(np.float32)
    y_np = rng.integers(0, 3, 8)
    weights = {}
    for device in ("cpu", "sim"):
        minitorch.manual_seed(0)
        model = nn.Sequential(nn.Linear(4, 5), nn.ReLU(), nn.Linear(5, 3)).to(device)
        opt = minitorch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        for _ in range(3):
            opt.zero_grad()
            loss = F.cross_entropy(model(minitorch.tensor(x_np, device=device)), minitorch.tensor(y_np, device=device))
            loss.backward()
            opt.step()
        assert all(p.device == device for p in model.parameters())
        weights[device] = [p.detach().cpu().numpy() for p in model.parameters()]
    for got, want in zip(weights["sim"], weights["cpu"]):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
