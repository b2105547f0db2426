"""Gradients of gradients: create_graph=True, against PyTorch (torch is the oracle).

The mechanism (autograd/graph_mode.py): each op's own backward runs on GraphArrays, so the
backward pass is recorded. These tests hold the engine's side of it: grad and backward with
create_graph, the second and third derivatives of small expressions, grad_outputs that take
part, a learner's Function whose backward uses NumPy, and the errors where an op cannot be
differentiated twice. Per-op coverage is tests/core/test_gradgradcheck_ops.py.
"""

import numpy as np
import pytest
import torch

import minitorch
from minitorch.autograd import DoubleBackwardError, Function

F64 = minitorch.float64


def both(values):
    """The same float64 leaf in MiniTorch and in PyTorch."""
    values = np.asarray(values, dtype=np.float64)
    return minitorch.tensor(values, dtype=F64, requires_grad=True), torch.tensor(values, requires_grad=True)


EXPRESSIONS = {
    "exp_times_x": lambda x, y, lib: (lib.exp(x) * x).sum() + (y * y).sum(),
    "broadcast_mul_add": lambda x, y, lib: ((x.reshape(3, 1) * y.reshape(1, 4) + y) ** 2).sum(),
    "tanh_of_matmul": lambda x, y, lib: lib.tanh(x.reshape(1, 3) @ (x.reshape(3, 1) * y.reshape(1, 4))).sum(),
    "div_and_pow": lambda x, y, lib: (x.reshape(3, 1) / (1.5 + y.reshape(1, 4) ** 2) + x.reshape(3, 1) ** 3).mean(),
    "sqrt_log_chain": lambda x, y, lib: lib.log(lib.sqrt(x * x + 1.0) + (y * y).sum()).sum(),
}


@pytest.mark.parametrize("name", EXPRESSIONS)
def test_second_and_third_derivatives_match_torch(name):
    f = EXPRESSIONS[name]
    x, tx = both([0.3, -1.2, 0.7])
    y, ty = both([1.1, 0.4, -0.5, 2.0])
    gx, gy = minitorch.autograd.grad(f(x, y, minitorch), [x, y], create_graph=True)
    tgx, tgy = torch.autograd.grad(f(tx, ty, torch), [tx, ty], create_graph=True)
    np.testing.assert_allclose(gx.detach().numpy(), tgx.detach().numpy(), rtol=1e-12, atol=1e-12)
    assert gx.requires_grad and gx.grad_fn is not None
    # second: d/dx and d/dy of a weighted sum of the first derivatives
    w = np.array([0.5, -2.0, 1.5])
    s = (gx * minitorch.tensor(w, dtype=F64)).sum() + (gy * gy).sum()
    ts = (tgx * torch.tensor(w)).sum() + (tgy * tgy).sum()
    hx, hy = minitorch.autograd.grad(s, [x, y], create_graph=True)
    thx, thy = torch.autograd.grad(ts, [tx, ty], create_graph=True)
    np.testing.assert_allclose(hx.detach().numpy(), thx.detach().numpy(), rtol=1e-11, atol=1e-12)
    np.testing.assert_allclose(hy.detach().numpy(), thy.detach().numpy(), rtol=1e-11, atol=1e-12)
    # third
    (kx,) = minitorch.autograd.grad(hx.sum() + hy.sum(), [x], allow_unused=True)
    (tkx,) = torch.autograd.grad(thx.sum() + thy.sum(), [tx], allow_unused=True)
    if tkx is None:
        assert kx is None or np.allclose(kx.numpy(), 0)
    else:
        np.testing.assert_allclose(kx.numpy(), tkx.numpy(), rtol=1e-10, atol=1e-11)


def test_without_create_graph_nothing_changes():
    x, _ = both([0.3, -1.2])
    (g,) = minitorch.autograd.grad((x.exp() * x).sum(), [x])
    assert not g.requires_grad and g.grad_fn is None


def test_backward_with_create_graph_keeps_grad_in_the_graph_and_accumulates():
    x, tx = both([0.3, -1.2, 0.7])
    for lib, t in ((minitorch, x), (torch, tx)):
        y = (lib.sin(t) * t).sum()
        y.backward(create_graph=True)
        y.backward(create_graph=True)  # retain_graph defaults to create_graph: a second pass works
    np.testing.assert_allclose(x.grad.detach().numpy(), tx.grad.detach().numpy(), rtol=1e-12)
    assert x.grad.grad_fn is not None
    (h,) = minitorch.autograd.grad(x.grad.sum(), [x])
    (th,) = torch.autograd.grad(tx.grad.sum(), [tx])
    np.testing.assert_allclose(h.numpy(), th.numpy(), rtol=1e-12)


def test_grad_outputs_that_require_grad_take_part_the_double_backward_trick():
    x, tx = both([0.3, -1.2, 0.7])
    v = np.array([1.0, 2.0, -1.0])
    results = []
    for lib, t in ((minitorch, x), (torch, tx)):
        u = lib.zeros(3, dtype=lib.float64, requires_grad=True)
        out = lib.exp(t) * t
        (g,) = lib.autograd.grad(out, [t], u, create_graph=True)  # J^T u
        (jv,) = lib.autograd.grad(g, [u], lib.tensor(v, dtype=lib.float64))  # d(J^T u . v)/du = J v
        results.append(jv.detach().numpy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-12)


def test_no_grad_inside_stays_a_cut():
    x, tx = both([0.3, -1.2])
    results = []
    for lib, t in ((minitorch, x), (torch, tx)):
        with lib.no_grad():
            c = t * 3  # a constant to everything after
        (g,) = lib.autograd.grad((c * t * t).sum(), [t], create_graph=True)
        (h,) = lib.autograd.grad(g.sum(), [t])
        results.append(h.numpy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-12)


class Cube(Function):
    """A learner's op, its backward in NumPy calls: x^3, d/dx = 3 x^2."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 3 * np.square(x) + np.zeros_like(x)


def test_a_learners_function_written_with_numpy_is_twice_differentiable():
    x, tx = both([0.3, -1.2, 2.0])
    (g,) = minitorch.autograd.grad(Cube.apply(x).sum(), [x], create_graph=True)
    (h,) = minitorch.autograd.grad(g.sum(), [x])
    np.testing.assert_allclose(h.numpy(), 6 * x.detach().numpy())
    assert minitorch.autograd.gradgradcheck(Cube.apply, (x,))


class KeepsDerivedValue(Function):
    """Saves 3 x^2 (neither input nor output): fine once, unknown twice."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(3 * x * x)
        return x**3

    @staticmethod
    def backward(ctx, grad):
        (slope,) = ctx.saved_tensors
        return grad * slope


class KeepsArrayOnCtx(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.slope = 3 * x * x
        return x**3

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.slope


class UsesUnknownFunction(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * np.sinc(x) * 0 + grad * 2


class AsksForAFloat(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 2 * float(x.sum())


@pytest.mark.parametrize(
    "op, message",
    [
        (KeepsDerivedValue, "derivative for KeepsDerivedValueBackward is not implemented.*neither an input nor"),
        (KeepsArrayOnCtx, "derivative for KeepsArrayOnCtxBackward is not implemented.*ctx.slope"),
        (UsesUnknownFunction, "UsesUnknownFunction.backward calls numpy.sinc"),
        (AsksForAFloat, r"AsksForAFloat.backward asks float\(...\)"),
    ],
)
def test_an_op_that_cannot_be_differentiated_twice_says_so(op, message):
    x, _ = both([0.3, -1.2])
    y = op.apply(x).sum()
    (g,) = minitorch.autograd.grad(y, [x], retain_graph=True)  # first order works
    assert g.shape == x.shape
    with pytest.raises(DoubleBackwardError, match=message):
        minitorch.autograd.grad(y, [x], create_graph=True)
    assert issubclass(DoubleBackwardError, RuntimeError)


def test_gradgradcheck_catches_a_wrong_second_derivative():
    class SlopeOfTanh(Function):  # 1 - tanh(x)^2, with its derivative off by a sign
        @staticmethod
        def forward(ctx, x):
            t = np.tanh(x)
            ctx.save_for_backward(x)
            return 1 - t * t

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            t = np.tanh(x)
            return grad * 2 * t * (1 - t * t)  # should be -2 t (1 - t^2)

    class Tanh(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return np.tanh(x)

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            slope = SlopeOfTanh.apply(x)  # x: an array, or a GraphArray under create_graph
            if isinstance(slope, minitorch.Tensor):  # first order: the array is all we need
                slope = slope.data
            return grad * slope

    x, _ = both([0.3, -1.2, 0.5])
    assert minitorch.autograd.gradcheck(Tanh.apply, (x,))
    with pytest.raises(minitorch.autograd.GradcheckError, match="mismatch"):
        minitorch.autograd.gradgradcheck(Tanh.apply, (x,))


def test_gradgradcheck_passes_a_right_one_and_checks_the_grad_outputs_too():
    x, _ = both([[0.3, -1.2], [0.5, 2.0]])
    w, _ = both([[1.0, -0.5], [0.25, 2.0]])
    assert minitorch.autograd.gradgradcheck(lambda a, b: minitorch.tanh(a @ b) * a, (x, w))
