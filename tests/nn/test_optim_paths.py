"""Each optimizer's implementations (minitorch/optim/paths.py): single-tensor and foreach agree.

Every optimizer's step gathers a group's parameters into lists and runs the one function
``paths.choose_path`` picks. Here, for each optimizer and its variants (weight decay,
momentum, Nesterov, dampening, amsgrad, centered, maximize), the single-tensor loop
(``foreach=False``), the flat step (``foreach=True``) and the default (``foreach=None``)
must leave the parameters and the state identical to the last bit after every step, and
match ``torch.optim`` within float32 (float64) rounding. The choice rule itself is tested
on the CPU here and on the (fake) GPU in tests/devices/test_optim_paths_gpu.py.
"""

import numpy as np
import pytest

import minitorch
from minitorch.errors import MiniTorchError
from minitorch.optim import paths

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
HAS_FLAT_STEP = {"Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta"}  # SGD: the loop was as fast
SHAPES = [(6, 5), (5,), (), (1,), (3, 2, 2)]
STEPS = 5


@pytest.fixture
def chosen(monkeypatch):
    """``{id(optimizer): [path of each group step]}``, from every call of ``paths.choose_path``."""
    record = {}
    real = paths.choose_path

    def recording(optimizer, *args):
        path = real(optimizer, *args)
        record.setdefault(id(optimizer), []).append(path)
        return path

    monkeypatch.setattr(paths, "choose_path", recording)
    return record


def make_params(values):
    """Leaf tensors holding copies of ``values``."""
    return [minitorch.tensor(v.copy(), requires_grad=True) for v in values]


def random_steps(rng, values):
    """``STEPS`` lists of gradients shaped and typed like ``values``."""
    return [[rng.standard_normal(v.shape).astype(v.dtype) for v in values] for _ in range(STEPS)]


def assert_same_bits(a, b, what):
    """Equal dtype, shape and bytes (stricter than array_equal: -0.0 vs 0.0)."""
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape, what
    assert np.ascontiguousarray(a).tobytes() == np.ascontiguousarray(b).tobytes(), what


def assert_same_state(params_a, opt_a, params_b, opt_b, what):
    """Parameters and every state entry (same keys, same order) bit for bit the same."""
    for i, (a, b) in enumerate(zip(params_a, params_b)):
        assert_same_bits(a.data, b.data, f"{what}: param {i}")
        sa, sb = opt_a.state.get(a, {}), opt_b.state.get(b, {})
        assert list(sa) == list(sb), f"{what}: state keys of param {i}"
        for key in sa:
            if key == "step":
                assert type(sa[key]) is int and sa[key] == sb[key], f"{what}: step of param {i}"
            else:
                assert isinstance(sa[key], np.ndarray) and sa[key].shape == a.shape, f"{what}: {key} {i}"
                assert_same_bits(sa[key], sb[key], f"{what}: {key} of param {i}")


@pytest.mark.parametrize("name,kwargs", CONFIGS, ids=IDS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_single_tensor_foreach_and_default_are_bit_identical(rng, chosen, name, kwargs, dtype):
    values = [rng.standard_normal(s).astype(dtype) for s in SHAPES]
    runs = []
    for foreach in (False, True, None):
        params = make_params(values)
        runs.append((params, getattr(minitorch.optim, name)(params, foreach=foreach, **kwargs)))
    for step, grads in enumerate(random_steps(rng, values)):
        for params, opt in runs:
            for p, g in zip(params, grads):
                p.grad = minitorch.tensor(g)
            opt.step()
        for params, opt in runs[1:]:
            assert_same_state(runs[0][0], runs[0][1], params, opt, f"step {step}, foreach={opt.defaults['foreach']}")
    flat = paths.FOREACH if name in HAS_FLAT_STEP else paths.SINGLE_TENSOR
    # foreach=None: five small parameters are worth grouping, so the default is the flat step too
    assert [chosen[id(opt)] for _, opt in runs] == [[paths.SINGLE_TENSOR] * STEPS, [flat] * STEPS, [flat] * STEPS]


def strided_layouts(rng, dtype):
    """Parameters laid out every way: Fortran order, strided, 0-d, empty, and plain C order."""
    wide = rng.standard_normal((3, 8)).astype(dtype)
    return [
        rng.standard_normal((5, 4)).astype(dtype).T,  # Fortran order
        wide[:, ::2],  # every other column: contiguous neither way
        np.asarray(rng.standard_normal(), dtype),
        np.zeros((0, 3), dtype),
        rng.standard_normal((7, 2)).astype(dtype),
    ]


def same_layout(array):
    """A fresh copy of ``array`` laid out the same way: C order, Fortran order, or strided."""
    if array.flags.c_contiguous or array.flags.f_contiguous:
        return array.copy(order="K")
    wide = np.empty(array.shape[:-1] + (2 * array.shape[-1],), array.dtype)
    wide[..., ::2] = array
    return wide[..., ::2]


@pytest.mark.parametrize("name,kwargs", [c for c in CONFIGS if c[0] in HAS_FLAT_STEP], ids=lambda v: str(v))
@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_flat_steps_keep_the_bits_for_every_layout_and_float16(rng, chosen, name, kwargs, dtype):
    values = strided_layouts(rng, dtype)
    runs = []
    for foreach in (False, True):
        params = [minitorch.tensor(np.zeros(v.shape, dtype), requires_grad=True) for v in values]
        for p, v in zip(params, values):
            p.data = same_layout(v)  # set directly: minitorch.tensor would make it C-contiguous
        runs.append((params, getattr(minitorch.optim, name)(params, foreach=foreach, **kwargs)))
    for step, grads in enumerate(random_steps(rng, values)):
        for params, opt in runs:
            for p, g in zip(params, grads):
                p.grad = minitorch.tensor(g)
            opt.step()
        assert_same_state(runs[0][0], runs[0][1], runs[1][0], runs[1][1], f"step {step}")
    layouts = [p.data.flags for p in runs[1][0][:2]]
    assert layouts[0].f_contiguous and not layouts[0].c_contiguous  # still laid out as made
    assert not layouts[1].c_contiguous and not layouts[1].f_contiguous
    assert chosen[id(runs[1][1])] == [paths.FOREACH] * STEPS


@pytest.mark.parametrize("name,kwargs", CONFIGS, ids=IDS)
@pytest.mark.parametrize("foreach", [False, True], ids=["single_tensor", "foreach"])
@pytest.mark.parametrize("dtype,rtol", [(np.float32, 2e-5), (np.float64, 1e-12)])
def test_each_path_matches_torch(rng, name, kwargs, foreach, dtype, rtol):
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


@pytest.mark.parametrize("name,kwargs", CONFIGS, ids=IDS)
@pytest.mark.parametrize("foreach", [False, True], ids=["single_tensor", "foreach"])
def test_a_torch_state_dict_loads_into_each_path_and_training_continues(rng, name, kwargs, foreach):
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


# ---------------------------------------------------------------------- the choice
def _path_of(name, params, grads, **kwargs):
    """What ``choose_path`` picks for the first step of ``name(params, **kwargs)`` with ``grads``."""
    opt = getattr(minitorch.optim, name)(params, **kwargs)
    for p, g in zip(params, grads):
        p.grad = minitorch.tensor(g)
    group = opt.param_groups[0]
    with_grad, grad_arrays, states = opt._init_group(group)  # SGD's third list is its momentum buffers
    return paths.choose_path(opt, group, with_grad, grad_arrays, None if name == "SGD" else states)


def test_the_choice_on_the_cpu(rng):
    values = [rng.standard_normal(s).astype(np.float32) for s in SHAPES]
    grads = [np.ones_like(v) for v in values]
    one = values[:1]
    assert _path_of("Adam", make_params(values), grads) == paths.FOREACH  # several small: flat
    assert _path_of("Adam", make_params(one), grads[:1]) == paths.SINGLE_TENSOR  # one alone: the loop is faster
    assert _path_of("Adam", make_params(one), grads[:1], foreach=True) == paths.FOREACH  # as asked
    assert _path_of("RMSprop", make_params(values), grads, foreach=False) == paths.SINGLE_TENSOR
    # no fused kernel on the CPU: fused=True runs what the default would
    assert _path_of("AdamW", make_params(values), grads, fused=True) == paths.FOREACH
    assert _path_of("Adagrad", make_params(one), grads[:1], fused=True) == paths.SINGLE_TENSOR
    assert _path_of("SGD", make_params(values), grads, momentum=0.9, foreach=True) == paths.SINGLE_TENSOR
    big = [np.zeros(300_000, np.float32), np.zeros(300_000, np.float32)]  # 1.2 MB each: past SMALL_PARAM_BYTES
    assert _path_of("Adadelta", make_params(big), big) == paths.SINGLE_TENSOR
    assert _path_of("Adadelta", make_params(big), big, foreach=True) == paths.FOREACH
    mixed = [values[0], values[1].astype(np.float64)]  # one flat array needs one dtype
    assert _path_of("Adam", make_params(mixed), [np.ones_like(v) for v in mixed], foreach=True) == paths.SINGLE_TENSOR


def test_parameters_at_different_steps_take_the_loop_with_the_same_numbers(rng, chosen):
    values = [rng.standard_normal(s) for s in SHAPES[:3]]
    runs = [(make_params(values), foreach) for foreach in (True, False)]
    opts = [minitorch.optim.Adagrad(params, lr=0.1, lr_decay=0.1, foreach=foreach) for params, foreach in runs]
    for step, grads in enumerate(random_steps(rng, values)):
        for (params, _), opt in zip(runs, opts):
            for i, (p, g) in enumerate(zip(params, grads)):
                p.grad = None if (step == 0 and i == 2) else minitorch.tensor(g)  # param 2 starts a step late
            opt.step()
        assert_same_state(runs[0][0], opts[0], runs[1][0], opts[1], f"step {step}")
    # step 0: params 0-1 flat; then param 2 lags one step behind the others: one decayed lr
    # for the whole group is not possible, so the loop (decayed per parameter) runs
    assert chosen[id(opts[0])] == [paths.FOREACH] + [paths.SINGLE_TENSOR] * (STEPS - 1)


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
