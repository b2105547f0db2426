"""The foreach kernels' flat buffers (minitorch/kernels/optimizers/flat.py): kept, rebuilt and declined rightly.

A foreach kernel keeps a group's state as views into one flat array per buffer. Each test
trains twice, once with ``foreach=True`` and the fast kernels on, once with ``foreach=False``
(the formula), and requires the parameters and the optimizer state to agree to rounding
after every step, including the cases where the flat step must step aside (a missing
gradient, mixed dtypes, a parameter listed twice) and where its buffers must be rebuilt
(load_state_dict, state assigned by hand, add_param_group, a copied optimizer).
"""

import copy

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from update_harness import assert_same_state, check_update_kernel, make_params, set_grads

import minitorch
from minitorch import nn
from minitorch.kernels import use_fast_kernels
from minitorch.kernels.optimizers import flat
from minitorch.kernels.optimizers.foreach import ADAGRAD_FOREACH, ADAM_FOREACH
from minitorch.optim.optimizer import Optimizer

CONFIGS = [
    ("Adam", dict(lr=1e-2)),
    ("Adam", dict(lr=3e-3, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1)),
    ("AdamW", dict(lr=1e-2)),
    ("AdamW", dict(lr=1e-2, betas=(0.5, 0.9), weight_decay=0.3)),
    ("AdamW", dict(lr=1e-2, weight_decay=0.0)),
]
IDS = [f"{name}-{kwargs}" for name, kwargs in CONFIGS]
MLP_SHAPES = [(128, 64), (128,), (10, 128), (10,)]


@pytest.fixture(autouse=True)
def fast_kernels_on():
    """These tests are about the foreach kernels: on, even under MINITORCH_FAST_KERNELS=0."""
    with use_fast_kernels(True):
        yield


@pytest.fixture
def taken(monkeypatch):
    """For every group step that may take a kernel (foreach not False), whether the flat step took it."""
    results = []
    choose = Optimizer._choose_kernel

    def recording(optimizer, group, *args):
        kernel = choose(optimizer, group, *args)
        if group.get("foreach") is not False:
            results.append(kernel is not None and kernel.kind == "foreach")
        return kernel

    monkeypatch.setattr(Optimizer, "_choose_kernel", recording)
    return results


def run_twins(name, kwargs, arrays, grad_steps, check=None):
    """Step a foreach=True and a foreach=False optimizer on the same grads; compare after each step."""
    pa, pb = make_params(arrays), make_params(arrays)
    opt_a = getattr(minitorch.optim, name)(pa, foreach=True, **kwargs)
    opt_b = getattr(minitorch.optim, name)(pb, foreach=False, **kwargs)
    for step, grads in enumerate(grad_steps):
        set_grads(pa, grads)
        set_grads(pb, grads)
        opt_a.step()
        opt_b.step()
        assert_same_state(pa, opt_a, pb, opt_b, f"step {step}")
    return pa, opt_a, pb, opt_b


def random_grads(rng, arrays, steps, none_at=()):
    """``steps`` lists of gradients like ``arrays``; ``none_at`` holds (step, index) pairs with no gradient."""
    return [
        [None if (s, i) in none_at else rng.standard_normal(a.shape).astype(a.dtype) for i, a in enumerate(arrays)]
        for s in range(steps)
    ]


# ---------------------------------------------------------------------- the formula's numbers
@settings(max_examples=40, deadline=None)
@given(
    shapes=st.lists(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5), min_size=1, max_size=5),
    dtype=st.sampled_from([np.float32, np.float64, np.float16]),
    config=st.sampled_from(CONFIGS),
    seed=st.integers(0, 2**16),
)
def test_random_shapes_give_the_formulas_numbers(shapes, dtype, config, seed):
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(s).astype(dtype) for s in shapes]
    name, kwargs = config
    with use_fast_kernels(True):
        check_update_kernel(
            ADAM_FOREACH,
            lambda ps: getattr(minitorch.optim, name)(ps, foreach=True, **kwargs),
            arrays,
            random_grads(rng, arrays, 5),
        )


@pytest.mark.parametrize("name,kwargs", CONFIGS, ids=IDS)
def test_the_state_is_views_of_one_flat_buffer_and_layouts_stay(rng, name, kwargs, taken):
    arrays = [
        rng.standard_normal((5, 4)).T,  # Fortran-ordered
        rng.standard_normal((3, 6))[:, ::2],  # strided (not contiguous either way)
        np.asarray(rng.standard_normal()),  # 0-d
        rng.standard_normal((7, 2)),
    ]
    pa, opt_a, _, _ = run_twins(name, kwargs, arrays, random_grads(rng, arrays, 3))
    assert pa[0].data.flags.f_contiguous and not pa[0].data.flags.c_contiguous
    assert not pa[1].data.flags.c_contiguous and not pa[1].data.flags.f_contiguous
    assert taken == [True] * 3  # the flat step did them (the formula only checked it)
    views = [opt_a.state[p]["exp_avg"] for p in pa]
    assert all(v.base is views[0].base for v in views)  # views into one flat buffer


@pytest.mark.parametrize("name,kwargs", CONFIGS, ids=IDS)
def test_fortran_ordered_gradients(rng, name, kwargs):
    arrays = [rng.standard_normal((4, 3)), rng.standard_normal(3)]
    grads = [[np.asfortranarray(rng.standard_normal((4, 3))), rng.standard_normal(3)] for _ in range(5)]
    run_twins(name, kwargs, arrays, grads)


# ---------------------------------------------------------------------- stepping aside, rebuilding
@pytest.mark.parametrize("name,kwargs", CONFIGS, ids=IDS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_parameter_without_grad_on_some_steps(rng, name, kwargs, dtype, taken):
    arrays = [rng.standard_normal(s).astype(dtype) for s in MLP_SHAPES]
    # param 3 has no grad at steps 0 and 2: it starts late and then lags, so the step counts
    # differ and the group falls back to the formula; param 1 has none at step 4 only.
    grads = random_grads(rng, arrays, 7, none_at={(0, 3), (2, 3), (4, 1)})
    run_twins(name, kwargs, arrays, grads)
    # step 0: flat over params 0-2; 1: param 3's first step among others' second, so the formula;
    # 2: flat again over 0-2 (buffers rebuilt for the new set); then param 3 lags behind.
    assert taken == [True, False, True, False, False, False, False]


def test_parameters_at_different_steps_take_the_formula(rng, taken):
    values = [rng.standard_normal(s) for s in [(6, 5), (5,), ()]]
    params_a, params_b = make_params(values), make_params(values)
    opt_a = minitorch.optim.Adagrad(params_a, lr=0.1, lr_decay=0.1, foreach=True)
    opt_b = minitorch.optim.Adagrad(params_b, lr=0.1, lr_decay=0.1, foreach=False)
    for step, grads in enumerate(random_grads(rng, values, 5, none_at={(0, 2)})):  # param 2 starts a step late
        for params, opt in ((params_a, opt_a), (params_b, opt_b)):
            set_grads(params, grads)
            opt.step()
        assert_same_state(params_a, opt_a, params_b, opt_b, f"step {step}")
    # step 0: params 0-1 flat; then param 2 lags one step behind the others: one decayed lr
    # for the whole group is not possible, so the formula (decayed per parameter) runs
    assert taken == [True] + [False] * 4


def test_grads_that_accumulate_and_zero_grad_both_ways(rng):
    models = [nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, 3)).double() for _ in range(2)]
    models[1].load_state_dict(models[0].state_dict())
    opts = [
        minitorch.optim.Adam(model.parameters(), lr=1e-2, weight_decay=0.01, foreach=foreach)
        for model, foreach in zip(models, (True, False))
    ]
    for step in range(6):
        xs = [minitorch.tensor(rng.standard_normal((4, 5))) for _ in range(2)]
        for model, opt in zip(models, opts):
            opt.zero_grad(set_to_none=step % 2 == 0)  # even steps: None; odd: zeros in place
            for x in xs:  # two backwards: the gradients accumulate
                (model(x) ** 2).mean().backward()
            opt.step()
        params = [list(model.parameters()) for model in models]
        assert_same_state(params[0], opts[0], params[1], opts[1], f"step {step}")


@pytest.mark.parametrize("name,kwargs", CONFIGS, ids=IDS)
@pytest.mark.parametrize("cross", [False, True], ids=["same", "crossed"])
def test_load_state_dict_mid_training_continues_the_same(rng, name, kwargs, cross):
    arrays = [rng.standard_normal(s) for s in [(3, 4), (), (4,)]]
    grads = random_grads(rng, arrays, 7)
    pa, opt_a, pb, opt_b = run_twins(name, kwargs, arrays, grads[:3])
    saved_a, saved_b = opt_a.state_dict(), opt_b.state_dict()
    if cross:  # a checkpoint from the formula loaded into the flat step, and the other way round
        saved_a, saved_b = saved_b, saved_a
    assert [g["foreach"] for g in saved_a["param_groups"]] == [not cross]
    opt_a = getattr(minitorch.optim, name)(pa, foreach=True, **kwargs)
    opt_b = getattr(minitorch.optim, name)(pb, foreach=False, **kwargs)
    opt_a.load_state_dict(saved_a)
    opt_b.load_state_dict(saved_b)
    # 'foreach' is a group setting, so it came with the checkpoint (as in PyTorch): set ours back
    opt_a.param_groups[0]["foreach"], opt_b.param_groups[0]["foreach"] = True, False
    reference = run_twins(name, kwargs, arrays, grads)  # never interrupted
    for step, step_grads in enumerate(grads[3:]):
        set_grads(pa, step_grads)
        set_grads(pb, step_grads)
        opt_a.step()
        opt_b.step()
        assert_same_state(pa, opt_a, pb, opt_b, f"after load, step {step}")
    assert_same_state(pa, opt_a, reference[0], reference[1], "against the run without a checkpoint")


def test_state_changed_by_hand_is_picked_up(rng, taken):
    arrays = [rng.standard_normal(s) for s in MLP_SHAPES[:3]]
    grads = random_grads(rng, arrays, 6)
    pa, opt_a, pb, opt_b = run_twins("Adam", {}, arrays, grads[:2])
    for params, opt in ((pa, opt_a), (pb, opt_b)):
        opt.state[params[0]]["exp_avg"][...] = 0.5  # written in place: into the flat buffer
        opt.state[params[1]]["exp_avg_sq"] = np.full(params[1].shape, 2.0)  # a new array: rebuilt
        opt.state[params[2]] = {"step": 2, "exp_avg": np.ones(params[2].shape), "exp_avg_sq": np.ones(params[2].shape)}
    for step_grads in grads[2:]:
        for params, opt in ((pa, opt_a), (pb, opt_b)):
            set_grads(params, step_grads)
            opt.step()
        assert_same_state(pa, opt_a, pb, opt_b, "after the change")
    assert all(taken)


def test_a_step_by_the_formula_in_between(rng, taken):
    """The formula updates the state's arrays in place, so the flat buffers stay current."""
    arrays = [rng.standard_normal(s) for s in MLP_SHAPES[:3]]
    grads = random_grads(rng, arrays, 6)
    pa, opt_a, pb, opt_b = run_twins("Adam", dict(weight_decay=0.1), arrays, grads[:2])
    set_grads(pa, grads[2])
    set_grads(pb, grads[2])
    with use_fast_kernels(False):
        opt_a.step()
    opt_b.step()
    for step_grads in grads[3:]:
        for params, opt in ((pa, opt_a), (pb, opt_b)):
            set_grads(params, step_grads)
            opt.step()
        assert_same_state(pa, opt_a, pb, opt_b, "after the formula's step")
    assert taken == [True, True, False, True, True, True]  # the third step: the formula, kernels off


def test_add_param_group_and_a_copied_optimizer(rng):
    arrays = [rng.standard_normal(s) for s in [(3, 2), (2,)]]
    extra = [rng.standard_normal(s) for s in [(4,), ()]]
    grads = random_grads(rng, arrays + extra, 6)
    pa, opt_a, pb, opt_b = run_twins("AdamW", dict(weight_decay=0.1), arrays, [g[:2] for g in grads[:2]])
    ea, eb = make_params(extra), make_params(extra)
    opt_a.add_param_group({"params": ea, "lr": 0.05})
    opt_b.add_param_group({"params": eb, "lr": 0.05})
    assert opt_a.param_groups[1]["foreach"] is True and opt_b.param_groups[1]["foreach"] is False
    pa, pb = pa + ea, pb + eb
    for step_grads in grads[2:4]:
        for params, opt in ((pa, opt_a), (pb, opt_b)):
            set_grads(params, step_grads)
            opt.step()
        assert_same_state(pa, opt_a, pb, opt_b, "two groups")
    # A deep copy holds copies of the views, which are views of nothing: it must rebuild, not
    # update flat buffers its state no longer shows.
    copied = copy.deepcopy(opt_a)
    pc = [p for g in copied.param_groups for p in g["params"]]
    for step_grads in grads[4:]:
        for params, opt in ((pa, opt_a), (pb, opt_b), (pc, copied)):
            set_grads(params, step_grads)
            opt.step()
        assert_same_state(pa, opt_a, pb, opt_b, "the original")
        assert_same_state(pc, copied, pb, opt_b, "the copy")


def test_mixed_dtypes_and_a_parameter_listed_twice_fall_back(rng, taken):
    arrays = [rng.standard_normal((3, 2)).astype(np.float32), rng.standard_normal(2)]
    run_twins("Adam", {}, arrays, random_grads(rng, arrays, 4))
    assert taken == [False] * 4
    taken.clear()
    p = minitorch.tensor(rng.standard_normal(3), requires_grad=True)
    q = minitorch.tensor(p.data.copy(), requires_grad=True)
    with pytest.warns(UserWarning, match="twice"):
        opt_p = minitorch.optim.Adam([p, p], foreach=True)
        opt_q = minitorch.optim.Adam([q, q], foreach=False)
    for _ in range(3):
        g = rng.standard_normal(3)
        set_grads([p, q], [g, g])
        opt_p.step()
        opt_q.step()
        assert_same_state([p], opt_p, [q], opt_q, "listed twice")
    assert taken == [False] * 3


# ---------------------------------------------------------------------- when it pays
def test_foreach_none_groups_small_params_and_leaves_big_ones_to_the_formula(rng, taken):
    small = [minitorch.tensor(rng.standard_normal(s).astype(np.float32), requires_grad=True) for s in MLP_SHAPES]
    opt = minitorch.optim.Adam(small)
    assert opt.param_groups[0]["foreach"] is None and opt.defaults["foreach"] is None
    set_grads(small, random_grads(rng, [p.data for p in small], 1)[0])
    opt.step()
    assert taken == [True]
    big = [minitorch.tensor(np.zeros(300_000, np.float32), requires_grad=True)]  # one, and large
    for foreach, expected in ((None, False), (True, True)):
        taken.clear()
        opt = minitorch.optim.AdamW(big, foreach=foreach)
        set_grads(big, [np.ones(300_000, np.float32)])
        opt.step()
        assert taken == [expected]
    taken.clear()
    minitorch.optim.Adam(small, foreach=False).step()
    assert taken == []  # foreach=False never asks
    assert flat.worth_grouping(small) and not flat.worth_grouping(small[:1])


def test_adagrads_state_made_at_construction_is_taken_flat(rng, taken):
    values = [rng.standard_normal(s) for s in [(3, 2), (2,)]]
    params = make_params(values)
    opt = minitorch.optim.Adagrad(params, initial_accumulator_value=0.5)
    sums = [opt.state[p]["sum"] for p in params]
    set_grads(params, [np.ones_like(v) for v in values])
    opt.step()
    assert taken == [True]
    assert all(opt.state[p]["sum"] is not s for p, s in zip(params, sums))  # now views of the flat buffer
    np.testing.assert_allclose(opt.state[params[0]]["sum"], np.full((3, 2), 1.5))
    assert opt._choose_kernel(opt.param_groups[0], *opt._init_group(opt.param_groups[0])) is ADAGRAD_FOREACH
