"""The ops of unary (reciprocal ...), rounding, binary_math, elementwise_logic, selection and ordering on a device.

Each op runs on the CPU and on a device, from the same random float64 and float32
inputs, and must give the same values, dtypes and gradients, with every result (and every
gradient) a device array, never a host NumPy array. Two devices: ``"sim"`` (the backend of
``simulated_backend.py``, which checks index ranges at once) and ``"cuda"`` on the fake
CuPy (the GPU backend itself, which defers those checks to the next sync point).

Also here: ops returning indices, index tensors that live on the device, in-place
methods, the errors (an out-of-range device index must still raise), and which ops may
make Python wait for the GPU (a "host sync"): only those whose result's shape depends on
the data, as in PyTorch.
"""

import math

import numpy as np
import pytest
import simulated_backend
from fake_cupy import FakeDeviceArray
from test_devices import host, run_both

import minitorch
from minitorch import backends
from minitorch.errors import MiniTorchError, MiniTorchIndexError


@pytest.fixture(params=["sim", "fake-cuda"])
def device(request):
    """A device name: "sim" registered for the test, or "cuda" on conftest's fake GPU."""
    if request.param == "fake-cuda":
        request.getfixturevalue("fake_gpu")
        yield "cuda"
        return
    simulated_backend.register()
    yield "sim"
    backends.unregister("sim")


def on(device, values, dtype=None):
    """A constant tensor (an index, a mask) on ``device``."""
    return minitorch.tensor(values, dtype=dtype).to(device)


def check_lives_on(t, device):
    """``t`` is on ``device`` and its data is that device's array type, not a host array."""
    assert t.device == device, f"a result on {t.device}, not {device}"
    expected = np.ndarray if device == "cpu" else FakeDeviceArray
    assert type(t.data) is expected, f"a result on {device} holds a {type(t.data).__name__}"


def checked(fn):
    """``fn`` that also checks where its result lives (the device of its first input)."""

    def run(*inputs):
        y = fn(*inputs)
        check_lives_on(y, inputs[0].device)
        return y

    return run


# ---------------------------------------------------------------------- differentiable ops
def _pos(t):
    return t.abs() + 0.5


DIFF_OPS = {
    # unary (reciprocal ...), rounding, binary_math
    "round_floor_ceil_trunc_sign": (
        lambda a: minitorch.round(a * 3) + minitorch.round(a, decimals=1) + a.floor() + a.ceil() + a.trunc()
        + a.sign() + a,
        [(3, 4)],
    ),
    "reciprocal_square_rsqrt": (lambda a: _pos(a).reciprocal() + a.square() + _pos(a).rsqrt(), [(3, 4)]),
    "logs_exps_tan": (
        lambda a: _pos(a).log2() + _pos(a).log10() + a.expm1() + a.exp2() + (a * 0.5).tan(),
        [(3, 4)],
    ),
    "atan2_broadcast": (lambda a, b: minitorch.atan2(a, b[0]), [(3, 4), (2, 4)]),
    "lerp_number_weight": (
        lambda a, b: minitorch.lerp(a, b, 0.3) + minitorch.lerp(a, b, 0.8)
        + minitorch.lerp(a, b, on(a.device, 0.6, dtype=a.dtype)),  # a 0-d tensor counts as a number
        [(3, 4), (3, 4)],
    ),
    "lerp_tensor_weight": (lambda a, b, w: minitorch.lerp(a, b, w.sigmoid() * 1.4 - 0.2), [(3, 4), (3, 4), (3, 4)]),
    "fmod": (lambda a, b: minitorch.fmod(a * 3, _pos(b)) + minitorch.fmod(a, 0.7), [(3, 4), (3, 4)]),
    "clip_clamp_min_max": (
        lambda a, b: a.clip(-0.5, 0.5) + minitorch.clamp_min(a, 0.1) + minitorch.clamp_max(a, b),
        [(3, 4), (3, 4)],
    ),
    # ordering
    "sort_values": (lambda a: a.sort(1)[0] * 2 + a.sort(0, descending=True).values, [(3, 4)]),
    "topk_values": (lambda a: a.topk(2, dim=1).values.sum(1) + a.topk(2, 0, largest=False)[0].sum(0)[:3], [(3, 4)]),
    "cumsum": (lambda a: a.cumsum(1) + a.cumsum(0), [(3, 4)]),
    "cumprod": (lambda a: a.cumprod(1), [(3, 4)]),
    "cumprod_with_zeros": (lambda a: (a * (a.abs() > 0.4)).cumprod(1), [(4, 5)]),
    "prod": (lambda a: a.prod(1) + a.prod().reshape(1) + (a * (a.abs() > 0.4)).prod(0)[:3], [(3, 4)]),
    "norm": (
        lambda a: a.norm().reshape(1) + a.norm(1, dim=1) + a.norm(3, dim=1) + a.norm(0.5, dim=1)
        + a.norm(math.inf, dim=1) + a.norm(-math.inf, dim=1) + a.norm(0, dim=1),
        [(3, 4)],
    ),
    "flip_roll": (
        lambda a: a.flip(0) + a.flip([0, 1]) * 2 + a.roll(1, 1) + a.roll((1, -2), (0, 1)) + a.roll(5),
        [(3, 4)],
    ),
    # selection, index tensors on the device
    "gather": (lambda a: a.gather(1, on(a.device, [[0, 0, 3], [2, 1, 0], [3, 3, 3]])), [(3, 4)]),
    "index_select": (lambda a: a.index_select(1, on(a.device, [3, 0, 3])) * 2, [(3, 4)]),
    "scatter": (
        lambda a, s: minitorch.scatter(a, 1, on(a.device, [[2, 0], [1, 3], [0, 1]]), s) * 2,
        [(3, 4), (3, 3)],
    ),
    "scatter_value": (lambda a: a.scatter(0, on(a.device, [[2, 0, 1, 0]]), value=1.5) * 2, [(3, 4)]),
    "masked_select": (
        lambda a, b: a.masked_select(on(a.device, [True, False, True, True])) * 2 + b.masked_select(b > 0).sum(),
        [(3, 4), (3, 4)],
    ),
    "narrow_select_unbind": (
        lambda a: a.narrow(1, 1, 2).sum(1) + a.select(1, -1) + minitorch.stack(a.unbind(1)).sum(0),
        [(3, 4)],
    ),
    "movedim": (lambda a: a.movedim(0, 2).reshape(-1) + minitorch.moveaxis(a, (0, 1), (1, 0)).reshape(-1), [(2, 3, 4)]),
    "repeat_tile": (
        lambda a: a.repeat(2, 1, 3).sum(0)[:, 2:6] + minitorch.tile(a, (2,)).reshape(3, 2, 4).sum(1),
        [(3, 4)],
    ),
    "repeat_interleave": (
        lambda a: a.repeat_interleave(2, dim=1).sum(1)
        + a.repeat_interleave(on(a.device, [1, 0, 3]), dim=0).sum(0)[:3]
        + a.repeat_interleave(2)[:3],
        [(3, 4)],
    ),
    "diag": (lambda a, v: a.diag() + a.diag(1)[:2].sum() + v.diag(-1)[:3, 1], [(3, 4), (3,)]),
    "outer_dot": (lambda a, b: minitorch.outer(a, b) + minitorch.dot(a, b[:3]), [(3,), (4,)]),
    "broadcasting": (
        lambda a, b: minitorch.broadcast_to(a, (2, 3, 4)).sum(0)
        + minitorch.broadcast_tensors(a, b[:1])[1],
        [(3, 4), (3, 4)],
    ),
    "hstack_vstack": (
        lambda a, b: minitorch.hstack([a, b]).reshape(-1)[:12] + minitorch.vstack([a[0], b]).reshape(-1)[:12],
        [(3, 4), (3, 4)],
    ),
}


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("name", sorted(DIFF_OPS))
def test_values_and_gradients_match_cpu(device, name, dtype, rng):
    fn, shapes = DIFF_OPS[name]
    arrays = [rng.standard_normal(s).astype(dtype) for s in shapes]
    (y_cpu, g_cpu), (y_dev, g_dev) = run_both(checked(fn), arrays, device)
    assert y_dev.dtype == y_cpu.dtype == dtype
    tol = 1e-12 if dtype == np.float64 else 1e-5
    np.testing.assert_allclose(y_dev, y_cpu, rtol=tol, atol=tol)
    for a, b in zip(g_cpu, g_dev):
        assert (a is None) == (b is None)
        if a is not None:
            assert b.dtype == a.dtype == dtype
            np.testing.assert_allclose(b, a, rtol=tol, atol=tol)


# ---------------------------------------------------------------------- results outside the graph
def _ints(a):
    """Small integers as float: ties for the sorts, repeats for unique."""
    return (a * 2).round()


VALUE_OPS = {
    # ordering: the indices
    "sort_indices": lambda a: (_ints(a).sort(1)[1], _ints(a).sort(0, descending=True).indices),
    "argsort": lambda a: (_ints(a).argsort(1), _ints(a).argsort(0, descending=True), a[0, 0].argsort()),
    "topk_indices": lambda a: (a.topk(3, 1).indices, a.topk(2, 0, largest=False)[1]),
    "sort_bool": lambda a: tuple((a > 0).sort(1, descending=True)),
    "cumsum_cumprod_int": lambda a: (_ints(a).long().cumsum(1), (a > 0).cumsum(0), _ints(a).long().cumprod(1)),
    "prod_int": lambda a: (_ints(a).long().prod(1), (a > -1).prod()),
    "flip_roll_int": lambda a: (_ints(a).long().flip(1), (a > 0).roll(1, 0)),
    # selection
    "nonzero": lambda a: (_ints(a).nonzero(), *minitorch.nonzero(_ints(a), as_tuple=True)),
    "unique": lambda a: minitorch.unique(_ints(a), return_inverse=True, return_counts=True),
    "unique_dim": lambda a: minitorch.unique(
        minitorch.cat([_ints(a), _ints(a)[:1]]).long(), dim=0, return_inverse=True, return_counts=True
    ),
    "unique_bool": lambda a: minitorch.unique(a > 0, return_inverse=True, return_counts=True),
    "unique_bool_dim": lambda a: minitorch.unique(
        minitorch.cat([a > 0, a[:1] > 0]), dim=0, return_inverse=True, return_counts=True
    ),
    "unique_float_dim": lambda a: minitorch.unique(minitorch.cat([a, a[:, 1:]], 1), dim=1, return_inverse=True),
    "unbind_broadcast_tensors_hstack": lambda a: (
        *a.unbind(1), *minitorch.broadcast_tensors(a, a[:1, :1]), minitorch.hstack([a[0], a[1, :2]]),
        minitorch.vstack([a[0], a[1]]),
    ),
    "count_nonzero": lambda a: (minitorch.count_nonzero(_ints(a)), minitorch.count_nonzero(_ints(a), dim=1)),
    "gather_int": lambda a: (_ints(a).long().gather(0, on(a.device, [[2, 1, 0, 0]])),),
    "masked_select_int": lambda a: (_ints(a).long().masked_select(a > 0),),
    "repeat_interleave_int": lambda a: (
        _ints(a).long().repeat_interleave(on(a.device, [2, 0, 1]), dim=0),
        minitorch.repeat_interleave(on(a.device, [1, 2, 0, 3])),  # counts only: positions repeated
        minitorch.repeat_interleave(a, 2, dim=1, output_size=8) > 0,
    ),
    # rounding and unary math on integers and bools
    "rounding_ints": lambda a: (
        _ints(a).long().round(), _ints(a).long().floor(), _ints(a).long().ceil(), _ints(a).long().trunc(),
        _ints(a).long().sign(), (a > 0).sign(),
    ),
    "float_math_of_ints": lambda a: (
        (_ints(a).long().abs() + 1).reciprocal(), _ints(a).long().square(), (a > 0).square(),
        (_ints(a).long().abs() + 1).log2(), _ints(a).long().exp2(),
    ),
    "fmod_int": lambda a: (
        minitorch.fmod(_ints(a).long(), 3), minitorch.fmod(_ints(a).long(), on(a.device, [3, 2, 5, 4])),
    ),
    "clamp_int": lambda a: (_ints(a).long().clamp(-1, 1), minitorch.clamp_min(_ints(a).long(), 0)),
    # elementwise_logic
    "isnan_isinf_isfinite": lambda a: (
        (a.log()).isnan(), (1 / _ints(a)).isinf(), (a.log() / _ints(a)).isfinite(),
        _ints(a).long().isnan(), _ints(a).long().isinf(), (a > 0).isfinite(),
    ),
    "logical": lambda a: (
        minitorch.logical_and(a > 0, _ints(a)), minitorch.logical_or(a > 0.5, a < -0.5),
        minitorch.logical_xor(a > 0, _ints(a)[:1]), minitorch.logical_not(_ints(a)),
    ),
    "comparisons": lambda a: (
        minitorch.eq(_ints(a), 0), minitorch.ne(a, a[0]), minitorch.lt(a, 0.1), minitorch.le(_ints(a), a),
        minitorch.gt(a, a.flip(1)), minitorch.ge(_ints(a).long(), 0),
    ),
    "isclose": lambda a: (
        minitorch.isclose(a, a + 1e-9), minitorch.isclose(a, a.round(decimals=1), rtol=0, atol=0.03),
        minitorch.isclose(a.log(), a.log(), equal_nan=True), minitorch.isclose(_ints(a).long(), _ints(a).long()[:1]),
    ),
    "allclose_equal": lambda a: (
        minitorch.allclose(a, a + 1e-9), minitorch.allclose(a, a.round(decimals=1)),
        minitorch.equal(a, a.clone()), minitorch.equal(a, a.flip(0)), minitorch.equal(a, a[:1]),
    ),
}


def run_values(fn, arrays, device):
    """``fn`` on CPU and device tensors; its results (tensors as host arrays) from each run."""
    out = {}
    for where in ("cpu", device):
        results = fn(*[minitorch.tensor(a).to(where) for a in arrays])
        results = results if isinstance(results, tuple) else (results,)
        for r in results:
            if isinstance(r, minitorch.Tensor):
                check_lives_on(r, where)
                assert not r.requires_grad
        out[where] = [host(r) if isinstance(r, minitorch.Tensor) else r for r in results]
    return out["cpu"], out[device]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("name", sorted(VALUE_OPS))
def test_indices_masks_and_integer_results_match_cpu(device, name, dtype, rng):
    with np.errstate(all="ignore"):  # the NaN and inf on purpose
        cpu, dev = run_values(VALUE_OPS[name], [rng.standard_normal((3, 4)).astype(dtype)], device)
    assert len(cpu) == len(dev)
    for a, b in zip(cpu, dev):
        if isinstance(a, np.ndarray):
            assert b.dtype == a.dtype and b.shape == a.shape
            np.testing.assert_array_equal(b, a)
        else:
            assert type(b) is type(a) and b == a


def test_sort_of_nan_and_ties_match_cpu(device):
    x = np.array([[2.0, np.nan, 1.0, 2.0, -np.inf, 1.0], [0.0, -0.0, np.nan, np.nan, 3.0, 0.0]])
    for descending in (False, True):
        cpu, dev = run_values(lambda t, d=descending: tuple(t.sort(1, descending=d)), [x], device)
        np.testing.assert_array_equal(dev[0], cpu[0])
        np.testing.assert_array_equal(dev[1], cpu[1])


# ---------------------------------------------------------------------- in place and new_*
def test_in_place_methods_match_cpu(device, rng):
    x = rng.standard_normal((3, 4)).astype(np.float32)
    results = {}
    for where in ("cpu", device):
        t = minitorch.tensor(x).to(where)
        steps = [
            t.clone().clamp_(-0.5, 0.5),
            t.clone().clip_(min=0.0),
            t.clone().exp_(),
            t.clone().masked_fill_(on(where, [True, False, False, True]), -1.0),
            t.clone().masked_fill_(t > 0, on(where, 2.0, dtype=minitorch.float32)),
        ]
        minitorch.manual_seed(4)
        steps += [t.clone().normal_(1.0, 2.0), t.clone().uniform_(-1.0, 3.0)]
        for s in steps:
            check_lives_on(s, where)
        results[where] = [host(s) for s in steps]
    for a, b in zip(results["cpu"], results[device]):
        assert b.dtype == a.dtype
        np.testing.assert_allclose(b, a, rtol=1e-6)


def test_in_place_through_the_graph_on_device(device, rng):
    x = rng.standard_normal((3, 4))
    grads = {}
    for where in ("cpu", device):
        a = minitorch.tensor(x).to(where).requires_grad_()
        y = a * 2
        y.clamp_(-1.0, 1.0).exp_()
        y.masked_fill_(on(where, [False, True, False, False]), 0.0)
        y.sum().backward()
        check_lives_on(a.grad, where)
        grads[where] = host(a.grad)
    np.testing.assert_allclose(grads[device], grads["cpu"])


def test_new_tensors_follow_their_source(device):
    t = minitorch.ones(2, 3, dtype=minitorch.float32).to(device)
    made = {
        "new_zeros": t.new_zeros(2, 2),
        "new_ones": t.new_ones((3,)),
        "new_full": t.new_full((2,), 7.5),
        "new_empty": t.new_empty(4),
        "new_tensor": t.new_tensor([1.0, 2.0]),
        "new_zeros_int": t.new_zeros(2, dtype=minitorch.int64),
    }
    for name, m in made.items():
        check_lives_on(m, device)
        assert m.dtype == (minitorch.int64 if name.endswith("int") else minitorch.float32), name
    assert made["new_full"].tolist() == [7.5, 7.5] and made["new_tensor"].tolist() == [1.0, 2.0]


# ---------------------------------------------------------------------- errors
def sync(device):
    """What makes a deferred device-side check raise: a copy to the host waits for the device."""
    minitorch.ones(1).to(device).cpu()


BAD_INDEX = {
    "gather_too_big": lambda a, d: a.gather(1, on(d, [[0, 4]] * 3)),
    "gather_negative": lambda a, d: a.gather(0, on(d, [[0, -1, 0, 0]])),
    "index_select_too_big": lambda a, d: a.index_select(0, on(d, [0, 3])),
    "index_select_negative": lambda a, d: a.index_select(1, on(d, [-1])),
    "scatter_too_big": lambda a, d: a.scatter(1, on(d, [[4], [0], [0]]), a[:, :1]),
    "scatter_value_negative": lambda a, d: a.scatter(0, on(d, [[-3, 0, 0, 0]]), value=0.0),
}


@pytest.mark.parametrize("name", sorted(BAD_INDEX))
def test_an_out_of_range_device_index_raises(device, name, rng):
    a = minitorch.tensor(rng.standard_normal((3, 4))).to(device)
    if device != "cpu":  # a host index for a device tensor: refused (the op checks devices before values)
        with pytest.raises(MiniTorchError, match="same device|out of bounds"):
            BAD_INDEX[name](a, "cpu")
    with pytest.raises(MiniTorchIndexError, match="out of bounds"):
        BAD_INDEX[name](a.cpu(), "cpu")
    with pytest.raises(MiniTorchIndexError, match="out of bounds"):
        BAD_INDEX[name](a, device)  # on the device: at once (sim) or at the next sync point (cuda)
        sync(device)
    sync(device)  # reported once, then forgotten


@pytest.mark.parametrize("name", ["gather_too_big", "index_select_negative", "scatter_too_big"])
def test_debug_mode_checks_a_gpu_index_at_once(fake_gpu, name):
    """set_debug(True): the index is read back and checked at the call, naming the bad value."""
    minitorch.autograd.set_debug(True)  # the tests' teardown resets the switches
    a = minitorch.ones(3, 4).to("cuda")
    with pytest.raises(MiniTorchIndexError, match=r"index -?\d+ is out of bounds"):
        BAD_INDEX[name](a, "cuda")


def test_integer_fmod_by_zero_raises_on_device(device):
    a = on(device, [3, -7, 8])
    with pytest.raises(MiniTorchError, match="division by zero"):
        minitorch.fmod(a, 0)
    with pytest.raises(MiniTorchError, match="division by zero"):
        minitorch.fmod(a, on(device, [1, 0, 2]))
        sync(device)
    sync(device)
    minitorch.autograd.set_debug(True)
    with pytest.raises(MiniTorchError, match="division by zero"):
        minitorch.fmod(a, on(device, [[1, 2, 3], [1, 0, 2]]))  # at once
    assert minitorch.fmod(a[:0], on(device, [0])).shape == (0,)  # nothing divided


def test_errors_match_cpu(device):
    """Checks made on shapes and dtypes raise the same on every device."""
    cases = [
        lambda t, d: t.topk(5, 1),
        lambda t, d: (t > 0).topk(1),
        lambda t, d: t.gather(1, on(d, [[True, False]] * 3)),
        lambda t, d: t.gather(1, on(d, [[0, 1]] * 4)),
        lambda t, d: t.index_select(0, on(d, [[0]])),
        lambda t, d: t.scatter(1, on(d, [[0]] * 3), t.long()),
        lambda t, d: t.masked_select(on(d, [1, 0, 1, 0])),
        lambda t, d: t.narrow(1, 3, 2),
        lambda t, d: t.select(0, 3),
        lambda t, d: t.norm(p="nuc"),
        lambda t, d: t.long().norm(),
        lambda t, d: t.flip(0, 0),
        lambda t, d: t.roll((1, 2), 0),
        lambda t, d: t.repeat_interleave(on(d, [1, 2]), dim=0),
        lambda t, d: t.repeat_interleave(on(d, [1, -1, 1]), dim=0),
        lambda t, d: minitorch.dot(t[0], t[0].long()),
        lambda t, d: minitorch.lerp(t, t.long(), 0.5),
        lambda t, d: minitorch.isclose(t, t.long()),
        lambda t, d: minitorch.logical_and(t, 1),
        lambda t, d: minitorch.round(t.long(), decimals=1),
        lambda t, d: minitorch.atan2(t, t[:2]),
    ]
    x = np.arange(12.0).reshape(3, 4)
    for case in cases:
        errors = []
        for where in ("cpu", device):
            with pytest.raises(Exception) as info:
                case(minitorch.tensor(x).to(where), where)
            errors.append((type(info.value), str(info.value)))
        assert errors[0] == errors[1]


def test_an_index_on_another_device_is_refused(device):
    a = minitorch.ones(3, 4).to(device)
    for op in (
        lambda i: a.gather(1, i.reshape(1, 2).expand(3, 2)),
        lambda i: a.index_select(1, i),
        lambda i: a.scatter(1, i.reshape(1, 2), 0.0),
    ):
        with pytest.raises(MiniTorchError, match="device|cpu"):
            op(minitorch.tensor([0, 1]))


# ---------------------------------------------------------------------- host syncs
@pytest.fixture
def syncs(monkeypatch):
    """Counts the reads of device values on the host (each one makes Python wait for the GPU)."""
    count = {"n": 0}
    for name in ("get", "item", "tolist", "__bool__", "__int__", "__float__", "__index__"):
        method = getattr(FakeDeviceArray, name)

        def counted(self, *args, _method=method, **kwargs):
            count["n"] += 1
            return _method(self, *args, **kwargs)

        monkeypatch.setattr(FakeDeviceArray, name, counted)
    return count


NO_SYNC = {
    **{name: fn for name, (fn, _) in DIFF_OPS.items() if name not in ("masked_select", "repeat_interleave")},
    "gather_checked": lambda a: a.gather(1, on(a.device, [[0, 1]] * 3)).sum(),
    "fmod_int_tensor": lambda a: minitorch.fmod(on(a.device, [4, 5, 6, 7]), on(a.device, [3, 2, 2, 2])) + a,
    "sort_indices": lambda a: a.sort(1)[1] + a.argsort(0) + a.topk(2).indices.sum() + a,
    "logic": lambda a: minitorch.isclose(a, a) + minitorch.logical_xor(a > 0, a) + a,
    "count_nonzero": lambda a: minitorch.count_nonzero(a, dim=0) + a,
}


@pytest.mark.parametrize("name", sorted(NO_SYNC))
def test_no_host_sync_on_the_gpu(fake_gpu, syncs, name, rng):
    """On the GPU (fake CuPy) these ops and their backward never read a device value on the host."""
    fn, shapes = DIFF_OPS.get(name, (NO_SYNC[name], [(3, 4)]))
    inputs = [minitorch.tensor(rng.standard_normal(s)).to("cuda").requires_grad_() for s in shapes]
    minitorch.tensor([0]).to("cuda")
    syncs["n"] = 0
    y = fn(*inputs)
    y.sum().backward()
    assert syncs["n"] == 0, f"{name} made {syncs['n']} host syncs"


def test_data_dependent_shapes_sync_once_as_in_pytorch(fake_gpu, syncs, rng):
    """nonzero, unique, masked_select: the result's size must be read on the host (PyTorch syncs too)."""
    a = minitorch.tensor(rng.standard_normal((3, 4))).to("cuda")
    for fn in (
        lambda: a.nonzero(),
        lambda: minitorch.unique(a.round()),
        lambda: minitorch.unique((a > 0).long(), dim=1),  # not CuPy's unique(axis=): a sync per comparison
        lambda: a.masked_select(a > 0),
    ):
        syncs["n"] = 0
        check_lives_on(fn(), "cuda")
        assert syncs["n"] <= 1


# ---------------------------------------------------------------------- scatter with reduce="multiply"
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
@pytest.mark.parametrize("dim", [0, 1])
def test_scatter_multiply_with_repeated_indices(device, dtype, dim, rng):
    """CuPy has no ``multiply.at``: on a device, repeated targets are still multiplied together, in
    NumPy's order (the same bits as the CPU), and the rest of ``input`` is untouched."""
    a = (rng.standard_normal((3, 4)) * 4).astype(dtype)
    src = (rng.standard_normal((3, 5)) * 4).astype(dtype)  # larger than the index along dim 1
    index = [[2, 0, 2, 2], [0, 1, 2, 2], [2, 2, 0, 1]] if dim == 0 else [[3, 3, 0], [1, 3, 3], [0, 0, 0]]
    want = minitorch.scatter(minitorch.tensor(a), dim, minitorch.tensor(index), minitorch.tensor(src),
                             reduce="multiply")
    got = minitorch.scatter(on(device, a), dim, on(device, index), on(device, src), reduce="multiply")
    check_lives_on(got, device)
    np.testing.assert_array_equal(host(got), want.numpy())
    flat = on(device, a[0]).scatter(0, on(device, [1, 1, 3, 1]), on(device, src[0, :4]), reduce="multiply")
    np.testing.assert_array_equal(host(flat), minitorch.tensor(a[0]).scatter(
        0, minitorch.tensor([1, 1, 3, 1]), minitorch.tensor(src[0, :4]), reduce="multiply").numpy())
