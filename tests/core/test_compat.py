"""PyTorch's everyday API that beginner scripts use: devices, defaults, mm/mv/bmm/addmm,
``type``, the ``*_like`` factories and ``out=`` — checked against PyTorch where installed."""

import pickle

import numpy as np
import pytest

import minitorch
from minitorch.errors import MiniTorchError

torch = pytest.importorskip("torch")


def test_device_objects_as_pytorch():
    dev = minitorch.device("cuda" if minitorch.cuda.is_available() else "cpu")
    assert minitorch.ones(2, device=dev).device == dev
    cpu = minitorch.device("cpu")
    assert repr(cpu) == repr(torch.device("cpu")) == "device(type='cpu')"
    assert str(cpu) == str(torch.device("cpu")) and cpu.type == "cpu" and cpu.index is None
    assert repr(minitorch.device("cuda", 0)) == repr(torch.device("cuda", 0))
    assert minitorch.device("cuda:0").index == 0
    assert str(minitorch.zeros(1).device) == str(torch.zeros(1).device)
    assert pickle.loads(pickle.dumps(cpu)) == cpu
    assert nn_param_device(cpu) == "cpu"
    with pytest.raises(MiniTorchError, match="unknown device"):
        minitorch.device("tpu")


def nn_param_device(dev):
    return next(minitorch.nn.Linear(2, 2).to(dev).parameters()).device


def test_backends_and_accelerator_answer_truthfully():
    assert minitorch.backends.mps.is_available() is False
    assert minitorch.backends.cudnn.is_available() is False
    assert minitorch.accelerator.is_available() == minitorch.cuda.is_available()
    if not minitorch.cuda.is_available():
        assert minitorch.accelerator.current_accelerator() is None


def test_default_dtype():
    assert minitorch.get_default_dtype() == minitorch.float32
    minitorch.set_default_dtype(minitorch.float64)
    torch.set_default_dtype(torch.float64)
    try:
        for make in (lambda lib: lib.tensor([1.5]), lambda lib: lib.zeros(2), lambda lib: lib.rand(2),
                     lambda lib: lib.tensor([1, 2]) / 2, lambda lib: lib.arange(0.0, 1.0, 0.5)):
            assert make(minitorch).dtype.name == str(make(torch).dtype).replace("torch.", "")
        assert minitorch.tensor([1.0]).float().dtype == minitorch.float32  # .float() stays float32
    finally:
        minitorch.set_default_dtype(minitorch.float32)
        torch.set_default_dtype(torch.float32)
    with pytest.raises(TypeError, match="floating-point"):
        minitorch.set_default_dtype(minitorch.int64)


def test_default_device():
    assert minitorch.get_default_device() == "cpu"
    minitorch.set_default_device("cpu")
    if not minitorch.cuda.is_available():
        with pytest.raises(MiniTorchError, match="no usable GPU"):
            minitorch.set_default_device("cuda")


@pytest.mark.parametrize(
    "name, shapes, kwargs",
    [
        ("mm", [(2, 3), (3, 4)], {}),
        ("mv", [(2, 3), (3,)], {}),
        ("bmm", [(5, 2, 3), (5, 3, 4)], {}),
        ("addmm", [(2, 4), (2, 3), (3, 4)], {}),
        ("addmm", [(4,), (2, 3), (3, 4)], {"beta": 0.5, "alpha": 2.0}),
    ],
)
def test_matrix_products_match_pytorch(rng, name, shapes, kwargs):
    arrays = [rng.standard_normal(s) for s in shapes]
    mine = [minitorch.tensor(a, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    out_m, out_t = getattr(minitorch, name)(*mine, **kwargs), getattr(torch, name)(*theirs, **kwargs)
    np.testing.assert_allclose(out_m.detach().numpy(), out_t.detach().numpy(), rtol=1e-12)
    out_m.sum().backward()
    out_t.sum().backward()
    for m, t in zip(mine, theirs):
        np.testing.assert_allclose(m.grad.numpy(), t.grad.numpy(), rtol=1e-12)
    method = getattr(mine[0], name)(*mine[1:], **kwargs)
    np.testing.assert_allclose(method.detach().numpy(), out_t.detach().numpy(), rtol=1e-12)


@pytest.mark.parametrize(
    "name, a, b", [("mm", (2, 3, 1), (3, 4)), ("mv", (2, 3), (3, 1)), ("bmm", (2, 2, 3), (3, 3, 1))]
)
def test_matrix_products_refuse_wrong_ranks(name, a, b):
    with pytest.raises(MiniTorchError, match=name):
        getattr(minitorch, name)(minitorch.ones(*a), minitorch.ones(*b))
    with pytest.raises(RuntimeError):
        getattr(torch, name)(torch.ones(*a), torch.ones(*b))


def test_type():
    x, t = minitorch.ones(2), torch.ones(2)
    assert x.type() == t.type().replace("torch.", "minitorch.")
    assert x.type(minitorch.float64).dtype == minitorch.float64
    assert x.type("torch.LongTensor").dtype == minitorch.int64


@pytest.mark.parametrize("name", ["rand_like", "randn_like", "empty_like"])
def test_like_factories(name):
    x = minitorch.ones(2, 3, dtype=minitorch.float64)
    y = getattr(minitorch, name)(x)
    t = getattr(torch, name)(torch.ones(2, 3, dtype=torch.float64))
    assert tuple(y.shape) == tuple(t.shape) and y.dtype.name == "float64"


def test_randint_like():
    y = minitorch.randint_like(minitorch.ones(3, dtype=minitorch.int64), 2, 5)
    assert y.dtype == minitorch.int64 and ((y >= 2) & (y < 5)).all()


@pytest.mark.parametrize("name", ["add", "mul", "matmul"])
def test_out_keyword(name):
    a, b = np.arange(4.0).reshape(2, 2), np.ones((2, 2))
    out_m, out_t = minitorch.zeros(2, 2, dtype=minitorch.float64), torch.zeros(2, 2, dtype=torch.float64)
    got = getattr(minitorch, name)(minitorch.tensor(a), minitorch.tensor(b), out=out_m)
    getattr(torch, name)(torch.tensor(a), torch.tensor(b), out=out_t)
    assert got is out_m
    np.testing.assert_allclose(out_m.numpy(), out_t.numpy())


def test_out_refuses_autograd_as_pytorch():
    w = minitorch.ones(2, requires_grad=True)
    with pytest.raises(MiniTorchError, match="don't support automatic differentiation"):
        minitorch.mul(w, w, out=minitorch.zeros(2))
    with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
        torch.mul(torch.ones(2, requires_grad=True), 2, out=torch.zeros(2))


def test_next_functions_as_pytorch():
    def describe(fn):
        return [(None if f is None else f.name().replace("Backward0", "Backward"), i) for f, i in fn.next_functions]

    def build(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        c = lib.tensor([3.0, 4.0])
        loss = ((x * c).exp() * lib.tensor(2.0)).sum()  # (a Python number would have no entry here)
        return x, loss

    x, loss = build(minitorch)
    tx, tloss = build(torch)
    assert describe(loss.grad_fn) == describe(tloss.grad_fn)
    mul2 = loss.grad_fn.next_functions[0][0]
    assert describe(mul2) == describe(tloss.grad_fn.next_functions[0][0])
    mul1 = mul2.next_functions[0][0].next_functions[0][0]
    assert describe(mul1) == [("AccumulateGrad", 0), (None, 0)]
    assert mul1.next_functions[0][0].variable is x and mul1.next_functions[0][0].next_functions == ()
