"""PyTorch's ``foreach``/``fused`` options: accepted and checked as PyTorch does, and never change the numbers.

``foreach`` and ``fused`` choose how fast an optimizer's formula runs (a group at once, or
one parameter after the other; minitorch/kernels/optimizers/), never what it computes. Here,
for each optimizer and its variants (weight decay, momentum, Nesterov, dampening, amsgrad,
centered, maximize): ``foreach=False``, ``True`` and the default agree with each other and
with ``torch.optim`` within float32 (float64) rounding, a PyTorch state_dict loads into
either, and the options are checked as PyTorch checks them. These tests pass with the fast
kernels on and off; the kernels themselves are tested in tests/kernels/test_optim_*.py.
"""

import numpy as np
import pytest

import minitorch
from minitorch.errors import MiniTorchError

CONFIGS = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=1e-2)),
    ("SGD", dict(lr=0.05, momentum=0.8, dampening=0.3, weight_decay=1e-3, maximize=True)),
    ("Adam", dict(lr=1e-2, weight_decay=0.1)),
    ("Adam", dict(lr=3e-3, betas=(0.8, 0.99), amsgrad=True)),
    ("Adam", dict(lr=1e-2, weight_decay=0.05, maximize=True)),
    ("AdamW", dict(lr=1e-2, weight_decay=0.3, amsgrad=True, maximize=True)),
    ("RMSprop", dict(lr=0.01, weight_decay=0.1)),
    ("RMSprop", dict(lr=0.01, momentum=0.9, maximize=True)),
    ("RMSprop", dict(lr=0.005, alpha=0.8, momentum=0.5, centered=True, weight_decay=0.1)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.05, weight_decay=0.2)),
    ("Adagrad", dict(lr=0.1, initial_accumulator_value=0.3, maximize=True)),
    ("Adadelta", dict(lr=0.5, rho=0.8, weight_decay=0.1)),
    ("Adadelta", dict(lr=1.0, maximize=True)),
]
IDS = [f"{name}-{kwargs}" for name, kwargs in CONFIGS]
SHAPES = [(6, 5), (5,), (), (1,), (3, 2, 2)]
STEPS = 5
TOLERANCE = {np.float32: 2e-6, np.float64: 1e-12}


def make_params(values):
    """Leaf tensors holding copies of ``values``."""
    return [minitorch.tensor(v.copy(), requires_grad=True) for v in values]


def random_steps(rng, values):
    """``STEPS`` lists of gradients shaped and typed like ``values``."""
    return [[rng.standard_normal(v.shape).astype(v.dtype) for v in values] for _ in range(STEPS)]


@pytest.mark.parametrize("name,kwargs", CONFIGS, ids=IDS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_foreach_false_true_and_default_give_the_same_numbers(rng, name, kwargs, dtype):
    values = [rng.standard_normal(s).astype(dtype) for s in SHAPES]
    runs = []
    for foreach in (False, True, None):
        params = make_params(values)
        runs.append((params, getattr(minitorch.optim, name)(params, foreach=foreach, **kwargs)))
    tol = TOLERANCE[dtype]
    for step, grads in enumerate(random_steps(rng, values)):
        for params, opt in runs:
            for p, g in zip(params, grads):
                p.grad = minitorch.tensor(g)
            opt.step()
        (ref_params, ref), others = runs[0], runs[1:]
        for params, opt in others:
            what = f"step {step}, foreach={opt.defaults['foreach']}"
            for i, (p, q) in enumerate(zip(params, ref_params)):
                np.testing.assert_allclose(p.data, q.data, rtol=tol, atol=tol, err_msg=f"{what}: param {i}")
                state, ref_state = opt.state.get(p, {}), ref.state.get(q, {})
                assert list(state) == list(ref_state), f"{what}: state keys of param {i}"
                for key, value in ref_state.items():
                    if key == "step":
                        assert type(state[key]) is int and state[key] == value, f"{what}: step of param {i}"
                    else:
                        assert isinstance(state[key], np.ndarray) and state[key].shape == q.shape, f"{what}: {key}"
                        np.testing.assert_allclose(state[key], value, rtol=tol, atol=tol, err_msg=f"{what}: {key} {i}")


@pytest.mark.parametrize("name,kwargs", CONFIGS, ids=IDS)
@pytest.mark.parametrize("foreach", [False, True], ids=["single_tensor", "foreach"])
@pytest.mark.parametrize("dtype,rtol", [(np.float32, 2e-5), (np.float64, 1e-12)])
def test_each_setting_matches_torch(rng, name, kwargs, foreach, dtype, rtol):
    torch = pytest.importorskip("torch")
    values = [rng.standard_normal(s).astype(dtype) for s in SHAPES]
    mt = make_params(values)
    th = [torch.tensor(v, requires_grad=True) for v in values]
    mt_opt = getattr(minitorch.optim, name)(mt, foreach=foreach, **kwargs)
    th_opt = getattr(torch.optim, name)(th, foreach=foreach, **kwargs)
    for step, grads in enumerate(random_steps(rng, values)):
        for m, t, g in zip(mt, th, grads):
            m.grad, t.grad = minitorch.tensor(g), torch.tensor(g)
        mt_opt.step()
        th_opt.step()
        for i, (m, t) in enumerate(zip(mt, th)):
            np.testing.assert_allclose(m.data, t.detach().numpy(), rtol=rtol, atol=rtol, err_msg=f"step {step} {i}")
            th_state = {k: v for k, v in th_opt.state[t].items() if v is not None}
            assert set(mt_opt.state.get(m, {})) == set(th_state), f"state keys, param {i}"
            for key, value in th_state.items():
                np.testing.assert_allclose(
                    np.asarray(mt_opt.state[m][key]), value.numpy(), rtol=rtol, atol=rtol, err_msg=f"{key} {i}"
                )
    if name == "SGD" and not kwargs.get("momentum"):  # no momentum, no state: as PyTorch's state_dict
        assert mt_opt.state_dict()["state"] == {} and mt_opt.state == {}


@pytest.mark.parametrize("name,kwargs", CONFIGS, ids=IDS)
@pytest.mark.parametrize("foreach", [False, True], ids=["single_tensor", "foreach"])
def test_a_torch_state_dict_loads_and_training_continues(rng, name, kwargs, foreach):
    torch = pytest.importorskip("torch")
    values = [rng.standard_normal(s) for s in SHAPES]
    th = [torch.tensor(v, requires_grad=True) for v in values]
    th_opt = getattr(torch.optim, name)(th, **kwargs)
    steps = random_steps(rng, values)
    for step, grads in enumerate(steps):
        if step == 2:  # mid-training: the parameters and PyTorch's optimizer state move over
            mt = make_params([t.detach().numpy() for t in th])
            mt_opt = getattr(minitorch.optim, name)(mt, foreach=foreach, **kwargs)
            mt_opt.load_state_dict(th_opt.state_dict())
            mt_opt.param_groups[0]["foreach"] = foreach  # a group setting: it came with the checkpoint
        for t, g in zip(th, grads):
            t.grad = torch.tensor(g)
        th_opt.step()
        if step >= 2:
            for m, g in zip(mt, grads):
                m.grad = minitorch.tensor(g)
            mt_opt.step()
    for i, (m, t) in enumerate(zip(mt, th)):
        np.testing.assert_allclose(m.data, t.detach().numpy(), rtol=1e-12, atol=1e-14, err_msg=f"param {i}")
    saved, th_saved = mt_opt.state_dict()["state"], th_opt.state_dict()["state"]  # the same entries as PyTorch's
    assert [sorted(saved.get(i, {})) for i in range(5)] == [sorted(th_saved.get(i, {})) for i in range(5)]


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "Adagrad"])
def test_fused_and_foreach_both_true_are_refused_as_in_torch(name):
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError, match="cannot be `True` together"):
        getattr(torch.optim, name)([torch.zeros(2, requires_grad=True)], lr=0.1, fused=True, foreach=True)
    with pytest.raises(MiniTorchError, match="`fused` and `foreach` cannot be `True` together"):
        getattr(minitorch.optim, name)([minitorch.zeros(2, requires_grad=True)], lr=0.1, fused=True, foreach=True)
    opt = getattr(minitorch.optim, name)([minitorch.zeros(2, requires_grad=True)], lr=0.1, fused=True)
    with pytest.raises(MiniTorchError, match="cannot be `True` together"):
        opt.add_param_group({"params": [minitorch.zeros(1, requires_grad=True)], "foreach": True})


@pytest.mark.parametrize("name", ["Adam", "AdamW"])
@pytest.mark.parametrize("dtype,rtol", [(np.float64, 1e-12), (np.float32, 1e-6)])
def test_foreach_matches_torch_foreach(rng, name, dtype, rtol):
    torch = pytest.importorskip("torch")
    kwargs = dict(lr=3e-3, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1)
    values = [rng.standard_normal(s).astype(dtype) for s in [(6, 5), (5,), (), (1,)]]
    mt = [minitorch.tensor(v, requires_grad=True) for v in values]
    th = [torch.tensor(v, requires_grad=True) for v in values]
    mt_opt = getattr(minitorch.optim, name)(mt, foreach=True, **kwargs)
    th_opt = getattr(torch.optim, name)(th, foreach=True, **kwargs)
    assert set(mt_opt.param_groups[0]) <= set(th_opt.param_groups[0])  # the same names, a subset
    for step in range(6):
        grads = [rng.standard_normal(v.shape).astype(dtype) for v in values]
        for m, t, g in zip(mt, th, grads):
            m.grad, t.grad = minitorch.tensor(g), torch.tensor(g)
        mt_opt.step()
        th_opt.step()
        for i, (m, t) in enumerate(zip(mt, th)):
            np.testing.assert_allclose(m.data, t.detach().numpy(), rtol=rtol, atol=rtol * 1e-2, err_msg=f"{step} {i}")
            for key in ("exp_avg", "exp_avg_sq"):
                np.testing.assert_allclose(mt_opt.state[m][key], th_opt.state[t][key].numpy(), rtol=rtol, atol=rtol)
        assert mt_opt.state[mt[0]]["step"] == int(th_opt.state[th[0]]["step"]) == step + 1


def test_step_bumps_the_version_so_a_saved_graph_refuses_backward(rng):
    w = minitorch.tensor(rng.standard_normal((3, 2)), requires_grad=True)
    b = minitorch.tensor(rng.standard_normal(2), requires_grad=True)
    opt = minitorch.optim.Adam([w, b], foreach=True)
    x = minitorch.tensor(rng.standard_normal((4, 3)))
    (x @ w + b).sum().backward()
    loss = (x @ w + b).pow(2).sum()  # saved w
    versions = w._version, b._version
    opt.step()
    assert (w._version, b._version) == (versions[0] + 1, versions[1] + 1)
    with pytest.raises(MiniTorchError, match="modified by an inplace operation"):
        loss.backward()


def test_state_dict_repr_and_argument_checks():
    p = minitorch.zeros(2, requires_grad=True)
    opt = minitorch.optim.Adam([p], foreach=True)
    assert opt.param_groups[0]["foreach"] is True
    assert "foreach: True" in repr(opt)
    p.grad = minitorch.ones(2)
    opt.step()
    saved = opt.state_dict()
    assert list(saved["state"][0]) == ["step", "exp_avg", "exp_avg_sq"]
    assert sorted(saved["param_groups"][0]) == [  # PyTorch 2.13's keys
        "amsgrad",
        "betas",
        "capturable",
        "decoupled_weight_decay",
        "differentiable",
        "eps",
        "foreach",
        "fused",
        "lr",
        "maximize",
        "params",
        "weight_decay",
    ]
    assert minitorch.optim.AdamW([p], foreach=np.bool_(False)).param_groups[0]["foreach"] is False
    with pytest.raises(TypeError, match="foreach must be None, True or False"):
        minitorch.optim.Adam([p], foreach="yes")
    with pytest.raises(TypeError):
        # amsgrad is the last positional argument; foreach is keyword-only, as in PyTorch
        minitorch.optim.Adam([p], 1e-3, (0.9, 0.999), 1e-8, 0.0, False, True)


@pytest.mark.parametrize("name", ["SGD", "RMSprop", "Adagrad", "Adadelta"])
def test_other_optimizers_accept_foreach_and_update_the_same(rng, name):
    start = rng.standard_normal((3, 2))
    grads = [rng.standard_normal((3, 2)) for _ in range(3)]
    results = []
    for foreach in (None, True, False):
        p = minitorch.nn.Parameter(minitorch.tensor(start))
        opt = getattr(minitorch.optim, name)([p], lr=0.1, foreach=foreach)
        assert opt.param_groups[0]["foreach"] is foreach
        for g in grads:
            p.grad = minitorch.tensor(g)
            opt.step()
        results.append(p.detach().numpy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(results[0], results[2], rtol=1e-12, atol=1e-14)
    with pytest.raises(TypeError, match="foreach"):
        getattr(minitorch.optim, name)([p], lr=0.1, foreach="yes")
