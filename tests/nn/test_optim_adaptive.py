"""RMSprop, Adagrad and Adadelta: step-for-step agreement with PyTorch, state_dict, hyperparameter checks."""

import numpy as np
import pytest

import minitorch
from minitorch import nn

CONFIGS = [
    ("RMSprop", dict()),
    ("RMSprop", dict(lr=0.01, alpha=0.9, eps=1e-6)),
    ("RMSprop", dict(lr=0.01, momentum=0.9)),
    ("RMSprop", dict(lr=0.01, centered=True)),
    ("RMSprop", dict(lr=0.005, alpha=0.8, momentum=0.5, centered=True, weight_decay=0.1)),
    ("Adagrad", dict()),
    ("Adagrad", dict(lr=0.1, lr_decay=0.05)),
    ("Adagrad", dict(lr=0.1, weight_decay=0.2, initial_accumulator_value=0.3, eps=1e-6)),
    ("Adadelta", dict()),
    ("Adadelta", dict(lr=0.5, rho=0.8, eps=1e-5)),
    ("Adadelta", dict(lr=1.0, rho=0.95, weight_decay=0.1)),
]
ids = [f"{n}-{k}" for n, k in CONFIGS]


def _run_both(torch, name, kwargs, shapes, rng, steps=6, round_trip_at=None, dtype=np.float64, rtol=1e-12):
    """Step a MiniTorch and a PyTorch optimizer side by side on params of ``shapes``; compare every step.

    With ``round_trip_at`` the MiniTorch optimizer is rebuilt from its state_dict after that step.
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
            assert m.data.dtype == dtype and m.shape == tuple(t.shape)
            np.testing.assert_allclose(m.data, t.detach().numpy(), rtol=rtol, atol=rtol * 1e-2,
                                       err_msg=f"step {step}, param {i}")
        if step == round_trip_at:
            saved = mt_opt.state_dict()
            mt_opt = getattr(minitorch.optim, name)(mt, **kwargs)
            mt_opt.load_state_dict(saved)
    return mt_opt, th_opt


@pytest.mark.parametrize("name,kwargs", CONFIGS, ids=ids)
@pytest.mark.parametrize("dtype,rtol", [(np.float64, 1e-12), (np.float32, 2e-5)])
def test_matches_torch_step_for_step(rng, name, kwargs, dtype, rtol):
    torch = pytest.importorskip("torch")
    _run_both(torch, name, kwargs, [(4, 3), (3,)], rng, dtype=dtype, rtol=rtol)


@pytest.mark.parametrize("name,kwargs", CONFIGS, ids=ids)
def test_zero_dim_parameters_match_torch(rng, name, kwargs):
    torch = pytest.importorskip("torch")
    opt, _ = _run_both(torch, name, kwargs, [(), (3,), ()], rng)
    for state in opt.state.values():  # buffers stay arrays updated in place, even for 0-d parameters
        for key, value in state.items():
            if key != "step":
                assert isinstance(value, np.ndarray), (key, type(value))


@pytest.mark.parametrize("name,kwargs", CONFIGS, ids=ids)
def test_state_dict_round_trip_mid_training_matches_torch(rng, name, kwargs):
    torch = pytest.importorskip("torch")
    mt_opt, th_opt = _run_both(torch, name, kwargs, [(), (2, 3)], rng, round_trip_at=2)
    mt_state, th_state = mt_opt.state_dict()["state"], th_opt.state_dict()["state"]
    assert sorted(mt_state) == sorted(th_state)
    for i, buffers in th_state.items():
        assert sorted(mt_state[i]) == sorted(buffers)  # the same buffer names as PyTorch
        assert mt_state[i]["step"] == int(buffers["step"])
        for key, value in buffers.items():
            if key != "step":
                np.testing.assert_allclose(mt_state[i][key].data, value.numpy(), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("name,kwargs", CONFIGS, ids=ids)
def test_save_and_load_through_a_file(rng, name, kwargs, tmp_path):
    torch = pytest.importorskip("torch")
    mt_opt, _ = _run_both(torch, name, kwargs, [(2, 2)], rng, steps=2)
    minitorch.save(mt_opt.state_dict(), tmp_path / "opt.npz")
    params = mt_opt.param_groups[0]["params"]
    fresh = getattr(minitorch.optim, name)(params, **kwargs)
    fresh.load_state_dict(minitorch.load(tmp_path / "opt.npz", weights_only=True))
    for key, value in mt_opt.state[params[0]].items():
        np.testing.assert_array_equal(fresh.state[params[0]][key], value)


@pytest.mark.parametrize("name,kwargs", CONFIGS, ids=ids)
def test_frozen_layer_is_skipped_as_torch(name, kwargs):
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    th_model = torch.nn.Sequential(torch.nn.Linear(4, 5), torch.nn.ReLU(), torch.nn.Linear(5, 2)).double()
    mt_model = nn.Sequential(nn.Linear(4, 5), nn.ReLU(), nn.Linear(5, 2)).double()
    mt_model.load_state_dict({k: v.numpy() for k, v in th_model.state_dict().items()})
    th_model[0].requires_grad_(False)
    mt_model[0].requires_grad_(False)
    th_opt = getattr(torch.optim, name)(th_model.parameters(), **kwargs)
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
    for key, value in th_model.state_dict().items():
        np.testing.assert_allclose(mt_model.state_dict()[key].data, value.numpy(), rtol=1e-11, atol=1e-13)


@pytest.mark.parametrize("name", ["RMSprop", "Adagrad", "Adadelta"])
def test_step_bumps_the_version_so_stale_graphs_are_caught(name):
    w = minitorch.ones(3, requires_grad=True)
    opt = getattr(minitorch.optim, name)([w])
    loss = (w * w).sum()  # Mul saved w for backward
    w.grad = minitorch.ones(3)
    opt.step()
    with pytest.raises(RuntimeError, match="modified by an inplace operation|changed"):
        loss.backward()


def test_adagrad_state_exists_from_the_start_as_torch():
    torch = pytest.importorskip("torch")
    mt = minitorch.optim.Adagrad([minitorch.ones(2, requires_grad=True)], initial_accumulator_value=0.5)
    th = torch.optim.Adagrad([torch.ones(2, requires_grad=True)], initial_accumulator_value=0.5)
    assert sorted(mt.state_dict()["state"][0]) == sorted(th.state_dict()["state"][0])
    np.testing.assert_array_equal(mt.state_dict()["state"][0]["sum"].data, [0.5, 0.5])


def test_load_state_dict_from_another_optimizer_is_refused():
    p = minitorch.ones(2, requires_grad=True)
    adam = minitorch.optim.Adam([p])
    p.grad = minitorch.ones(2)
    adam.step()
    with pytest.raises(ValueError, match="another optimizer"):
        minitorch.optim.Adadelta([p]).load_state_dict(adam.state_dict())


# ---------------------------------------------------------------------- hyperparameters, as PyTorch
BAD = [
    ("RMSprop", dict(lr=-1.0), "learning rate"),
    ("RMSprop", dict(alpha=-0.1), "alpha"),
    ("RMSprop", dict(eps=-1e-8), "epsilon"),
    ("RMSprop", dict(momentum=-0.5), "momentum"),
    ("RMSprop", dict(weight_decay=-1.0), "weight_decay"),
    ("RMSprop", dict(lr=float("nan")), "learning rate"),
    ("Adagrad", dict(lr=-1.0), "learning rate"),
    ("Adagrad", dict(lr_decay=-0.1), "lr_decay"),
    ("Adagrad", dict(weight_decay=-0.1), "weight_decay"),
    ("Adagrad", dict(initial_accumulator_value=-0.1), "initial_accumulator_value"),
    ("Adagrad", dict(eps=-1.0), "epsilon"),
    ("Adadelta", dict(lr=-1.0), "learning rate"),
    ("Adadelta", dict(rho=1.5), "rho"),
    ("Adadelta", dict(rho=-0.1), "rho"),
    ("Adadelta", dict(eps=-1.0), "epsilon"),
    ("Adadelta", dict(weight_decay=-1.0), "weight_decay"),
]


@pytest.mark.parametrize("name,kwargs,words", BAD, ids=[f"{n}-{k}" for n, k, _ in BAD])
def test_bad_hyperparameters_raise_value_error_as_torch(name, kwargs, words):
    with pytest.raises(ValueError, match=f"Invalid {words}"):
        getattr(minitorch.optim, name)([minitorch.ones(2, requires_grad=True)], **kwargs)
    try:
        import torch
    except ImportError:
        return
    if "nan" not in str(kwargs):  # PyTorch accepts NaN here; MiniTorch refuses it (as for SGD/Adam)
        with pytest.raises(ValueError, match=f"Invalid {words}"):
            getattr(torch.optim, name)([torch.ones(2, requires_grad=True)], **kwargs)


def test_hyperparameters_are_checked_in_added_groups_and_loaded_state():
    p, q = minitorch.ones(2, requires_grad=True), minitorch.ones(2, requires_grad=True)
    opt = minitorch.optim.RMSprop([p])
    with pytest.raises(ValueError, match="alpha"):
        opt.add_param_group({"params": [q], "alpha": -1.0})
    saved = opt.state_dict()
    saved["param_groups"][0]["alpha"] = float("nan")
    with pytest.raises(ValueError, match="alpha"):
        opt.load_state_dict(saved)
    assert opt.param_groups[0]["alpha"] == 0.99  # nothing changed


def test_lr_scheduler_drives_the_new_optimizers():
    torch = pytest.importorskip("torch")
    for name in ("RMSprop", "Adagrad", "Adadelta"):
        mt_opt = getattr(minitorch.optim, name)([minitorch.ones(1, requires_grad=True)], lr=0.5)
        th_opt = getattr(torch.optim, name)([torch.ones(1, requires_grad=True)], lr=0.5)
        mt_s = minitorch.optim.lr_scheduler.StepLR(mt_opt, step_size=2, gamma=0.5)
        th_s = torch.optim.lr_scheduler.StepLR(th_opt, step_size=2, gamma=0.5)
        for _ in range(5):
            mt_opt.step()
            th_opt.step()
            mt_s.step()
            th_s.step()
        assert mt_s.get_last_lr() == pytest.approx(th_s.get_last_lr())
