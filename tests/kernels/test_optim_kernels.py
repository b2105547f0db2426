"""Every CPU bulk update kernel against its optimizer's formula, with every option it takes; and where it declines.

``update_harness.check_update_kernel`` steps an optimizer with the fast kernels on and a twin
with them off (``_update_parameter``, parameter by parameter) on the same gradients, and
compares parameters and state after each step. Here: each foreach kernel with every
combination of the settings its formula branches on, in float16, float32 and float64, on
parameters laid out every way (C and Fortran order, strided, 0-d, one element, empty). The
GPU's fused kernels are checked the same way on the fake GPU (tests/devices/test_optim_paths_gpu.py).
"""

import itertools

import numpy as np
import pytest
from update_harness import check_update_kernel, make_params, set_grads

import minitorch
from minitorch.kernels import all_update_kernels, use_fast_kernels
from minitorch.kernels.optimizers import flat
from minitorch.kernels.optimizers.foreach import ADADELTA_FOREACH, ADAGRAD_FOREACH, ADAM_FOREACH, RMSPROP_FOREACH

STEPS = 5


def options(**choices):
    """Every combination of the settings in ``choices`` (name: values), as dicts."""
    return [dict(zip(choices, combo)) for combo in itertools.product(*choices.values())]


BOTH = [False, True]
CASES = (
    [(ADAM_FOREACH, "Adam", o) for o in options(weight_decay=[0, 0.1], amsgrad=BOTH, maximize=BOTH,
                                                 decoupled_weight_decay=BOTH)]
    + [(ADAM_FOREACH, "AdamW", dict(o, betas=(0.8, 0.99))) for o in options(weight_decay=[0, 0.3], amsgrad=BOTH,
                                                                            maximize=BOTH)]
    + [(RMSPROP_FOREACH, "RMSprop", dict(o, lr=0.01, alpha=0.9))
       for o in options(weight_decay=[0, 0.1], momentum=[0, 0.5], centered=BOTH, maximize=BOTH)]
    + [(ADAGRAD_FOREACH, "Adagrad", dict(o, lr=0.1))
       for o in options(weight_decay=[0, 0.2], lr_decay=[0, 0.1], initial_accumulator_value=[0, 0.3], maximize=BOTH)]
    + [(ADADELTA_FOREACH, "Adadelta", dict(o, lr=0.5, rho=0.8)) for o in options(weight_decay=[0, 0.1], maximize=BOTH)]
)  # fmt: skip
IDS = [f"{name}-" + ",".join(f"{k}={v}" for k, v in kwargs.items()) for _, name, kwargs in CASES]


def layouts(rng, dtype):
    """Small parameters laid out every way: C and Fortran order, strided, 0-d, one element, empty."""
    return [
        rng.standard_normal((6, 5)).astype(dtype),
        rng.standard_normal((5, 4)).astype(dtype).T,  # Fortran order
        rng.standard_normal((3, 8)).astype(dtype)[:, ::2],  # every other column: contiguous neither way
        np.asarray(rng.standard_normal(), dtype),
        rng.standard_normal(1).astype(dtype),
        np.zeros((0, 3), dtype),
    ]


def random_grads(rng, values, steps=STEPS):
    """``steps`` lists of gradients shaped and typed like ``values``."""
    return [[rng.standard_normal(v.shape).astype(v.dtype) for v in values] for _ in range(steps)]


@pytest.mark.parametrize("kernel,name,kwargs", CASES, ids=IDS)
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_each_foreach_kernel_computes_the_formula(rng, kernel, name, kwargs, dtype):
    values = layouts(rng, dtype)
    check_update_kernel(
        kernel, lambda ps: getattr(minitorch.optim, name)(ps, **kwargs), values, random_grads(rng, values)
    )


@pytest.mark.parametrize("kernel,name,kwargs", [CASES[0], CASES[-1]], ids=[IDS[0], IDS[-1]])
def test_two_parameter_groups_with_their_own_settings(rng, kernel, name, kwargs):
    values = layouts(rng, np.float64)

    def make(params):
        groups = [{"params": params[:3]}, {"params": params[3:], "lr": 0.05, "weight_decay": 0.2}]
        return getattr(minitorch.optim, name)(groups, foreach=True, **kwargs)

    check_update_kernel(kernel, make, values, random_grads(rng, values))


def test_one_large_parameter_with_foreach_true(rng):
    values = [rng.standard_normal(300_000).astype(np.float32)]  # one, and large: only as asked
    check_update_kernel(
        ADAM_FOREACH, lambda ps: minitorch.optim.Adam(ps, foreach=True), values, random_grads(rng, values, steps=2)
    )


def test_every_cpu_update_kernel_has_its_test():
    cpu = {kernel.name for kernel in all_update_kernels() if kernel.device == "cpu"}
    assert cpu == {kernel.name for kernel, _, _ in CASES}


# ---------------------------------------------------------------------- where each one declines
def choice(name, values, grads, **kwargs):
    """The kernel (None: the formula) chosen for the first step of ``name(params, **kwargs)``."""
    params = make_params(values)
    opt = getattr(minitorch.optim, name)(params, **kwargs)
    set_grads(params, grads)
    group = opt.param_groups[0]
    with use_fast_kernels(True):
        return opt._choose_kernel(group, *opt._init_group(group))


def test_the_choice_on_the_cpu(rng):
    values = [rng.standard_normal(s).astype(np.float32) for s in [(6, 5), (5,), (), (1,), (3, 2, 2)]]
    grads = [np.ones_like(v) for v in values]
    one = values[:1]
    assert choice("Adam", values, grads) is ADAM_FOREACH  # several small: flat
    assert choice("Adam", one, grads[:1]) is None  # one alone: the formula is faster
    assert choice("Adam", one, grads[:1], foreach=True) is ADAM_FOREACH  # as asked
    assert choice("RMSprop", values, grads, foreach=False) is None
    assert choice("RMSprop", values, grads, momentum=0.9, centered=True) is RMSPROP_FOREACH
    # no fused kernel on the CPU: fused=True runs what the default would
    assert choice("AdamW", values, grads, fused=True) is ADAM_FOREACH
    assert choice("Adagrad", one, grads[:1], fused=True) is None
    assert choice("SGD", values, grads, momentum=0.9, foreach=True) is None  # SGD has no flat step
    big = [np.zeros(300_000, np.float32), np.zeros(300_000, np.float32)]  # 1.2 MB each: past SMALL_PARAM_BYTES
    assert choice("Adadelta", big, big) is None
    assert choice("Adadelta", big, big, foreach=True) is ADADELTA_FOREACH
    many = [np.zeros(20_000, np.float32)] * (flat.MAX_GROUP_BYTES // 80_000 + 1)  # small each, too many together
    assert choice("Adam", many, many) is None


def test_what_no_flat_step_can_take(rng):
    values = [rng.standard_normal(s) for s in [(3, 2), (2,)]]
    grads = [np.ones_like(v) for v in values]
    mixed = [values[0].astype(np.float32), values[1]]  # one flat array needs one dtype
    assert choice("Adam", mixed, [np.ones_like(v) for v in mixed], foreach=True) is None
    p = minitorch.tensor(values[0], requires_grad=True)
    with pytest.warns(UserWarning, match="twice"):
        opt = minitorch.optim.Adam([p, p], foreach=True)  # listed twice: the formula updates it twice
    p.grad = minitorch.tensor(grads[0])
    group = opt.param_groups[0]
    with use_fast_kernels(True):
        assert opt._choose_kernel(group, *opt._init_group(group)) is None


def test_state_of_another_shape_or_dtype_or_step_goes_to_the_formula(rng):
    values = [rng.standard_normal(s) for s in [(3, 2), (2,)]]
    params = make_params(values)
    opt = minitorch.optim.Adagrad(params, foreach=True)
    set_grads(params, [np.ones_like(v) for v in values])
    group = opt.param_groups[0]
    with use_fast_kernels(True):
        assert opt._choose_kernel(group, *opt._init_group(group)) is ADAGRAD_FOREACH
        opt.state[params[0]]["sum"] = np.zeros((3, 2), np.float32)
        assert opt._choose_kernel(group, *opt._init_group(group)) is None
        opt.state[params[0]]["sum"] = np.zeros((3, 2))
        opt.state[params[0]]["step"] = 4  # one decayed learning rate for the group is not possible
        assert opt._choose_kernel(group, *opt._init_group(group)) is None


def test_the_switch_and_a_changed_rule_turn_the_kernels_off(rng):
    values = [rng.standard_normal(s) for s in [(3, 2), (2,)]]
    grads = [np.ones_like(v) for v in values]

    class Shifted(minitorch.optim.Adam):  # a different rule: the kernel computes Adam's
        def _update_parameter(self, p, grad, state, group):
            super()._update_parameter(p, grad, state, group)
            p.data += 1.0

    class Renamed(minitorch.optim.AdamW):  # the same rule: Adam's kernel still runs it
        pass

    for cls, expected in ((Shifted, None), (Renamed, ADAM_FOREACH)):
        params = make_params(values)
        opt = cls(params)
        set_grads(params, grads)
        group = opt.param_groups[0]
        with use_fast_kernels(True):
            assert opt._choose_kernel(group, *opt._init_group(group)) is expected
    with use_fast_kernels(False):
        params = make_params(values)
        opt = minitorch.optim.Adam(params, foreach=True)
        set_grads(params, grads)
        group = opt.param_groups[0]
        assert opt._choose_kernel(group, *opt._init_group(group)) is None
    params = make_params(values)
    shifted = Shifted(params, lr=0.0)
    set_grads(params, grads)
    with use_fast_kernels(True):
        shifted.step()
    np.testing.assert_allclose(params[0].data, values[0] + 1.0)  # its own rule ran


def test_register_update_checks_what_it_is_given():
    from minitorch.kernels import register_update, unregister_update, update_kernels_of

    with pytest.raises(TypeError, match="Optimizer subclass"):
        register_update(minitorch.nn.Linear, kind="foreach", applies=lambda *a: True, step=lambda *a: None)
    with pytest.raises(ValueError, match="kind"):
        register_update(minitorch.optim.SGD, kind="vectorised", applies=lambda *a: True, step=lambda *a: None)
    with pytest.raises(ValueError, match="device"):
        register_update(minitorch.optim.SGD, device="tpu", kind="fused", applies=lambda *a: True, step=lambda *a: None)
    before = update_kernels_of(minitorch.optim.Adam)
    calls = []
    mine = register_update(
        minitorch.optim.AdamW,
        kind="foreach",
        applies=lambda *a: True,
        step=lambda opt, group, params, *rest: calls.append(len(params)),
    )
    try:
        assert update_kernels_of(minitorch.optim.AdamW) == (*before, mine)
        assert update_kernels_of(minitorch.optim.Adam) == before  # a subclass's kernels stay its own
        p = minitorch.zeros(3, requires_grad=True)
        opt = minitorch.optim.AdamW([p], foreach=False)
        p.grad = minitorch.ones(3)
        with use_fast_kernels(True):
            opt.param_groups[0]["foreach"] = None
            opt.step()  # one parameter: Adam's flat step declines, the test kernel takes it
        assert calls == [1]
    finally:
        unregister_update(mine)
        del minitorch.optim.AdamW._update_kernels  # back to inheriting Adam's
    assert update_kernels_of(minitorch.optim.AdamW) == before
