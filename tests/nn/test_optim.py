"""Optimizers and schedulers: step-for-step agreement with PyTorch, state_dict, errors."""

import numpy as np
import pytest

import minitorch
from minitorch import nn

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
    with pytest.raises(ValueError, match="empty"):
        minitorch.optim.SGD([], lr=0.1)
    with pytest.raises(TypeError, match="iterable"):
        minitorch.optim.SGD(minitorch.ones(2, requires_grad=True), lr=0.1)
    with pytest.raises(ValueError, match="non-leaf"):
        minitorch.optim.Adam([minitorch.ones(2, requires_grad=True) * 2])
    with pytest.raises(ValueError, match="Nesterov"):
        minitorch.optim.SGD([minitorch.ones(2, requires_grad=True)], lr=0.1, nesterov=True)


# ---------------------------------------------------------------------- 0-d and frozen parameters
ALL_CONFIGS = CONFIGS + [
    ("SGD", dict(lr=0.1, momentum=0.9, weight_decay=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.5)),
    ("SGD", dict(lr=0.1, weight_decay=0.2)),
    ("AdamW", dict(lr=1e-2, betas=(0.5, 0.9), weight_decay=0.1)),
]


def _run_both(torch, name, kwargs, shapes, rng, steps=5, round_trip_at=None, dtype=np.float64):
    """Step a MiniTorch and a PyTorch optimizer side by side on params of ``shapes``; compare every step.

    With ``round_trip_at`` both optimizers are rebuilt from their state_dicts after that step.
    """
    values = [np.asarray(rng.standard_normal(s), dtype=dtype) for s in shapes]
    mt = [minitorch.tensor(v, requires_grad=True) for v in values]
    th = [torch.tensor(v, requires_grad=True) for v in values]
    mt_opt = getattr(minitorch.optim, name)(mt, **kwargs)
    th_opt = getattr(torch.optim, name)(th, **kwargs)
    for step in range(steps):
        grads = [np.asarray(rng.standard_normal(s), dtype=dtype) for s in shapes]
        for m, t, g in zip(mt, th, grads):
            m.grad, t.grad = minitorch.tensor(g), torch.tensor(g)
        mt_opt.step()
        th_opt.step()
        for i, (m, t) in enumerate(zip(mt, th)):
            assert m.shape == tuple(t.shape)
            np.testing.assert_allclose(m.data, t.detach().numpy(), rtol=1e-12, atol=1e-14, err_msg=f"step {step}, {i}")
        if step == round_trip_at:
            saved = mt_opt.state_dict()
            mt_opt = getattr(minitorch.optim, name)(mt, **kwargs)
            mt_opt.load_state_dict(saved)
    return mt_opt


@pytest.mark.parametrize("name,kwargs", ALL_CONFIGS, ids=lambda v: str(v))
def test_zero_dim_parameters_match_torch_step_for_step(rng, name, kwargs):
    torch = pytest.importorskip("torch")
    opt = _run_both(torch, name, kwargs, [(), (3,), ()], rng, steps=6)
    for state in opt.state.values():  # buffers stay arrays updated in place, even for 0-d parameters
        for key, value in state.items():
            if key != "step":
                assert isinstance(value, np.ndarray), (key, type(value))


@pytest.mark.parametrize("name,kwargs", ALL_CONFIGS, ids=lambda v: str(v))
def test_state_dict_round_trip_mid_training_matches_torch(rng, name, kwargs):
    torch = pytest.importorskip("torch")
    _run_both(torch, name, kwargs, [(), (2, 3)], rng, steps=6, round_trip_at=2)


def test_sgd_momentum_buffer_of_a_scalar_parameter_is_updated_in_place():
    p = minitorch.nn.Parameter(minitorch.tensor(1.0, dtype=minitorch.float64))
    opt = minitorch.optim.SGD([p], lr=0.1, momentum=0.9, weight_decay=0.1)
    for _ in range(3):
        p.grad = minitorch.tensor(1.0, dtype=minitorch.float64)
        opt.step()
    # buf: 1.1, then 0.9*1.1 + (1 + 0.1*p1) ..., checked against the formula by hand
    p_val, buf = 1.0, None
    for _ in range(3):
        g = 1.0 + 0.1 * p_val
        buf = g if buf is None else 0.9 * buf + g
        p_val -= 0.1 * buf
    assert p.item() == pytest.approx(p_val, rel=1e-12)
    assert float(opt.state[p]["momentum_buffer"]) == pytest.approx(buf, rel=1e-12)


@pytest.mark.parametrize("name,kwargs", ALL_CONFIGS, ids=lambda v: str(v))
def test_frozen_layer_is_accepted_and_skipped_as_torch(name, kwargs):
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    th_model = torch.nn.Sequential(torch.nn.Linear(4, 5), torch.nn.ReLU(), torch.nn.Linear(5, 2)).double()
    mt_model = nn.Sequential(nn.Linear(4, 5), nn.ReLU(), nn.Linear(5, 2)).double()
    mt_model.load_state_dict({k: v.numpy() for k, v in th_model.state_dict().items()})
    th_model[0].requires_grad_(False)
    mt_model[0].requires_grad_(False)
    th_opt = getattr(torch.optim, name)(th_model.parameters(), **kwargs)  # the fine-tuning recipe
    mt_opt = getattr(minitorch.optim, name)(mt_model.parameters(), **kwargs)
    frozen = mt_model[0].weight.data.copy()
    rng = np.random.default_rng(1)
    for _ in range(4):
        x = rng.standard_normal((3, 4))
        for model, opt, lib in ((th_model, th_opt, torch), (mt_model, mt_opt, minitorch)):
            opt.zero_grad()
            (model(lib.tensor(x)) ** 2).sum().backward()
            opt.step()
    np.testing.assert_array_equal(mt_model[0].weight.data, frozen)
    assert mt_model[0].weight.grad is None
    for key, value in th_model.state_dict().items():
        np.testing.assert_allclose(mt_model.state_dict()[key].data, value.numpy(), rtol=1e-11, atol=1e-13)


def test_a_model_frozen_entirely_is_accepted_and_step_changes_nothing():
    model = nn.Linear(2, 2).requires_grad_(False)
    before = model.weight.data.copy()
    opt = minitorch.optim.Adam(model.parameters(), lr=0.1)
    opt.step()
    np.testing.assert_array_equal(model.weight.data, before)


def test_named_parameters_are_accepted_as_in_torch():
    model = nn.Linear(2, 3)
    opt = minitorch.optim.SGD(model.named_parameters(), lr=0.1)
    assert opt.param_groups[0]["param_names"] == ["weight", "bias"]
    assert opt.param_groups[0]["params"][0] is model.weight
