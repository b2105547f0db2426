"""Optimizers and schedulers: step-for-step agreement with PyTorch, state_dict, errors."""

import numpy as np
import pytest

import minitorch
from minitorch import nn
from minitorch.errors import MiniTorchError

CONFIGS = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9)),
    ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=1e-2)),
    ("SGD", dict(lr=0.05, momentum=0.8, dampening=0.3, weight_decay=1e-3)),
    ("Adam", dict(lr=1e-2)),
    ("Adam", dict(lr=3e-3, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1)),
    ("AdamW", dict(lr=1e-2)),
    ("AdamW", dict(lr=1e-2, weight_decay=0.3)),
]


def _pair_of_params(torch, rng, dtype):
    values = [rng.standard_normal((4, 3)).astype(dtype), rng.standard_normal(3).astype(dtype)]
    mt = [minitorch.tensor(v, requires_grad=True) for v in values]
    th = [torch.tensor(v, requires_grad=True) for v in values]
    return mt, th


@pytest.mark.parametrize("name,kwargs", CONFIGS)
@pytest.mark.parametrize("dtype,rtol", [(np.float64, 1e-12), (np.float32, 2e-5)])
def test_optimizer_matches_torch_step_for_step(rng, name, kwargs, dtype, rtol):
    torch = pytest.importorskip("torch")
    mt_params, th_params = _pair_of_params(torch, rng, dtype)
    mt_opt = getattr(minitorch.optim, name)(mt_params, **kwargs)
    th_opt = getattr(torch.optim, name)(th_params, **kwargs)
    for _ in range(6):
        grads = [rng.standard_normal(p.shape).astype(dtype) for p in mt_params]
        for p, g in zip(mt_params, grads):
            p.grad = minitorch.tensor(g)
        for p, g in zip(th_params, grads):
            p.grad = torch.tensor(g)
        mt_opt.step()
        th_opt.step()
        for m, t in zip(mt_params, th_params):
            assert m.data.dtype == dtype
            np.testing.assert_allclose(m.data, t.detach().numpy(), rtol=rtol, atol=rtol * 1e-2)


def test_training_a_model_matches_torch(rng):
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    th_model = torch.nn.Sequential(torch.nn.Linear(5, 7), torch.nn.ReLU(), torch.nn.Linear(7, 3)).double()
    mt_model = nn.Sequential(nn.Linear(5, 7), nn.ReLU(), nn.Linear(7, 3)).double()
    mt_model.load_state_dict({k: v.numpy() for k, v in th_model.state_dict().items()})
    th_opt = torch.optim.Adam(th_model.parameters(), lr=1e-2)
    mt_opt = minitorch.optim.Adam(mt_model.parameters(), lr=1e-2)
    th_sched = torch.optim.lr_scheduler.CosineAnnealingLR(th_opt, T_max=4)
    mt_sched = minitorch.optim.lr_scheduler.CosineAnnealingLR(mt_opt, T_max=4)
    for _ in range(4):
        for _ in range(3):
            x, y = rng.standard_normal((8, 5)), rng.integers(0, 3, 8)
            th_loss = torch.nn.functional.cross_entropy(th_model(torch.tensor(x)), torch.tensor(y))
            mt_loss = nn.functional.cross_entropy(mt_model(minitorch.tensor(x)), minitorch.tensor(y))
            for opt, loss in ((th_opt, th_loss), (mt_opt, mt_loss)):
                opt.zero_grad()
                loss.backward()
                opt.step()
            np.testing.assert_allclose(mt_loss.item(), th_loss.item(), rtol=1e-10)
        th_sched.step()
        mt_sched.step()
    for key, value in th_model.state_dict().items():
        np.testing.assert_allclose(mt_model.state_dict()[key].data, value.numpy(), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize(
    "name,kwargs",
    [("StepLR", dict(step_size=3, gamma=0.5)), ("CosineAnnealingLR", dict(T_max=7)),
     ("CosineAnnealingLR", dict(T_max=5, eta_min=1e-3))],
)
def test_schedulers_match_torch(name, kwargs):
    torch = pytest.importorskip("torch")
    th_opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
    mt_opt = minitorch.optim.SGD([minitorch.zeros(1, requires_grad=True)], lr=0.1)
    th_s = getattr(torch.optim.lr_scheduler, name)(th_opt, **kwargs)
    mt_s = getattr(minitorch.optim.lr_scheduler, name)(mt_opt, **kwargs)
    for _ in range(16):
        np.testing.assert_allclose(mt_s.get_last_lr(), th_s.get_last_lr(), rtol=1e-12, atol=1e-15)
        assert mt_opt.param_groups[0]["lr"] == pytest.approx(th_opt.param_groups[0]["lr"], rel=1e-12, abs=1e-15)
        th_opt.step()
        mt_opt.step()
        th_s.step()
        mt_s.step()


def test_optimizer_state_dict_round_trip_continues_identically(rng, tmp_path):
    def make():
        minitorch.manual_seed(0)
        model = nn.Linear(3, 2)
        return model, minitorch.optim.Adam(model.parameters(), lr=0.1)

    def train_step(model, opt, x):
        opt.zero_grad()
        (model(x) ** 2).mean().backward()
        opt.step()

    xs = [minitorch.tensor(rng.standard_normal((4, 3)).astype(np.float32)) for _ in range(4)]
    model, opt = make()
    for x in xs[:2]:
        train_step(model, opt, x)
    minitorch.save({"model": model.state_dict(), "opt": opt.state_dict()}, tmp_path / "ckpt.npz")
    for x in xs[2:]:
        train_step(model, opt, x)

    model2, opt2 = make()
    ckpt = minitorch.load(tmp_path / "ckpt.npz")
    model2.load_state_dict(ckpt["model"])
    opt2.load_state_dict(ckpt["opt"])
    for x in xs[2:]:
        train_step(model2, opt2, x)
    np.testing.assert_array_equal(model2.weight.data, model.weight.data)
    assert opt2.state[model2.weight]["step"] == 4


def test_zero_grad_and_skipping_params_without_grad():
    a = minitorch.ones(2, requires_grad=True)
    b = minitorch.ones(2, requires_grad=True)
    opt = minitorch.optim.SGD([a, b], lr=1.0)
    (a * 3).sum().backward()
    opt.step()
    np.testing.assert_array_equal(a.data, [-2, -2])
    np.testing.assert_array_equal(b.data, [1, 1])  # no grad: untouched
    opt.zero_grad()
    assert a.grad is None
    (a * 3).sum().backward()
    opt.zero_grad(set_to_none=False)
    np.testing.assert_array_equal(a.grad.data, [0, 0])


def test_param_groups_have_their_own_lr():
    a, b = minitorch.ones(1, requires_grad=True), minitorch.ones(1, requires_grad=True)
    opt = minitorch.optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.5}], lr=0.1)
    (a + b).sum().backward()
    opt.step()
    assert a.item() == pytest.approx(0.9) and b.item() == pytest.approx(0.5)
    assert "Parameter Group 1" in repr(opt)


def test_optimizer_errors():
    with pytest.raises(MiniTorchError, match="empty"):
        minitorch.optim.SGD([], lr=0.1)
    with pytest.raises(TypeError, match="iterable"):
        minitorch.optim.SGD(minitorch.ones(2, requires_grad=True), lr=0.1)
    with pytest.raises(MiniTorchError, match="leaf"):
        minitorch.optim.Adam([minitorch.ones(2)])
    with pytest.raises(MiniTorchError, match="Nesterov"):
        minitorch.optim.SGD([minitorch.ones(2, requires_grad=True)], lr=0.1, nesterov=True)
