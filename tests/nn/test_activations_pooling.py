"""More activations (LeakyReLU ... Threshold), average pooling, ModuleDict, ParameterList and Unflatten.

Each op has a float64 gradcheck and a side-by-side test against PyTorch (values, gradients,
dtypes, reprs, state_dict keys, errors) on random inputs of several shapes; the PyTorch
tests skip where torch is not installed.
"""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt
from minitorch import nn
from minitorch.autograd import gradcheck
from minitorch.errors import MiniTorchError

F = nn.functional


def _torch():
    return pytest.importorskip("torch")


# Each activation: (name in F, keyword arguments, module class name, constructor arguments).
ACTIVATIONS = [
    ("leaky_relu", {}, "LeakyReLU", ()),
    ("leaky_relu", {"negative_slope": 0.2}, "LeakyReLU", (0.2,)),
    ("elu", {}, "ELU", ()),
    ("elu", {"alpha": 1.7}, "ELU", (1.7,)),
    ("silu", {}, "SiLU", ()),
    ("softplus", {}, "Softplus", ()),
    ("softplus", {"beta": 2, "threshold": 3}, "Softplus", (2, 3)),
    ("softplus", {"beta": -0.5, "threshold": 1}, "Softplus", (-0.5, 1)),
    ("mish", {}, "Mish", ()),
    ("relu6", {}, "ReLU6", ()),
    ("hardtanh", {}, "Hardtanh", ()),
    ("hardtanh", {"min_val": -2.5, "max_val": 0.5}, "Hardtanh", (-2.5, 0.5)),
    ("logsigmoid", {}, "LogSigmoid", ()),
    ("softmin", {"dim": 1}, "Softmin", (1,)),
    ("softmin", {"dim": -1}, "Softmin", (-1,)),
    ("threshold", {"threshold": 0.3, "value": -2.0}, "Threshold", (0.3, -2.0)),
]
IDS = [f"{name}-{'-'.join(map(str, kw.values()))}" for name, kw, _, _ in ACTIVATIONS]
SHAPES = [(7,), (3, 5), (2, 3, 4, 5)]
# The points where PyTorch's kernels make a choice: kinks, bounds, NaN and large |x|. Twice, 32
# elements: PyTorch's vectorised loop sees them all (its scalar tail differs for NaN, see activations.py).
SPECIAL = [0.0, 0.3, -1.0, 1.0, 6.0, -2.5, 0.5, 1.5, 10.0, 30.0, -30.0, -800.0, 800.0, np.nan, -np.inf, np.inf] * 2


def _compare(torch, f_mt, f_torch, a, upstream, tol):
    """Values, dtypes and input gradients of f_mt and f_torch on the array ``a``."""
    xt, xm = torch.tensor(a, requires_grad=True), mt.tensor(a, requires_grad=True)
    yt, ym = f_torch(xt), f_mt(xm)
    assert str(ym.dtype).split(".")[-1] == str(yt.dtype).split(".")[-1]
    assert tuple(ym.shape) == tuple(yt.shape)
    np.testing.assert_allclose(ym.detach().numpy(), yt.detach().numpy(), rtol=tol, atol=tol)
    g = upstream(yt.shape)
    yt.backward(torch.tensor(g))
    ym.backward(mt.tensor(g))
    np.testing.assert_allclose(xm.grad.numpy(), xt.grad.numpy(), rtol=tol, atol=tol)


def _compare_functional(torch, call, a, upstream, tol):
    """``_compare`` of ``call(F, x)`` against ``call(torch.nn.functional, x)``."""
    _compare(torch, lambda x: call(F, x), lambda x: call(torch.nn.functional, x), a, upstream, tol)


@pytest.mark.parametrize(("name", "kwargs", "cls", "args"), ACTIVATIONS, ids=IDS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_activation_matches_torch(name, kwargs, cls, args, dtype, rng):
    torch = _torch()
    tol = 1e-5 if dtype == np.float32 else 1e-12
    call = lambda f, x: getattr(f, name)(x, **kwargs)  # noqa: E731
    for shape in SHAPES:
        if kwargs.get("dim") == 1 and len(shape) < 2:
            continue
        a = (rng.standard_normal(shape) * 4).astype(dtype)
        up = lambda s: rng.standard_normal(tuple(s)).astype(dtype)  # noqa: E731
        _compare_functional(torch, call, a, up, tol)
        # The module computes the same thing.
        _compare(torch, getattr(nn, cls)(*args), getattr(torch.nn, cls)(*args), a, up, tol)
    if name != "softmin":  # the edge cases, elementwise
        _compare_functional(torch, call, np.array(SPECIAL, dtype=dtype), np.ones, tol)


@pytest.mark.parametrize(("name", "kwargs", "cls", "args"), ACTIVATIONS, ids=IDS)
def test_activation_gradcheck(name, kwargs, cls, args, rng):
    a = rng.uniform(-4, 4, (3, 4))
    a[np.abs(a - 0.3) < 0.05] += 0.2  # away from every kink (0, 0.3, the bounds), where slopes jump
    a[np.abs(np.round(a * 2) / 2 - a) < 0.05] += 0.1
    x = mt.tensor(a, requires_grad=True)
    assert gradcheck(lambda t: getattr(F, name)(t, **kwargs), (x,))


def test_activation_keeps_float16_and_refuses_what_torch_refuses():
    x = mt.tensor([[-1.0, 2.0], [0.5, 9.0]], dtype=mt.float16)
    for name, kwargs, _, _ in ACTIVATIONS:
        assert getattr(F, name)(x, **kwargs).dtype == mt.float16, name
    ints, bools = mt.tensor([-3, 0, 2, 7]), mt.tensor([True, False])
    for name in ("leaky_relu", "elu", "silu", "softplus", "mish", "logsigmoid"):
        for bad in (ints, bools):
            with pytest.raises(NotImplementedError, match=name.replace("logsigmoid", "log_sigmoid")):
                getattr(F, name)(bad)
    for call in (lambda: F.hardtanh(bools), lambda: F.relu6(bools), lambda: F.softmin(bools, 0)):
        with pytest.raises(MiniTorchError, match="bool"):
            call()
    with pytest.raises(NotImplementedError, match="bool"):
        F.threshold(bools, 0, 1)
    with pytest.raises(MiniTorchError, match="floating-point"):  # as softmax: PyTorch has no integer kernel
        F.softmin(ints, 0)


@pytest.mark.parametrize(
    "call",
    [
        lambda f, x: f.hardtanh(x),
        lambda f, x: f.hardtanh(x, -1.5, 2.5),
        lambda f, x: f.relu6(x),
        lambda f, x: f.threshold(x, 1, 5),
        lambda f, x: f.threshold(x, -1.5, -5.5),
        lambda f, x: f.threshold(x, 1.5, 5.5),
    ],
)
def test_integer_clamps_and_thresholds_as_torch(call):
    torch = _torch()
    a = np.array([-3, -2, -1, 0, 1, 2, 7])  # int64, MiniTorch's one integer dtype
    expected, got = call(torch.nn.functional, torch.tensor(a)), call(F, mt.tensor(a))
    assert got.dtype == mt.int64 and expected.dtype == torch.int64
    np.testing.assert_array_equal(got.numpy(), expected.numpy())


def test_activation_argument_errors_as_torch():
    x = mt.zeros(2)
    for call, arg in [
        (lambda: F.leaky_relu(x, "a"), "negative_slope"),
        (lambda: F.elu(x, alpha=None), "alpha"),
        (lambda: F.softplus(x, beta="2"), "beta"),
        (lambda: F.threshold(x, None, 1), "threshold"),
        (lambda: F.hardtanh(x, "0"), "min_val"),
    ]:
        with pytest.raises(TypeError, match=f"argument '{arg}' must be Number"):
            call()
    with pytest.raises(TypeError, match="must be Tensor"):
        F.silu([1.0, 2.0])
    with pytest.raises(ValueError, match="min_val cannot be greater than max_val"):
        F.hardtanh(x, 2.0, 1.0)
    assert F.hardtanh(x, 1.0, 1.0).tolist() == [1.0, 1.0]  # equal bounds: allowed by F
    for bounds in ((2.0, 1.0), (1.0, 1.0)):  # ... but nn.Hardtanh asserts max > min
        with pytest.raises(AssertionError, match="must be greater than min_val"):
            nn.Hardtanh(*bounds)
    with pytest.raises(IndexError):
        F.softmin(x, 3)
    with pytest.raises(MiniTorchError, match="softmin"):  # PyTorch guesses a dim with a warning
        F.softmin(x)
    assert F.softplus(mt.tensor([1.0]), beta=0).tolist() == [float("inf")]  # as PyTorch's 1/0
    ints = mt.tensor([[1, 2]])
    assert F.softmin(ints, 1, 3, mt.float64).dtype == mt.float64  # PyTorch's argument order, dtype last


def test_activation_inplace_is_accepted_and_gives_a_new_tensor():
    x = mt.tensor([-1.0, 0.5, 8.0])
    before = x.tolist()
    for out in (
        F.leaky_relu(x, inplace=True),
        F.elu(x, inplace=True),
        F.silu(x, inplace=True),
        F.mish(x, inplace=True),
        F.relu6(x, inplace=True),
        F.hardtanh(x, inplace=True),
        F.threshold(x, 0.0, 1.0, inplace=True),
        nn.ELU(inplace=True)(x),
        nn.ReLU6(True)(x),
    ):
        assert out is not x
    assert x.tolist() == before


def test_activation_reprs_and_attributes_match_torch():
    torch = _torch()
    cases = [
        ("LeakyReLU", ()),
        ("LeakyReLU", (0.2, True)),
        ("ELU", ()),
        ("ELU", (2, True)),
        ("SiLU", ()),
        ("SiLU", (True,)),
        ("Softplus", ()),
        ("Softplus", (2, 10)),
        ("Mish", ()),
        ("Mish", (True,)),
        ("ReLU6", ()),
        ("ReLU6", (True,)),
        ("Hardtanh", ()),
        ("Hardtanh", (-2, 3, True)),
        ("LogSigmoid", ()),
        ("Softmin", ()),
        ("Softmin", (1,)),
        ("Threshold", (0.1, 20)),
        ("Threshold", (1, 2, True)),
    ]
    for cls, args in cases:
        ours, theirs = getattr(nn, cls)(*args), getattr(torch.nn, cls)(*args)
        assert repr(ours) == repr(theirs)
        for attr in ("negative_slope", "alpha", "beta", "threshold", "value", "min_val", "max_val", "inplace", "dim"):
            if hasattr(theirs, attr):  # the same value, and the same type (2 stays an int)
                mine, torchs = getattr(ours, attr), getattr(theirs, attr)
                assert mine == torchs and type(mine) is type(torchs)
        assert list(ours.state_dict()) == []
    assert isinstance(nn.ReLU6(), nn.Hardtanh)


# ---------------------------------------------------------------------- pooling
POOLS = [
    ((2, 3, 6, 8), 2, None, 0),
    ((2, 3, 7, 5), 3, 2, 1),
    ((1, 2, 5, 9), (2, 3), (1, 2), (1, 1)),
    ((3, 6, 7), 3, 1, 1),  # unbatched
    ((2, 1, 4, 4), 4, 3, 2),
    ((0, 2, 4, 4), 2, None, 0),  # an empty batch
]


@pytest.mark.parametrize(("shape", "kernel", "stride", "padding"), POOLS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_avg_pool2d_matches_torch(shape, kernel, stride, padding, dtype, rng):
    torch = _torch()
    a = rng.standard_normal(shape).astype(dtype)
    up = lambda s: rng.standard_normal(tuple(s)).astype(dtype)  # noqa: E731
    tol = 1e-5 if dtype == np.float32 else 1e-12
    _compare_functional(torch, lambda f, x: f.avg_pool2d(x, kernel, stride, padding), a, up, tol)
    ours, theirs = nn.AvgPool2d(kernel, stride, padding), torch.nn.AvgPool2d(kernel, stride, padding)
    assert repr(ours) == repr(theirs) and ours.stride == theirs.stride
    _compare(torch, ours, theirs, a, up, tol)


@pytest.mark.parametrize(
    ("shape", "size"),
    [
        ((2, 3, 7, 5), (3, 2)),
        ((2, 3, 10, 10), 4),
        ((1, 2, 5, 6), (5, 6)),
        ((2, 2, 3, 4), (7, 9)),
        ((3, 9, 7), (4, None)),
        ((2, 3, 6, 5), 1),
        ((2, 1, 5, 5), (None, None)),
        ((0, 2, 3, 3), 2),
    ],
)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_adaptive_avg_pool2d_matches_torch(shape, size, dtype, rng):
    torch = _torch()
    a = rng.standard_normal(shape).astype(dtype)
    up = lambda s: rng.standard_normal(tuple(s)).astype(dtype)  # noqa: E731
    tol = 1e-5 if dtype == np.float32 else 1e-12
    _compare_functional(torch, lambda f, x: f.adaptive_avg_pool2d(x, size), a, up, tol)
    ours, theirs = nn.AdaptiveAvgPool2d(size), torch.nn.AdaptiveAvgPool2d(size)
    assert repr(ours) == repr(theirs)
    _compare(torch, ours, theirs, a, up, tol)


def test_pooling_gradcheck(rng):
    x = mt.tensor(rng.standard_normal((2, 2, 5, 6)), requires_grad=True)
    assert gradcheck(lambda t: F.avg_pool2d(t, 3, 2, 1), (x,))
    assert gradcheck(lambda t: F.avg_pool2d(t, (2, 3), 1), (x,))
    assert gradcheck(lambda t: F.adaptive_avg_pool2d(t, (3, 4)), (x,))
    assert gradcheck(lambda t: F.adaptive_avg_pool2d(t, (7, None)), (x,))
    assert gradcheck(lambda t: F.adaptive_avg_pool2d(t[0], 2), (x,))
    assert F.adaptive_avg_pool2d(x, 0).shape == (2, 2, 0, 0)  # as PyTorch (whose backward then refuses)


def test_pooling_float16_sums_in_float32_as_torch(rng):
    torch = _torch()
    a = (rng.standard_normal((2, 3, 9, 7)) * 50).astype(np.float16)
    for call in (lambda f, x: f.avg_pool2d(x, 3, 2, 1), lambda f, x: f.adaptive_avg_pool2d(x, (4, 3))):
        expected, got = call(torch.nn.functional, torch.tensor(a)), call(F, mt.tensor(a))
        assert got.dtype == mt.float16
        np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-3, atol=1e-3)


def test_avg_pool2d_of_integers_rounds_toward_zero_as_torch():
    torch = _torch()
    a = np.array([[[[1, 2, -1, -2], [0, 0, 0, -2], [5, 5, 3, 4], [7, 7, -9, 1]]]])
    for padding in (0, 1):
        expected = torch.nn.functional.avg_pool2d(torch.tensor(a), 2, padding=padding)
        got = F.avg_pool2d(mt.tensor(a), 2, padding=padding)
        assert got.dtype == mt.int64
        np.testing.assert_array_equal(got.numpy(), expected.numpy())


def test_pooling_errors():
    x = mt.zeros(1, 1, 4, 4)
    for call, match in [
        (lambda: F.avg_pool2d(x, 3, padding=2), "at most half"),
        (lambda: F.avg_pool2d(x, 5), "larger than"),
        (lambda: F.avg_pool2d(x, 2, stride=0), "stride must be greater than zero"),
        (lambda: F.avg_pool2d(x, 2, padding=-1), "padding must be non-negative"),
        (lambda: F.avg_pool2d(mt.zeros(4, 4), 2), r"got shape \(4, 4\)"),
        (lambda: F.avg_pool2d(mt.zeros(2, 0, 4, 4), 2), "non-zero"),
        (lambda: F.avg_pool2d(x, 2, ceil_mode=True), "ceil_mode=False"),
        (lambda: F.avg_pool2d(x, 2, count_include_pad=False), "count_include_pad=True"),
        (lambda: F.avg_pool2d(x, 2, divisor_override=3), "divisor_override=None"),
        (lambda: nn.AvgPool2d(2, ceil_mode=True), "ceil_mode=False"),
        (lambda: nn.AvgPool2d(0), "kernel_size"),
        (lambda: F.adaptive_avg_pool2d(x, (2, 3, 4)), "int or a pair"),
        (lambda: F.adaptive_avg_pool2d(x, -1), ">= 0"),
        (lambda: F.adaptive_avg_pool2d(mt.zeros(4, 4), 2), r"got shape \(4, 4\)"),
        (lambda: F.adaptive_avg_pool2d(mt.zeros(1, 1, 0, 4), 2), "non-zero"),
    ]:
        with pytest.raises(MiniTorchError, match=match):
            call()
    for call in (lambda: F.avg_pool2d(x, 2.0), lambda: F.adaptive_avg_pool2d(x, 2.0)):
        with pytest.raises(TypeError, match="must be int"):
            call()
    with pytest.raises(NotImplementedError, match="int64"):
        F.adaptive_avg_pool2d(mt.zeros(1, 1, 4, 4, dtype=mt.int64), 2)
    with pytest.raises(NotImplementedError, match="bool"):
        F.avg_pool2d(mt.zeros(1, 1, 4, 4, dtype=mt.bool), 2)
    assert nn.AvgPool2d(2, ceil_mode=False, count_include_pad=True, divisor_override=None).stride == 2


# ---------------------------------------------------------------------- containers
def _fill(self, lib):
    """The same members for MiniTorch's and PyTorch's holder."""
    self.blocks = lib.nn.ModuleDict({"enc": lib.nn.Linear(2, 3), "act": lib.nn.ReLU()})
    self.blocks["dec"] = lib.nn.Linear(3, 2, bias=False)
    self.scales = lib.nn.ParameterList([lib.nn.Parameter(lib.ones(3)), lib.zeros(2, 2, dtype=lib.float64)])
    self.unflat = lib.nn.Unflatten(1, (1, 2))


class Holder(nn.Module):
    def __init__(self, lib):
        super().__init__()
        _fill(self, lib)


def test_containers_register_like_torch():
    torch = _torch()

    class TorchHolder(torch.nn.Module):
        def __init__(self):
            super().__init__()
            _fill(self, torch)

    ours, theirs = Holder(mt), TorchHolder()
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert repr(ours).replace("Holder", "TorchHolder") == repr(theirs).replace("torch.float", "minitorch.float")
    assert isinstance(ours.scales[1], nn.Parameter) and ours.scales[1].requires_grad
    assert ours.scales[1].dtype == mt.float64
    ours.load_state_dict({k: v.detach().numpy() for k, v in theirs.state_dict().items()})
    loaded, source = ours.blocks["enc"].weight, theirs.blocks["enc"].weight
    np.testing.assert_array_equal(loaded.detach().numpy(), source.detach().numpy())


def test_containers_move_with_to_and_train():
    model = Holder(mt).double()
    assert all(p.dtype == mt.float64 for p in model.parameters())
    assert len(list(model.parameters())) == 5
    first = model.scales[0]
    model.to(mt.float32)
    assert model.scales[0] is first and first.dtype == mt.float32  # the same Parameter, moved
    out = model.unflat(model.blocks["dec"](model.blocks["act"](model.blocks["enc"](mt.ones(4, 2)))))
    (out.sum() * model.scales[0].sum()).backward()
    assert model.blocks["enc"].weight.grad is not None and model.scales[0].grad is not None


def test_module_dict_behaves_like_a_dict():
    torch = _torch()
    d = nn.ModuleDict([("b", nn.Linear(2, 3)), ("a", nn.ReLU())])
    t = torch.nn.ModuleDict([("b", torch.nn.Linear(2, 3)), ("a", torch.nn.ReLU())])
    assert repr(d) == repr(t) and list(d) == list(t) == ["b", "a"]
    d.update({"c": nn.Tanh()})
    assert list(d.keys()) == ["b", "a", "c"] and "c" in d and len(d) == 3
    assert isinstance(d.pop("c"), nn.Tanh) and "c" not in d and not hasattr(d, "c")
    d["a"] = nn.Sigmoid()  # replacing keeps the position
    assert [type(m).__name__ for m in d.values()] == ["Linear", "Sigmoid"]
    assert [k for k, _ in d.items()] == ["b", "a"]
    del d["b"]
    assert list(d.state_dict()) == []
    d.clear()
    assert len(d) == 0 and repr(d) == "ModuleDict()" == repr(torch.nn.ModuleDict())
    with pytest.raises(KeyError, match="zz"):
        d["zz"]
    with pytest.raises(TypeError, match="should be a string"):
        nn.ModuleDict({1: nn.ReLU()})
    with pytest.raises(TypeError, match="not a Module subclass"):
        nn.ModuleDict({"a": 1})
    with pytest.raises(KeyError, match="contain"):
        nn.ModuleDict({"a.b": nn.ReLU()})
    with pytest.raises(NotImplementedError):
        d()


def test_parameter_list_behaves_like_a_list():
    torch = _torch()
    p = nn.ParameterList([nn.Parameter(mt.ones(3, 4)), mt.zeros(2, dtype=mt.float64)])
    t = torch.nn.ParameterList([torch.nn.Parameter(torch.ones(3, 4)), torch.zeros(2, dtype=torch.float64)])
    assert repr(p) == repr(t).replace("torch.float", "minitorch.float")
    one = nn.ParameterList([nn.Parameter(mt.ones(3))])
    theirs = torch.nn.ParameterList([torch.nn.Parameter(torch.ones(3))])
    assert repr(one) == repr(theirs).replace("torch.", "minitorch.")
    assert repr(nn.ParameterList()) == "ParameterList()"
    assert p.append(mt.ones(1)) is p and len(p) == 3 and list(p.state_dict()) == ["0", "1", "2"]
    assert p[-1].shape == (1,) and len(p[0:2]) == 2 and len(list(p.parameters())) == 3
    p[1] = mt.ones(5)
    assert p[1].shape == (5,) and isinstance(p[1], nn.Parameter)
    with pytest.raises(IndexError, match="out of range"):
        p[5]
    with pytest.raises(TypeError, match="Parameter or a Tensor"):
        nn.ParameterList([1.0])
    with pytest.raises(MiniTorchError, match="should not be called"):
        p()


def test_unflatten_as_torch(rng):
    torch = _torch()
    a = rng.standard_normal((3, 10, 2))
    for dim, sizes in [(1, (2, 5)), (-2, [5, 2]), (1, (-1, 5)), (0, (3, 1)), (-1, (2,))]:
        ours, theirs = nn.Unflatten(dim, sizes), torch.nn.Unflatten(dim, sizes)
        assert repr(ours) == repr(theirs)
        _compare(torch, ours, theirs, a, np.ones, 0)
    with pytest.raises(MiniTorchError, match="don't multiply up"):
        nn.Unflatten(1, (3, 3))(mt.zeros(3, 10))
    with pytest.raises(MiniTorchError, match="don't multiply up"):
        nn.Unflatten(1, (-1, 3))(mt.zeros(3, 10))
    with pytest.raises(TypeError, match="must be a tuple of ints"):
        nn.Unflatten(1, 5)
    with pytest.raises(TypeError, match="element of type float at pos 0"):
        nn.Unflatten(1, (2.0, 5))
    with pytest.raises(IndexError):
        nn.Unflatten(3, (2, 5))(mt.zeros(3, 10))
