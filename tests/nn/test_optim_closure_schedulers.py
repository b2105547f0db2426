"""``optimizer.step(closure)`` and the chainable lr schedulers, checked against PyTorch."""

import math
import re
import warnings

import numpy as np
import pytest

import minitorch
from minitorch import nn

torch = pytest.importorskip("torch")

OPTIMIZERS = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01)),
    ("Adam", dict(lr=0.05)),
    ("Adam", dict(lr=0.05, foreach=False)),
    ("AdamW", dict(lr=0.05)),
    ("RMSprop", dict(lr=0.01, momentum=0.5, centered=True)),
    ("Adagrad", dict(lr=0.1)),
    ("Adadelta", dict(lr=1.0)),
]


def twin_models():
    torch.manual_seed(0)
    th = torch.nn.Sequential(torch.nn.Linear(4, 6), torch.nn.Tanh(), torch.nn.Linear(6, 2)).double()
    mt = nn.Sequential(nn.Linear(4, 6), nn.Tanh(), nn.Linear(6, 2)).double()
    mt.load_state_dict({k: v.numpy() for k, v in th.state_dict().items()})
    return th, mt


# ---------------------------------------------------------------------- step(closure)
@pytest.mark.parametrize("name,kwargs", OPTIMIZERS, ids=lambda v: str(v))
def test_step_with_closure_matches_torch(name, kwargs):
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((8, 4)), rng.standard_normal((8, 2))
    th_model, mt_model = twin_models()
    th_opt = getattr(torch.optim, name)(th_model.parameters(), **kwargs)
    mt_opt = getattr(minitorch.optim, name)(mt_model.parameters(), **kwargs)
    calls = []

    def closure_for(lib, model, opt):
        def closure():
            calls.append(lib.__name__)
            opt.zero_grad()
            loss = ((model(lib.tensor(x)) - lib.tensor(y)) ** 2).mean()
            loss.backward()
            return loss

        return closure

    th_closure, mt_closure = closure_for(torch, th_model, th_opt), closure_for(minitorch, mt_model, mt_opt)
    for _ in range(5):
        th_loss = th_opt.step(th_closure)
        mt_loss = mt_opt.step(mt_closure)
        assert isinstance(mt_loss, minitorch.Tensor)
        np.testing.assert_allclose(mt_loss.item(), th_loss.item(), rtol=1e-12)
    assert calls.count("minitorch") == calls.count("torch") == 5
    for key, value in th_model.state_dict().items():
        np.testing.assert_allclose(mt_model.state_dict()[key].data, value.numpy(), rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("name,kwargs", OPTIMIZERS[:1] + OPTIMIZERS[2:3], ids=lambda v: str(v))
def test_step_without_closure_returns_none_and_closure_runs_with_grad_enabled(name, kwargs):
    _, model = twin_models()
    opt = getattr(minitorch.optim, name)(model.parameters(), **kwargs)
    model(minitorch.ones(1, 4, dtype=minitorch.float64)).sum().backward()
    assert opt.step() is None
    seen = []

    def closure():
        seen.append(minitorch.autograd.is_grad_enabled())
        opt.zero_grad()
        loss = model(minitorch.ones(1, 4, dtype=minitorch.float64)).sum()
        loss.backward()  # needs a graph: fails if the closure ran without grad mode
        return loss

    with minitorch.no_grad():
        loss = opt.step(closure)
        assert not minitorch.autograd.is_grad_enabled()  # restored after the closure
    assert seen == [True] and loss.requires_grad
    assert opt.step(closure=lambda: 3.5) == 3.5  # whatever the closure returns comes back


def test_a_closure_that_raises_leaves_grad_mode_as_it_was():
    _, model = twin_models()
    opt = minitorch.optim.SGD(model.parameters(), lr=0.1)

    def closure():
        raise RuntimeError("boom")

    with minitorch.no_grad():
        with pytest.raises(RuntimeError, match="boom"):
            opt.step(closure)
        assert not minitorch.autograd.is_grad_enabled()


def test_a_hand_written_optimizer_overriding_step_still_works():
    class Plain(minitorch.optim.Optimizer):
        def __init__(self, params, lr):
            super().__init__(params, dict(lr=lr))

        def step(self):
            for group in self.param_groups:
                for p in group["params"]:
                    p.data -= group["lr"] * p.grad.data

    p = minitorch.tensor([1.0, 2.0], requires_grad=True)
    (p * p).sum().backward()
    Plain([p], lr=0.25).step()
    np.testing.assert_allclose(p.data, [0.5, 1.0])
    with pytest.raises(NotImplementedError, match="_update"):
        minitorch.optim.Optimizer([p], dict(lr=0.1)).step()


# ---------------------------------------------------------------------- chainable schedulers
def _case_id(value):
    """A test id that is the same in every process: a lambda's repr holds its address (pytest-xdist compares ids)."""
    return re.sub(r"<function <lambda> at 0x[0-9a-f]+>", "lambda", str(value))


SCHEDULERS = [
    ("StepLR", dict(step_size=4, gamma=0.5)),
    ("MultiStepLR", dict(milestones=[3, 9, 9, 20], gamma=0.5)),
    ("ExponentialLR", dict(gamma=0.9)),
    ("LinearLR", dict(start_factor=0.25, end_factor=0.9, total_iters=10)),
    ("LinearLR", dict()),
    ("CosineAnnealingLR", dict(T_max=7, eta_min=0.01)),
    ("CosineAnnealingLR", dict(T_max=5)),
    ("LambdaLR", dict(lr_lambda=lambda epoch: 1 / (epoch + 1))),
    ("LambdaLR", dict(lr_lambda=[lambda epoch: 0.9**epoch, lambda epoch: 1 + epoch % 3])),
]


def two_group_optimizers():
    out = []
    for lib in (torch, minitorch):
        params = [{"params": [lib.zeros(1, requires_grad=True)]},
                  {"params": [lib.zeros(2, requires_grad=True)], "lr": 0.5}]
        out.append(lib.optim.SGD(params, lr=0.1))
    return out


def run(lib, opt, schedulers, steps, change_at=None, factor=3.0):
    """get_last_lr of the last scheduler after each of ``steps`` steps; lr multiplied by ``factor`` once."""
    seq = []
    for i in range(steps):
        opt.step()
        for s in schedulers:
            s.step()
        if i == change_at:
            for group in opt.param_groups:
                group["lr"] *= factor
        seq.append(schedulers[-1].get_last_lr() + [g["lr"] for g in opt.param_groups])
    return np.array(seq)


@pytest.mark.parametrize("name,kwargs", SCHEDULERS, ids=lambda v: _case_id(v))
def test_scheduler_sequence_with_a_manual_lr_change_matches_torch(name, kwargs):
    th_opt, mt_opt = two_group_optimizers()
    th_s = getattr(torch.optim.lr_scheduler, name)(th_opt, **kwargs)
    mt_s = getattr(minitorch.optim.lr_scheduler, name)(mt_opt, **kwargs)
    assert mt_s.get_last_lr() == pytest.approx(th_s.get_last_lr(), rel=1e-14)
    assert mt_s.base_lrs == th_s.base_lrs and mt_s.last_epoch == th_s.last_epoch == 0
    expected = run(torch, th_opt, [th_s], 30, change_at=12)
    got = run(minitorch, mt_opt, [mt_s], 30, change_at=12)
    np.testing.assert_allclose(got, expected, rtol=1e-13, atol=1e-16)
    assert mt_s.last_epoch == th_s.last_epoch == 30


@pytest.mark.parametrize(
    "first,second",
    [
        (("LinearLR", dict(start_factor=0.1, total_iters=5)), ("ExponentialLR", dict(gamma=0.95))),
        (("StepLR", dict(step_size=5, gamma=0.5)), ("CosineAnnealingLR", dict(T_max=10, eta_min=0.001))),
        (("MultiStepLR", dict(milestones=[4, 8])), ("StepLR", dict(step_size=3, gamma=0.9))),
        (("CosineAnnealingLR", dict(T_max=6)), ("LinearLR", dict(start_factor=0.5, total_iters=8))),
    ],
    ids=lambda v: v[0],
)
def test_two_schedulers_on_one_optimizer_match_torch(first, second):
    th_opt, mt_opt = two_group_optimizers()
    th = [getattr(torch.optim.lr_scheduler, n)(th_opt, **kw) for n, kw in (first, second)]
    mt = [getattr(minitorch.optim.lr_scheduler, n)(mt_opt, **kw) for n, kw in (first, second)]
    np.testing.assert_allclose(run(minitorch, mt_opt, mt, 30), run(torch, th_opt, th, 30), rtol=1e-13, atol=1e-16)
    for a, b in zip(mt, th):
        assert a.get_last_lr() == pytest.approx(b.get_last_lr(), rel=1e-13)


@pytest.mark.parametrize("name,kwargs", SCHEDULERS[:7], ids=lambda v: _case_id(v))
def test_step_with_an_epoch_uses_the_closed_form_and_warns_as_torch(name, kwargs):
    th_opt, mt_opt = two_group_optimizers()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        th_s = getattr(torch.optim.lr_scheduler, name)(th_opt, **kwargs)
        th_opt.step()
        th_s.step(7)
    mt_s = getattr(minitorch.optim.lr_scheduler, name)(mt_opt, **kwargs)
    with pytest.warns(UserWarning, match="epoch parameter"):
        mt_s.step(7)
    assert mt_s.last_epoch == 7
    np.testing.assert_allclose(mt_s.get_last_lr(), th_s.get_last_lr(), rtol=1e-14)


def test_get_lr_outside_step_warns_as_torch():
    _, mt_opt = two_group_optimizers()
    s = minitorch.optim.lr_scheduler.StepLR(mt_opt, step_size=2)
    with pytest.warns(UserWarning, match="get_last_lr"):
        s.get_lr()


@pytest.mark.parametrize("name,kwargs", SCHEDULERS, ids=lambda v: _case_id(v))
def test_scheduler_state_dict_round_trip_continues_as_torch(name, kwargs):
    th_opt, mt_opt = two_group_optimizers()
    th_s = getattr(torch.optim.lr_scheduler, name)(th_opt, **kwargs)
    mt_s = getattr(minitorch.optim.lr_scheduler, name)(mt_opt, **kwargs)
    run(torch, th_opt, [th_s], 11)
    run(minitorch, mt_opt, [mt_s], 11)
    th_state, mt_state = th_s.state_dict(), mt_s.state_dict()
    assert set(mt_state) == set(th_state)
    for key in ("last_epoch", "base_lrs", "_last_lr", "_step_count"):
        assert mt_state[key] == pytest.approx(th_state[key], rel=1e-14)
    # resume as PyTorch's docs say: build the scheduler, then load the optimizer (building
    # a scheduler takes step 0, which may change lr), then the scheduler
    _, resumed_opt = two_group_optimizers()
    resumed = getattr(minitorch.optim.lr_scheduler, name)(resumed_opt, **kwargs)
    resumed_opt.load_state_dict(mt_opt.state_dict())
    resumed.load_state_dict(mt_state)
    assert resumed.get_last_lr() == mt_s.get_last_lr()
    np.testing.assert_allclose(run(minitorch, resumed_opt, [resumed], 10), run(torch, th_opt, [th_s], 10),
                               rtol=1e-13, atol=1e-16)


def test_lambda_lr_saves_callable_objects_state_not_functions():
    class Warmup:
        def __init__(self, n):
            self.n = n

        def __call__(self, epoch):
            return min(1.0, (epoch + 1) / self.n)

    _, mt_opt = two_group_optimizers()
    s = minitorch.optim.lr_scheduler.LambdaLR(mt_opt, [Warmup(4), lambda e: 1.0])
    state = s.state_dict()
    assert state["lr_lambdas"] == [{"n": 4}, None]
    state["lr_lambdas"][0]["n"] = 10
    s.load_state_dict(state)
    assert s.lr_lambdas[0].n == 10 and "lr_lambdas" in state


# ---------------------------------------------------------------------- ReduceLROnPlateau
@pytest.mark.parametrize(
    "kwargs",
    [
        dict(),
        dict(patience=2, factor=0.5),
        dict(mode="max", patience=1, threshold=0.05, cooldown=2),
        dict(threshold_mode="abs", threshold=0.1, patience=0, factor=0.3, min_lr=[0.01, 0.2]),
        dict(mode="max", threshold_mode="abs", patience=3, min_lr=0.02, eps=1e-3, factor=0.7),
    ],
    ids=str,
)
def test_reduce_lr_on_plateau_matches_torch_on_a_random_metric(kwargs):
    rng = np.random.default_rng(1)
    metrics = np.cumsum(rng.normal(0, 1, 60)) * 0.1 + rng.normal(0, 0.05, 60)
    th_opt, mt_opt = two_group_optimizers()
    th_s = torch.optim.lr_scheduler.ReduceLROnPlateau(th_opt, **kwargs)
    mt_s = minitorch.optim.lr_scheduler.ReduceLROnPlateau(mt_opt, **kwargs)
    assert mt_s.get_last_lr() == th_s.get_last_lr()
    for i, m in enumerate(metrics):
        th_opt.step()
        mt_opt.step()
        th_s.step(torch.tensor(m) if i % 2 else float(m))
        mt_s.step(minitorch.tensor(m) if i % 2 else float(m))
        assert mt_s.get_last_lr() == pytest.approx(th_s.get_last_lr(), rel=1e-14)
        assert (mt_s.num_bad_epochs, mt_s.cooldown_counter, mt_s.last_epoch) == (
            th_s.num_bad_epochs, th_s.cooldown_counter, th_s.last_epoch)
        assert mt_s.best == pytest.approx(th_s.best)
    assert set(mt_s.state_dict()) == set(th_s.state_dict())
    resumed = minitorch.optim.lr_scheduler.ReduceLROnPlateau(mt_opt)
    resumed.load_state_dict(mt_s.state_dict())
    assert (resumed.mode, resumed.best, resumed.mode_worse) == (mt_s.mode, mt_s.best, mt_s.mode_worse)


def test_reduce_lr_on_plateau_with_a_nan_metric_counts_a_bad_epoch_as_torch():
    th_opt, mt_opt = two_group_optimizers()
    th_s = torch.optim.lr_scheduler.ReduceLROnPlateau(th_opt, patience=1)
    mt_s = minitorch.optim.lr_scheduler.ReduceLROnPlateau(mt_opt, patience=1)
    for m in (1.0, math.nan, math.nan, 0.5):
        th_s.step(m)
        mt_s.step(m)
        assert mt_s.get_last_lr() == pytest.approx(th_s.get_last_lr())


# ---------------------------------------------------------------------- argument errors
@pytest.mark.parametrize(
    "build,error,words",
    [
        (lambda o: minitorch.optim.lr_scheduler.LinearLR(o, start_factor=0), ValueError, ["greater than 0"]),
        (lambda o: minitorch.optim.lr_scheduler.LinearLR(o, end_factor=1.5), ValueError, ["between 0 and 1"]),
        (lambda o: minitorch.optim.lr_scheduler.LambdaLR(o, [lambda e: 1.0]), ValueError, ["Expected 2 lr_lambdas"]),
        (lambda o: minitorch.optim.lr_scheduler.LambdaLR(o, 0.5), TypeError, ["function of the epoch"]),
        (lambda o: minitorch.optim.lr_scheduler.MultiStepLR(o, 5), TypeError, ["list of epochs"]),
        (lambda o: minitorch.optim.lr_scheduler.ExponentialLR(o, gamma=math.nan), ValueError, ["gamma", "NaN"]),
        (lambda o: minitorch.optim.lr_scheduler.ReduceLROnPlateau(o, factor=1.0), ValueError, ["Factor"]),
        (lambda o: minitorch.optim.lr_scheduler.ReduceLROnPlateau(o, mode="up"), ValueError, ["mode up is unknown"]),
        (lambda o: minitorch.optim.lr_scheduler.ReduceLROnPlateau(o, threshold_mode="x"), ValueError, ["threshold"]),
        (lambda o: minitorch.optim.lr_scheduler.ReduceLROnPlateau(o, min_lr=[0.1]), ValueError, ["2 min_lrs"]),
        (lambda o: minitorch.optim.lr_scheduler.ReduceLROnPlateau(o.param_groups), TypeError, ["not an Optimizer"]),
    ],
)
def test_scheduler_argument_errors(build, error, words):
    _, mt_opt = two_group_optimizers()
    with pytest.raises(error) as info:
        build(mt_opt)
    for word in words:
        assert word in str(info.value)
