"""How an optimizer's step runs on a (fake) GPU: the fused update kernels (minitorch/kernels/optimizers/fused.py).

The default picks the fused kernel (one launch per parameter) where the optimizer has one
for its options; ``foreach=False`` or ``fused=False`` asks for the formula
(``_update_parameter``, parameter by parameter), which must give the fused kernel's numbers
within float32 rounding. The flat foreach step is NumPy only, so GPU groups without a
kernel run the formula.
"""

import itertools

import numpy as np
import pytest
from fake_cupy import LAUNCHES

import minitorch
from minitorch.kernels import all_update_kernels, use_fast_kernels
from minitorch.kernels.optimizers.fused import ADAM_FUSED, SGD_FUSED
from minitorch.optim.optimizer import Optimizer

SHAPES = [(6, 4), (4,), ()]
FUSED, FORMULA = "fused", "formula"


@pytest.fixture(autouse=True)
def fast_kernels_on():
    """These tests are about the fused kernels: on, even under MINITORCH_FAST_KERNELS=0."""
    with use_fast_kernels(True):
        yield


@pytest.fixture
def chosen(monkeypatch):
    """How every group step ran, in order: ``"fused"`` or ``"formula"`` (from ``Optimizer._choose_kernel``)."""
    record = []
    choose = Optimizer._choose_kernel

    def recording(*args):
        kernel = choose(*args)
        record.append(FORMULA if kernel is None else kernel.kind)
        return kernel

    monkeypatch.setattr(Optimizer, "_choose_kernel", recording)
    return record


def train(name, kwargs, devices, rng_seed=0, steps=3, fast=True):
    """Parameters and state after ``steps`` steps of ``name(**kwargs)``, one parameter per device in ``devices``."""
    rng = np.random.default_rng(rng_seed)
    values = [rng.standard_normal(s).astype(np.float32) for s in SHAPES]
    grads = [[rng.standard_normal(s).astype(np.float32) for s in SHAPES] for _ in range(steps)]
    params = [minitorch.nn.Parameter(minitorch.tensor(v, device=d)) for v, d in zip(values, devices)]
    opt = getattr(minitorch.optim, name)(params, **kwargs)
    for step_grads in grads:
        for p, g, d in zip(params, step_grads, devices):
            p.grad = minitorch.tensor(g, device=d)
        with use_fast_kernels(fast):
            opt.step()
    state = [{k: (np.asarray(v) if hasattr(v, "shape") else v) for k, v in opt.state.get(p, {}).items()}
             for p in params]  # fmt: skip
    return [p.detach().cpu().numpy() for p in params], state


@pytest.mark.parametrize(
    "name,kwargs,expected",
    [
        ("Adam", dict(lr=1e-2), FUSED),
        ("AdamW", dict(lr=1e-2, fused=True), FUSED),
        ("Adam", dict(lr=1e-2, foreach=True), FUSED),  # no GPU flat step: the fastest there is
        ("Adam", dict(lr=1e-2, foreach=False), FORMULA),
        ("AdamW", dict(lr=1e-2, fused=False), FORMULA),
        ("Adam", dict(lr=1e-2, amsgrad=True), FORMULA),  # the kernel has no amsgrad
        ("SGD", dict(lr=0.1, momentum=0.9, weight_decay=0.01), FUSED),
        ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True), FORMULA),
        ("SGD", dict(lr=0.1), FORMULA),  # plain SGD: nothing to fuse
        ("RMSprop", dict(lr=0.01), FORMULA),  # no kernel, and the flat step is NumPy only
    ],
)
def test_the_choice_on_the_gpu_and_its_numbers(fake_gpu, chosen, name, kwargs, expected):
    gpu, _ = train(name, kwargs, ["cuda"] * len(SHAPES))
    assert chosen == [expected] * 3
    cpu, _ = train(name, {k: v for k, v in kwargs.items() if k not in ("fused", "foreach")}, ["cpu"] * len(SHAPES))
    for a, b in zip(gpu, cpu):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def options(**choices):
    """Every combination of the settings in ``choices`` (name: values), as dicts."""
    return [dict(zip(choices, combo)) for combo in itertools.product(*choices.values())]


FUSED_CASES = (
    [(SGD_FUSED, "SGD", dict(o, lr=0.1)) for o in options(momentum=[0.5, 0.9], weight_decay=[0, 0.01])]
    + [(ADAM_FUSED, "Adam", dict(o, lr=1e-2))
       for o in options(weight_decay=[0, 0.1], decoupled_weight_decay=[False, True])]
    + [(ADAM_FUSED, "AdamW", dict(o, lr=1e-2, betas=(0.8, 0.99))) for o in options(weight_decay=[0, 0.1])]
)  # fmt: skip


@pytest.mark.parametrize("kernel,name,kwargs", FUSED_CASES, ids=[f"{n}-{k}" for _, n, k in FUSED_CASES])
def test_each_fused_kernel_computes_the_formula(fake_gpu, chosen, kernel, name, kwargs):
    """The fused kernel on the GPU and the formula on the GPU: parameters and state, step by step."""
    fused, fused_state = train(name, kwargs, ["cuda"] * len(SHAPES), steps=4)
    assert chosen == [kernel.kind] * 4
    formula, formula_state = train(name, kwargs, ["cuda"] * len(SHAPES), steps=4, fast=False)
    for i, (a, b) in enumerate(zip(fused, formula)):
        np.testing.assert_allclose(a, b, rtol=2e-6, atol=2e-7, err_msg=f"param {i}")
        assert list(fused_state[i]) == list(formula_state[i])
        for key, value in formula_state[i].items():
            np.testing.assert_allclose(fused_state[i][key], value, rtol=2e-6, atol=2e-7, err_msg=f"{key} {i}")


def test_every_gpu_update_kernel_has_its_test():
    assert {k.name for k in all_update_kernels() if k.device == "cuda"} == {k.name for k, _, _ in FUSED_CASES}


@pytest.mark.parametrize("foreach", [None, False])
def test_the_fused_path_is_one_launch_per_parameter_and_the_formula_is_not(fake_gpu, foreach):
    params = [minitorch.nn.Parameter(minitorch.zeros(s, device="cuda")) for s in SHAPES]
    opt = minitorch.optim.Adam(params, lr=1e-2, foreach=foreach)
    for p in params:
        p.grad = minitorch.ones(p.shape, device="cuda")
    opt.step()  # the first step also allocates the moments
    LAUNCHES.clear()
    opt.step()
    if foreach is None:
        assert sum(LAUNCHES.values()) == LAUNCHES["minitorch_adam_step"] == len(SHAPES)
    else:  # about a dozen array expressions per parameter
        assert sum(LAUNCHES.values()) >= 9 * len(SHAPES) and "minitorch_adam_step" not in LAUNCHES


def test_a_group_on_two_devices_runs_the_formula(fake_gpu, chosen):
    devices = ["cuda", "cpu", "cuda"]
    mixed, _ = train("Adam", dict(lr=1e-2), devices)
    assert chosen == [FORMULA] * 3  # the kernel needs every parameter on the GPU
    for a, b in zip(mixed, train("Adam", dict(lr=1e-2), ["cpu"] * 3)[0]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_kernels_off_run_the_formula_on_the_gpu(fake_gpu, chosen):
    train("SGD", dict(lr=0.1, momentum=0.9), ["cuda"] * len(SHAPES), fast=False)
    assert chosen == [FORMULA] * 3
