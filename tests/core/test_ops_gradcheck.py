"""Every differentiable op's backward against finite differences, in float64.

Each case builds float64 inputs that require grad and hands ``minitorch.autograd.gradcheck``
a function of them. Inputs are drawn away from the points where an op has a kink
(``abs``/``relu`` at 0, ``clamp`` at its bounds, ``maximum`` at ties): there the finite
difference straddles two slopes and means nothing. Those points are checked against
PyTorch's conventions in ``test_vs_torch.py``.
"""

import numpy as np
import pytest

import minitorch
from minitorch.autograd import gradcheck

BROADCAST_PAIRS = [
    ((3, 4), (3, 4)),
    ((3, 1), (1, 5)),
    ((2, 3, 4), (4,)),
    ((), (2, 3)),
    ((2, 1, 3), (4, 1)),
]


def leaf(values):
    """A float64 leaf tensor that requires grad."""
    return minitorch.tensor(np.asarray(values, dtype=np.float64), requires_grad=True)


def normal(rng, shape):
    return leaf(rng.standard_normal(shape))


def positive(rng, shape, low=0.5, high=2.0):
    return leaf(rng.uniform(low, high, shape))


def away_from_zero(rng, shape, margin=0.2):
    """Values in [-2, -margin] U [margin, 2]: no kink of abs/relu is within reach of eps."""
    magnitude = rng.uniform(margin, 2.0, shape)
    sign = np.where(rng.random(shape) < 0.5, -1.0, 1.0)
    return leaf(sign * magnitude)


def check(fn, *inputs, **tolerances):
    assert gradcheck(fn, inputs, **tolerances)


# ---------------------------------------------------------------------- binary arithmetic
@pytest.mark.parametrize("shapes", BROADCAST_PAIRS, ids=str)
@pytest.mark.parametrize(
    "op",
    [
        pytest.param(lambda a, b: a + b, id="add"),
        pytest.param(lambda a, b: a - b, id="sub"),
        pytest.param(lambda a, b: a * b, id="mul"),
        pytest.param(minitorch.add, id="minitorch.add"),
        pytest.param(minitorch.sub, id="minitorch.sub"),
        pytest.param(minitorch.mul, id="minitorch.mul"),
    ],
)
def test_add_sub_mul_broadcast(rng, op, shapes):
    check(op, normal(rng, shapes[0]), normal(rng, shapes[1]))


@pytest.mark.parametrize("shapes", BROADCAST_PAIRS, ids=str)
def test_div_broadcast(rng, shapes):
    check(lambda a, b: a / b, normal(rng, shapes[0]), away_from_zero(rng, shapes[1], margin=0.5))


@pytest.mark.parametrize("shapes", BROADCAST_PAIRS, ids=str)
def test_pow_tensor_tensor_positive_base(rng, shapes):
    check(lambda a, b: a**b, positive(rng, shapes[0]), normal(rng, shapes[1]))


@pytest.mark.parametrize("shapes", BROADCAST_PAIRS, ids=str)
@pytest.mark.parametrize("op", [minitorch.maximum, minitorch.minimum], ids=["maximum", "minimum"])
def test_maximum_minimum_broadcast(rng, op, shapes):
    # Values on a grid 0.1 apart, a shifted by 0.05: never within eps of a tie.
    a = leaf(rng.integers(-10, 10, shapes[0]) * 0.1 + 0.05)
    b = leaf(rng.integers(-10, 10, shapes[1]) * 0.1)
    check(op, a, b)


@pytest.mark.parametrize(
    "fn",
    [
        pytest.param(lambda x: x + 2.5, id="x+2.5"),
        pytest.param(lambda x: 2.5 + x, id="2.5+x"),
        pytest.param(lambda x: x - 1, id="x-1"),
        pytest.param(lambda x: 3 - x, id="3-x"),
        pytest.param(lambda x: x * 3, id="x*3"),
        pytest.param(lambda x: -2.0 * x, id="-2.0*x"),
        pytest.param(lambda x: x / 4, id="x/4"),
        pytest.param(lambda x: 2 / x, id="2/x"),
        pytest.param(lambda x: x**3, id="x**3"),
        pytest.param(lambda x: x**2.5, id="x**2.5"),
        pytest.param(lambda x: x**-1.5, id="x**-1.5"),
        pytest.param(lambda x: x**0.5, id="x**0.5"),
        pytest.param(lambda x: 2**x, id="2**x"),
        pytest.param(lambda x: 0.5**x, id="0.5**x"),
        pytest.param(lambda x: minitorch.pow(x, 2), id="pow(x,2)"),
        pytest.param(lambda x: x.pow(3), id="x.pow(3)"),
    ],
)
def test_tensor_with_python_scalar(rng, fn):
    check(fn, positive(rng, (2, 3)))


def test_pow_integer_exponent_negative_base(rng):
    check(lambda x: x**3, normal(rng, (3, 4)))
    check(lambda x: x**2, normal(rng, (3, 4)))


# ---------------------------------------------------------------------- unary
@pytest.mark.parametrize(
    "fn",
    [
        pytest.param(lambda x: -x, id="neg-operator"),
        pytest.param(minitorch.neg, id="neg"),
        pytest.param(lambda x: x.neg(), id="x.neg"),
        pytest.param(minitorch.exp, id="exp"),
        pytest.param(minitorch.sin, id="sin"),
        pytest.param(minitorch.cos, id="cos"),
        pytest.param(minitorch.tanh, id="tanh"),
        pytest.param(minitorch.sigmoid, id="sigmoid"),
        pytest.param(lambda x: x.sigmoid() * 3, id="x.sigmoid"),
        pytest.param(lambda x: x.tanh().exp(), id="x.tanh.exp"),
    ],
)
def test_smooth_unary(rng, fn):
    check(fn, normal(rng, (3, 4)))


@pytest.mark.parametrize(
    "fn",
    [
        pytest.param(minitorch.log, id="log"),
        pytest.param(minitorch.sqrt, id="sqrt"),
        pytest.param(minitorch.log1p, id="log1p"),
        pytest.param(lambda x: x.log(), id="x.log"),
        pytest.param(lambda x: x.sqrt(), id="x.sqrt"),
    ],
)
def test_unary_on_positive_inputs(rng, fn):
    check(fn, positive(rng, (3, 4)))


@pytest.mark.parametrize(
    "fn",
    [
        pytest.param(minitorch.abs, id="abs"),
        pytest.param(lambda x: abs(x), id="abs-builtin"),
        pytest.param(lambda x: x.abs(), id="x.abs"),
        pytest.param(minitorch.relu, id="relu"),
        pytest.param(lambda x: x.relu(), id="x.relu"),
    ],
)
def test_kinked_unary_away_from_kink(rng, fn):
    check(fn, away_from_zero(rng, (3, 4)))


@pytest.mark.parametrize(
    "kwargs",
    [{"min": -0.5}, {"max": 0.5}, {"min": -0.5, "max": 0.5}],
    ids=["min", "max", "min+max"],
)
def test_clamp(kwargs):
    # A grid that never lands within eps of the bounds -0.5 and 0.5.
    x = leaf(np.linspace(-1.13, 1.17, 12).reshape(3, 4))
    check(lambda t: t.clamp(**kwargs), x)
    check(lambda t: minitorch.clamp(t, **kwargs), x)


# ---------------------------------------------------------------------- where
@pytest.mark.parametrize(
    "shapes",
    [((3, 4), (3, 4), (3, 4)), ((3, 1), (1, 4), (3, 4)), ((2, 3, 4), (4,), ()), ((3, 4), (), (3, 1))],
    ids=str,
)
def test_where_broadcast(rng, shapes):
    cond_shape, a_shape, b_shape = shapes
    condition = minitorch.tensor(rng.random(cond_shape) < 0.5)
    check(lambda a, b: minitorch.where(condition, a, b), normal(rng, a_shape), normal(rng, b_shape))


def test_where_with_python_scalars(rng):
    condition = minitorch.tensor(rng.random((3, 4)) < 0.5)
    x = normal(rng, (3, 4))
    check(lambda t: minitorch.where(condition, t, 0.0), x)
    check(lambda t: minitorch.where(condition, 1.5, t), x)
    check(lambda t: minitorch.where(t > 0, t, 0.1 * t), x)


# ---------------------------------------------------------------------- reductions
DIMS = [None, 0, 1, -1, (0, 2), (-1, 0), (0, 1, 2)]


@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dim", DIMS, ids=str)
@pytest.mark.parametrize("name", ["sum", "mean", "amax", "amin", "logsumexp"])
def test_reductions(rng, name, dim, keepdim):
    # A random permutation of a grid: distinct values, so amax/amin have a unique winner.
    x = leaf((rng.permutation(24) * 0.1 - 1.2).reshape(2, 3, 4))
    check(lambda t: getattr(t, name)(dim=dim, keepdim=keepdim), x)


@pytest.mark.parametrize("unbiased", [True, False])
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dim", DIMS, ids=str)
def test_var(rng, dim, keepdim, unbiased):
    check(lambda t: t.var(dim=dim, unbiased=unbiased, keepdim=keepdim), normal(rng, (2, 3, 4)))


def test_reductions_as_functions(rng):
    x = leaf((rng.permutation(12) * 0.1).reshape(3, 4))
    check(lambda t: minitorch.sum(t, 1), x)
    check(lambda t: minitorch.mean(t, dim=(0, 1)), x)
    check(lambda t: minitorch.amax(t, -1, keepdim=True), x)
    check(lambda t: minitorch.amin(t, 0), x)
    check(lambda t: minitorch.var(t, 0, unbiased=False), x)
    check(lambda t: minitorch.logsumexp(t, 1), x)
    check(lambda t: minitorch.std(t, 1), x)


@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_max_min_along_dim(rng, dim, keepdim):
    x = leaf((rng.permutation(24) * 0.1).reshape(2, 3, 4))
    check(lambda t: t.max(dim, keepdim=keepdim).values, x)
    check(lambda t: t.min(dim=dim, keepdim=keepdim)[0], x)
    check(lambda t: minitorch.max(t, dim, keepdim).values, x)


def test_max_min_without_dim(rng):
    x = leaf((rng.permutation(12) * 0.1).reshape(3, 4))
    check(lambda t: t.max(), x)
    check(lambda t: t.min(), x)
    check(lambda t: minitorch.max(t) - minitorch.min(t), x)


def test_reduction_of_0d_tensor(rng):
    x = normal(rng, ())
    check(lambda t: t.sum(), x)
    check(lambda t: t.mean(), x)
    check(lambda t: t.amax(), x)
    check(lambda t: t.logsumexp(dim=None), x)


# ---------------------------------------------------------------------- shape ops
@pytest.mark.parametrize(
    "fn",
    [
        pytest.param(lambda t: t.reshape(6, 4), id="reshape"),
        pytest.param(lambda t: t.reshape((4, -1)), id="reshape-infer"),
        pytest.param(lambda t: minitorch.reshape(t, (24,)), id="minitorch.reshape"),
        pytest.param(lambda t: t.view(3, 8), id="view"),
        pytest.param(lambda t: t.view(-1), id="view-flat"),
        pytest.param(lambda t: t.transpose(0, 2), id="transpose"),
        pytest.param(lambda t: t.transpose(-1, -2) * 2, id="transpose-neg"),
        pytest.param(lambda t: t.permute(2, 0, 1), id="permute"),
        pytest.param(lambda t: t.permute((1, 2, 0)), id="permute-tuple"),
        pytest.param(lambda t: t.unsqueeze(1), id="unsqueeze"),
        pytest.param(lambda t: t.unsqueeze(-1), id="unsqueeze-neg"),
        pytest.param(lambda t: t.flatten(), id="flatten"),
        pytest.param(lambda t: t.flatten(1), id="flatten-1"),
        pytest.param(lambda t: t.flatten(0, 1), id="flatten-0-1"),
        pytest.param(lambda t: t.clone(), id="clone"),
        pytest.param(lambda t: t.transpose(0, 1).contiguous().view(12, 2), id="contiguous-view"),
        pytest.param(lambda t: t.permute(2, 1, 0).reshape(4, 6), id="permute-reshape"),
    ],
)
def test_shape_ops(rng, fn):
    check(fn, normal(rng, (2, 3, 4)))


def test_transpose_T_2d(rng):
    check(lambda t: t.T, normal(rng, (3, 4)))
    check(lambda t: t.T @ t, normal(rng, (3, 4)))
    check(lambda t: t.t(), normal(rng, (3, 4)))


def test_squeeze(rng):
    x = normal(rng, (2, 1, 3, 1))
    check(lambda t: t.squeeze(), x)
    check(lambda t: t.squeeze(1), x)
    check(lambda t: t.squeeze(-1), x)
    check(lambda t: t.squeeze(0), x)  # size 2: a no-op that still passes gradients
    check(lambda t: minitorch.squeeze(t, 3), x)


def test_expand(rng):
    check(lambda t: t.expand(2, 3, 4), normal(rng, (3, 1)))
    check(lambda t: t.expand(-1, 4), normal(rng, (3, 1)))
    check(lambda t: t.expand(5, 3), normal(rng, (3,)))
    check(lambda t: t.expand(2, 3), normal(rng, ()))
    check(lambda t, u: t.expand_as(u) * u, normal(rng, (1, 4)), normal(rng, (3, 4)))


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cat(rng, dim):
    shapes = {0: [(1, 3), (2, 3), (3, 3)], 1: [(3, 1), (3, 2), (3, 3)], -1: [(3, 1), (3, 2), (3, 3)]}[dim]
    check(lambda a, b, c: minitorch.cat([a, b, c], dim=dim), *(normal(rng, s) for s in shapes))


@pytest.mark.parametrize("dim", [0, 1, 2, -1])
def test_stack(rng, dim):
    check(lambda a, b: minitorch.stack((a, b), dim), normal(rng, (2, 3)), normal(rng, (2, 3)))


def test_cat_and_stack_same_tensor_twice(rng):
    x = normal(rng, (2, 3))
    check(lambda t: minitorch.cat([t, t * 2, t]), x)
    check(lambda t: minitorch.stack([t, t.exp()], 1), x)


def test_cast_round_trip():
    # float64 -> float32 -> float64: float32 rounding (~1e-7) needs a larger eps.
    x = leaf(np.linspace(-1, 1, 6).reshape(2, 3))
    check(lambda t: (t.to(minitorch.float32) * 2).double(), x, eps=1e-3, atol=1e-3, rtol=1e-3)
    check(lambda t: (t.float() * 3).to(minitorch.float64), x, eps=1e-3, atol=1e-3, rtol=1e-3)
    check(lambda t: t.to(minitorch.float64) * 2, x)  # same dtype: the identity


# ---------------------------------------------------------------------- indexing
@pytest.mark.parametrize(
    "index",
    [
        pytest.param(1, id="int"),
        pytest.param(-1, id="neg-int"),
        pytest.param((1, 2), id="int-int"),
        pytest.param((0, 1, 3), id="scalar-element"),
        pytest.param(slice(None, None, 2), id="step-slice"),
        pytest.param((slice(None), slice(0, 3, 2)), id="slice-step-dim1"),
        pytest.param((Ellipsis, slice(None, None, 3)), id="ellipsis-step"),
        pytest.param((None, 1), id="none-int"),
        pytest.param((Ellipsis, None), id="ellipsis-none"),
        pytest.param((slice(1, None), None, Ellipsis, -1), id="mixed-basic"),
        pytest.param(np.array([0, 1, 0, 0]), id="int-array-repeats"),
        pytest.param((slice(None), np.array([2, 2, 0])), id="slice-int-array-repeats"),
        pytest.param((np.array([0, 1, 1]), np.array([2, 2, 2])), id="two-int-arrays-repeats"),
        pytest.param(np.array([[1, 1], [0, 1]]), id="2d-int-array"),
        pytest.param([1, 1, 0], id="int-list"),
        pytest.param(np.array([True, False]), id="bool-mask-dim0"),
        pytest.param((slice(None), np.array([True, False, True])), id="bool-mask-dim1"),
    ],
)
def test_indexing(rng, index):
    check(lambda t: t[index] * 2, normal(rng, (2, 3, 4)))


def test_indexing_with_tensors(rng):
    x = normal(rng, (4, 3))
    rows = minitorch.tensor([3, 0, 3, 3])
    check(lambda t: t[rows], x)
    mask = minitorch.tensor(rng.random((4, 3)) < 0.5)
    check(lambda t: t[mask], x)
    check(lambda t: t[t > 0], x)
    check(lambda t: t[rows, minitorch.tensor([0, 2, 0, 0])], x)


# ---------------------------------------------------------------------- matmul
@pytest.mark.parametrize(
    "shapes",
    [
        ((4,), (4,)),
        ((3, 4), (4,)),
        ((4,), (4, 5)),
        ((3, 4), (4, 5)),
        ((2, 3, 4), (4, 5)),
        ((3, 4), (2, 4, 5)),
        ((2, 3, 4), (2, 4, 5)),
        ((2, 1, 3, 4), (5, 4, 2)),
        ((4,), (2, 4, 3)),
        ((2, 3, 4), (4,)),
    ],
    ids=str,
)
def test_matmul(rng, shapes):
    a, b = normal(rng, shapes[0]), normal(rng, shapes[1])
    check(lambda x, y: x @ y, a, b)


def test_matmul_as_method_and_function(rng):
    a, b = normal(rng, (3, 4)), normal(rng, (4, 2))
    check(lambda x, y: x.matmul(y), a, b)
    check(minitorch.matmul, a, b)
    check(lambda x: x @ x.T, a)


# ---------------------------------------------------------------------- compositions
def test_a_small_network(rng):
    x, w1, b1, w2 = normal(rng, (5, 3)), normal(rng, (3, 4)), normal(rng, (4,)), normal(rng, (4, 2))

    def net(x, w1, b1, w2):
        hidden = (x @ w1 + b1).tanh()
        return (hidden @ w2).logsumexp(dim=1).mean()

    check(net, x, w1, b1, w2)


def test_input_used_several_times(rng):
    x = normal(rng, (3, 3))
    check(lambda t: (t * t.exp() + t.sin() * t.T).sum(1) / t.sum(), x)
