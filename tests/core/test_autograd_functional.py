"""minitorch.autograd.functional against torch.autograd.functional: values, structure, options."""

import numpy as np
import pytest
import torch

import minitorch
from minitorch.errors import MiniTorchError

F = minitorch.autograd.functional
TF = torch.autograd.functional


def pair(values):
    values = np.asarray(values, dtype=np.float64)
    return minitorch.tensor(values, dtype=minitorch.float64), torch.tensor(values)


def numpy_of(value):
    if isinstance(value, (tuple, list)):
        return [numpy_of(v) for v in value]
    return value.detach().numpy()


def assert_same(mine, theirs):
    if isinstance(theirs, (tuple, list)):
        assert isinstance(mine, (tuple, list)) and len(mine) == len(theirs)
        for m, t in zip(mine, theirs):
            assert_same(m, t)
        return
    assert tuple(mine.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(numpy_of(mine), numpy_of(theirs), rtol=1e-11, atol=1e-12)


def scalar(x, y, lib):
    return (lib.exp(x) * x).sum() + (x.reshape(3, 1) * y.reshape(1, 2) ** 2).sum()


def vector(x, y, lib):
    return lib.tanh(x.reshape(3, 1) * y.reshape(1, 2)), x * x


X, Y, V3, V2 = [0.3, -1.2, 0.7], [0.5, 2.0], [1.0, -2.0, 0.5], [0.25, -1.0]


@pytest.mark.parametrize("create_graph", [False, True])
def test_vjp_jvp_vhp_hvp_match_torch(create_graph):
    (x, tx), (y, ty) = pair(X), pair(Y)
    (v3, tv3), (v2, tv2) = pair(V3), pair(V2)
    (u6, tu6) = pair(np.arange(6.0).reshape(3, 2))
    f = lambda a, b: scalar(a, b, minitorch)  # noqa: E731
    tf = lambda a, b: scalar(a, b, torch)  # noqa: E731
    g = lambda a, b: vector(a, b, minitorch)  # noqa: E731
    tg = lambda a, b: vector(a, b, torch)  # noqa: E731
    assert_same(F.vjp(g, (x, y), (u6, v3), create_graph=create_graph),
                TF.vjp(tg, (tx, ty), (tu6, tv3), create_graph=create_graph))
    assert_same(F.jvp(g, (x, y), (v3, v2), create_graph=create_graph),
                TF.jvp(tg, (tx, ty), (tv3, tv2), create_graph=create_graph))
    assert_same(F.vhp(f, (x, y), (v3, v2), create_graph=create_graph),
                TF.vhp(tf, (tx, ty), (tv3, tv2), create_graph=create_graph))
    assert_same(F.hvp(f, (x, y), (v3, v2), create_graph=create_graph),
                TF.hvp(tf, (tx, ty), (tv3, tv2), create_graph=create_graph))


def test_jacobian_and_hessian_match_torch_in_shape_and_value():
    (x, tx), (y, ty) = pair(X), pair(Y)
    assert_same(F.jacobian(lambda a, b: vector(a, b, minitorch), (x, y)),
                TF.jacobian(lambda a, b: vector(a, b, torch), (tx, ty)))
    assert_same(F.jacobian(lambda a: a.exp() * a, x), TF.jacobian(lambda a: a.exp() * a, tx))
    assert_same(F.hessian(lambda a, b: scalar(a, b, minitorch), (x, y)),
                TF.hessian(lambda a, b: scalar(a, b, torch), (tx, ty)))
    assert_same(F.hessian(lambda a: (a.exp() * a).sum(), x), TF.hessian(lambda a: (a.exp() * a).sum(), tx))


def test_results_are_detached_unless_create_graph():
    x, _ = pair(X)
    _, (g,) = F.vjp(lambda a: (a * a).sum(), (x,))
    assert not g.requires_grad
    x.requires_grad_(True)
    _, (g,) = F.vjp(lambda a: (a * a).sum(), (x,), create_graph=True)
    assert g.requires_grad
    (h,) = minitorch.autograd.grad(g.sum(), [x])
    np.testing.assert_allclose(h.numpy(), [2.0, 2.0, 2.0])


def test_an_unused_input_gives_zeros_or_a_strict_error():
    (x, tx), (y, ty) = pair(X), pair(Y)
    mine = F.jacobian(lambda a, b: a * 2, (x, y))
    theirs = TF.jacobian(lambda a, b: a * 2, (tx, ty))
    assert_same(mine, theirs)
    with pytest.raises(MiniTorchError, match="independent of input 1"):
        F.vjp(lambda a, b: (a * 2).sum(), (x, y), strict=True)


def test_what_is_refused_is_refused_with_the_reason():
    x, _ = pair(X)
    with pytest.raises(MiniTorchError, match="vectorize=True needs vmap"):
        F.jacobian(lambda a: a * 2, x, vectorize=True)
    with pytest.raises(MiniTorchError, match="single Tensor with one element"):
        F.hvp(lambda a: a * 2, x, x)
    with pytest.raises(TypeError, match="must be either a Tensor or a tuple of Tensors"):
        F.vjp(lambda a: a, [1.0, 2.0])
    with pytest.raises(MiniTorchError, match="shape"):
        F.jvp(lambda a: a * 2, x, minitorch.ones(2, dtype=minitorch.float64))
