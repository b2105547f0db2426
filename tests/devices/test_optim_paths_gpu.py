"""Which implementation an optimizer's step runs on a (fake) GPU (minitorch/optim/paths.py).

The default picks the fused kernel (one launch per parameter) where the optimizer has one
for its options; ``foreach=False`` or ``fused=False`` asks for the single-tensor loop,
which must give the fused kernel's numbers within float32 rounding. The flat foreach step
is NumPy only, so GPU groups without a kernel run the loop.
"""

import numpy as np
import pytest
from fake_cupy import LAUNCHES

import minitorch
from minitorch.optim import paths

SHAPES = [(6, 4), (4,), ()]


@pytest.fixture
def chosen(monkeypatch):
    """The path of every group step, in order, from every call of ``paths.choose_path``."""
    record = []
    real = paths.choose_path

    def recording(*args):
        record.append(real(*args))
        return record[-1]

    monkeypatch.setattr(paths, "choose_path", recording)
    return record


def train(name, kwargs, devices, rng_seed=0, steps=3):
    """Parameters after ``steps`` steps of ``name(**kwargs)``, one parameter per device in ``devices``."""
    rng = np.random.default_rng(rng_seed)
    values = [rng.standard_normal(s).astype(np.float32) for s in SHAPES]
    grads = [[rng.standard_normal(s).astype(np.float32) for s in SHAPES] for _ in range(steps)]
    params = [minitorch.nn.Parameter(minitorch.tensor(v, device=d)) for v, d in zip(values, devices)]
    opt = getattr(minitorch.optim, name)(params, **kwargs)
    for step_grads in grads:
        for p, g, d in zip(params, step_grads, devices):
            p.grad = minitorch.tensor(g, device=d)
        opt.step()
    return [p.detach().cpu().numpy() for p in params]


@pytest.mark.parametrize(
    "name,kwargs,expected",
    [
        ("Adam", dict(lr=1e-2), paths.FUSED),
        ("AdamW", dict(lr=1e-2, fused=True), paths.FUSED),
        ("Adam", dict(lr=1e-2, foreach=True), paths.FUSED),  # no GPU flat step: the fastest there is
        ("Adam", dict(lr=1e-2, foreach=False), paths.SINGLE_TENSOR),
        ("AdamW", dict(lr=1e-2, fused=False), paths.SINGLE_TENSOR),
        ("Adam", dict(lr=1e-2, amsgrad=True), paths.SINGLE_TENSOR),  # the kernel has no amsgrad
        ("SGD", dict(lr=0.1, momentum=0.9, weight_decay=0.01), paths.FUSED),
        ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True), paths.SINGLE_TENSOR),
        ("SGD", dict(lr=0.1), paths.SINGLE_TENSOR),  # plain SGD: nothing to fuse
        ("RMSprop", dict(lr=0.01), paths.SINGLE_TENSOR),  # no kernel, and the flat step is NumPy only
    ],
)
def test_the_choice_on_the_gpu_and_its_numbers(fake_gpu, chosen, name, kwargs, expected):
    gpu = train(name, kwargs, ["cuda"] * len(SHAPES))
    assert chosen == [expected] * 3
    cpu = train(name, {k: v for k, v in kwargs.items() if k not in ("fused", "foreach")}, ["cpu"] * len(SHAPES))
    for a, b in zip(gpu, cpu):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("foreach", [None, False])
def test_the_fused_path_is_one_launch_per_parameter_and_the_loop_is_not(fake_gpu, foreach):
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


def test_a_group_on_two_devices_runs_the_loop(fake_gpu, chosen):
    devices = ["cuda", "cpu", "cuda"]
    mixed = train("Adam", dict(lr=1e-2), devices)
    assert chosen == [paths.SINGLE_TENSOR] * 3  # the kernel needs every parameter on the GPU
    for a, b in zip(mixed, train("Adam", dict(lr=1e-2), ["cpu"] * 3)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
