"""Adam/AdamW's ``foreach`` step (``_multi_tensor_adam``, minitorch/optim/foreach.py): bit-identical to the loop.

Every test runs the same training twice, once with ``foreach=True`` (a group's parameters
updated as one flat array) and once with ``foreach=False`` (one parameter at a time), and
requires the parameters and the optimizer state to agree to the last bit after every step,
including the cases where the flat step must step aside (a missing gradient, mixed dtypes,
a parameter listed twice) and the cases where its flat buffers must be rebuilt
(load_state_dict, state assigned by hand, add_param_group, a copied optimizer).
"""

import copy

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minitorch
from minitorch import nn
from minitorch.errors import MiniTorchError
from minitorch.optim import paths

CONFIGS = [
    ("Adam", dict(lr=1e-2)),
    ("Adam", dict(lr=3e-3, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1)),
    ("AdamW", dict(lr=1e-2)),
    ("AdamW", dict(lr=1e-2, betas=(0.5, 0.9), weight_decay=0.3)),
    ("AdamW", dict(lr=1e-2, weight_decay=0.0)),
]
IDS = [f"{name}-{kwargs}" for name, kwargs in CONFIGS]
MLP_SHAPES = [(128, 64), (128,), (10, 128), (10,)]


# ---------------------------------------------------------------------- helpers
def assert_same_bits(a, b, what=""):
    """Equal dtype, shape and bytes: stricter than assert_array_equal (-0.0 vs 0.0, NaN payloads)."""
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape, what
    assert np.ascontiguousarray(a).tobytes() == np.ascontiguousarray(b).tobytes(), what


def assert_same(params_a, opt_a, params_b, opt_b, what=""):
    """Parameters and every state entry bit for bit the same, with state shaped as documented."""
    for i, (a, b) in enumerate(zip(params_a, params_b)):
        assert_same_bits(a.data, b.data, f"{what} param {i}")
        sa, sb = opt_a.state.get(a), opt_b.state.get(b)
        assert (sa is None) == (sb is None), f"{what} state {i}"
        if sa is None:
            continue
        assert list(sa) == list(sb) == ["step", "exp_avg", "exp_avg_sq"], f"{what} state {i}"
        assert type(sa["step"]) is int and sa["step"] == sb["step"], f"{what} step {i}"
        for key in ("exp_avg", "exp_avg_sq"):
            assert isinstance(sa[key], np.ndarray) and sa[key].shape == a.data.shape
            assert_same_bits(sa[key], sb[key], f"{what} {key} {i}")


def same_layout(array):
    """A fresh copy of ``array`` laid out the same way: C order, Fortran order, or strided."""
    if array.flags.c_contiguous or array.flags.f_contiguous:
        return array.copy(order="K")
    wide = np.empty(array.shape[:-1] + (2 * array.shape[-1],), array.dtype)
    view = wide[..., ::2]  # every other column: contiguous neither way
    view[...] = array
    return view


def twin_params(arrays):
    """Two independent lists of leaf tensors holding ``arrays``, each ``.data`` in the array's layout."""
    twins = []
    for _ in range(2):
        params = []
        for array in arrays:
            p = minitorch.tensor(np.zeros(array.shape, array.dtype), requires_grad=True)
            p.data = same_layout(array)  # set directly: minitorch.tensor would make it C-contiguous
            params.append(p)
        twins.append(params)
    return twins


def set_grads(params, grads):
    """``p.grad`` of each param: a tensor with the given values and layout, or None."""
    for p, g in zip(params, grads):
        if g is None:
            p.grad = None
        else:
            grad = minitorch.tensor(np.zeros(g.shape, g.dtype))
            grad.data = same_layout(g)
            p.grad = grad


def run_twins(name, kwargs, arrays, grad_steps, check=None):
    """Step a foreach=True and a foreach=False optimizer on the same grads; compare after each step."""
    (pa, pb) = twin_params(arrays)
    opt_a = getattr(minitorch.optim, name)(pa, foreach=True, **kwargs)
    opt_b = getattr(minitorch.optim, name)(pb, foreach=False, **kwargs)
    for step, grads in enumerate(grad_steps):
        set_grads(pa, grads)
        set_grads(pb, grads)
        opt_a.step()
        opt_b.step()
        assert_same(pa, opt_a, pb, opt_b, f"step {step}")
        if check is not None:
            check(step, pa, opt_a)
    return pa, opt_a, pb, opt_b


def random_grads(rng, arrays, steps, none_at=()):
    """``steps`` lists of gradients like ``arrays``; ``none_at`` holds (step, index) pairs with no gradient."""
    return [
        [None if (s, i) in none_at else rng.standard_normal(a.shape).astype(a.dtype) for i, a in enumerate(arrays)]
        for s in range(steps)
    ]


@pytest.fixture
def taken(monkeypatch):
    """A list with, for every group step that may take the flat step (foreach not False), whether it did.

    It records what ``paths.choose_path`` picked: True for the foreach (flat) step, False
    for the per-parameter loop.
    """
    results = []
    real = paths.choose_path

    def recording(optimizer, group, *args, **kwargs):
        path = real(optimizer, group, *args, **kwargs)
        if group.get("foreach") is not False:
            results.append(path == paths.FOREACH)
        return path

    monkeypatch.setattr(paths, "choose_path", recording)
    return results


# ---------------------------------------------------------------------- bit-identical to the loop
@settings(max_examples=40, deadline=None)
@given(
    shapes=st.lists(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5), min_size=1, max_size=5),
    dtype=st.sampled_from([np.float32, np.float64, np.float16]),
    config=st.sampled_from(CONFIGS),
    seed=st.integers(0, 2**16),
)
def test_random_shapes_are_bit_identical_to_the_loop(shapes, dtype, config, seed):
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(s).astype(dtype) for s in shapes]
    run_twins(*config, arrays, random_grads(rng, arrays, 5))


@pytest.mark.parametrize("name,kwargs", CONFIGS, ids=IDS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_layouts_and_tiny_params_are_bit_identical_to_the_loop(rng, name, kwargs, dtype, taken):
    arrays = [
        rng.standard_normal((5, 4)).astype(dtype).T,  # Fortran-ordered
        rng.standard_normal((3, 6)).astype(dtype)[:, ::2],  # strided (not contiguous either way)
        np.asarray(rng.standard_normal(), dtype),  # 0-d
        rng.standard_normal(1).astype(dtype),  # one element
        rng.standard_normal((0, 3)).astype(dtype),  # empty
        rng.standard_normal((7, 2)).astype(dtype),
    ]
    pa, opt_a, _, _ = run_twins(name, kwargs, arrays, random_grads(rng, arrays, 6))
    assert pa[0].data.flags.f_contiguous and not pa[0].data.flags.c_contiguous
    assert not pa[1].data.flags.c_contiguous and not pa[1].data.flags.f_contiguous
    assert taken == [True] * 6  # the flat step did them (the loop only checked it)
    views = [opt_a.state[p]["exp_avg"] for p in pa]
    assert all(v.base is views[0].base for v in views)  # views into one flat buffer


@pytest.mark.parametrize("name,kwargs", CONFIGS, ids=IDS)
def test_fortran_ordered_gradients(rng, name, kwargs):
    arrays = [rng.standard_normal((4, 3)), rng.standard_normal(3)]
    grads = [[np.asfortranarray(rng.standard_normal((4, 3))), rng.standard_normal(3)] for _ in range(5)]
    run_twins(name, kwargs, arrays, grads)


@pytest.mark.parametrize("name,kwargs", CONFIGS, ids=IDS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_parameter_without_grad_on_some_steps(rng, name, kwargs, dtype, taken):
    arrays = [rng.standard_normal(s).astype(dtype) for s in MLP_SHAPES]
    # param 3 has no grad at steps 0 and 2: it starts late and then lags, so the step counts
    # differ and the group falls back to the loop; param 1 has none at step 4 only.
    grads = random_grads(rng, arrays, 7, none_at={(0, 3), (2, 3), (4, 1)})
    run_twins(name, kwargs, arrays, grads)
    # step 0: flat over params 0-2; 1: param 3's first step among others' second, so the loop;
    # 2: flat again over 0-2 (buffers rebuilt for the new set); then param 3 lags behind.
    assert taken == [True, False, True, False, False, False, False]


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
        assert_same(list(models[0].parameters()), opts[0], list(models[1].parameters()), opts[1], f"step {step}")


@pytest.mark.parametrize("name,kwargs", CONFIGS, ids=IDS)
@pytest.mark.parametrize("cross", [False, True], ids=["same", "crossed"])
def test_load_state_dict_mid_training_continues_identically(rng, name, kwargs, cross):
    arrays = [rng.standard_normal(s) for s in [(3, 4), (), (4,)]]
    grads = random_grads(rng, arrays, 7)
    pa, opt_a, pb, opt_b = run_twins(name, kwargs, arrays, grads[:3])
    saved_a, saved_b = opt_a.state_dict(), opt_b.state_dict()
    if cross:  # a checkpoint from the loop loaded into the flat step, and the other way round
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
        assert_same(pa, opt_a, pb, opt_b, f"after load, step {step}")
    assert_same(pa, opt_a, reference[0], reference[1], "against the run without a checkpoint")


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
        assert_same(pa, opt_a, pb, opt_b)
    assert all(taken)


def test_add_param_group_and_a_copied_optimizer(rng):
    arrays = [rng.standard_normal(s) for s in [(3, 2), (2,)]]
    extra = [rng.standard_normal(s) for s in [(4,), ()]]
    grads = random_grads(rng, arrays + extra, 6)
    pa, opt_a, pb, opt_b = run_twins("AdamW", dict(weight_decay=0.1), arrays, [g[:2] for g in grads[:2]])
    (ea, eb) = twin_params(extra)
    opt_a.add_param_group({"params": ea, "lr": 0.05})
    opt_b.add_param_group({"params": eb, "lr": 0.05})
    assert opt_a.param_groups[1]["foreach"] is True and opt_b.param_groups[1]["foreach"] is False
    pa, pb = pa + ea, pb + eb
    for step_grads in grads[2:4]:
        for params, opt in ((pa, opt_a), (pb, opt_b)):
            set_grads(params, step_grads)
            opt.step()
        assert_same(pa, opt_a, pb, opt_b)
    # A deep copy holds copies of the views, which are views of nothing: it must rebuild, not
    # update flat buffers its state no longer shows.
    copied = copy.deepcopy(opt_a)
    pc = [p for g in copied.param_groups for p in g["params"]]
    for step_grads in grads[4:]:
        for params, opt in ((pa, opt_a), (pb, opt_b), (pc, copied)):
            set_grads(params, step_grads)
            opt.step()
        assert_same(pa, opt_a, pb, opt_b)
        assert_same(pc, copied, pb, opt_b)


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
        assert_same([p], opt_p, [q], opt_q)
    assert taken == [False] * 3


# ---------------------------------------------------------------------- choosing, and the rest
def test_foreach_none_groups_small_params_and_leaves_big_ones_to_the_loop(rng, taken):
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
        "amsgrad", "betas", "capturable", "decoupled_weight_decay", "differentiable", "eps", "foreach", "fused",
        "lr", "maximize", "params", "weight_decay",
    ]
    assert minitorch.optim.AdamW([p], foreach=np.bool_(False)).param_groups[0]["foreach"] is False
    with pytest.raises(TypeError, match="foreach must be None, True or False"):
        minitorch.optim.Adam([p], foreach="yes")
    with pytest.raises(TypeError):
        # amsgrad is the last positional argument; foreach is keyword-only, as in PyTorch
        minitorch.optim.Adam([p], 1e-3, (0.9, 0.999), 1e-8, 0.0, False, True)


@pytest.mark.parametrize("name,kwargs", CONFIGS, ids=IDS)
@pytest.mark.parametrize("dtype,rtol", [(np.float64, 1e-12), (np.float32, 1e-6)])
def test_foreach_matches_torch_foreach(rng, name, kwargs, dtype, rtol):
    torch = pytest.importorskip("torch")
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
                np.testing.assert_allclose(
                    mt_opt.state[m][key], th_opt.state[t][key].numpy(), rtol=rtol, atol=rtol
                )
        assert mt_opt.state[mt[0]]["step"] == int(th_opt.state[th[0]]["step"]) == step + 1


@pytest.mark.parametrize("name", ["SGD", "RMSprop", "Adagrad", "Adadelta"])
def test_other_optimizers_accept_foreach_and_update_the_same(rng, name):
    """PyTorch's optimizers all take foreach=; here it changes nothing for these (their loop is the step)."""
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
    np.testing.assert_array_equal(results[0], results[1])
    np.testing.assert_array_equal(results[0], results[2])
    with pytest.raises(TypeError, match="foreach"):
        getattr(minitorch.optim, name)([p], lr=0.1, foreach="yes")
