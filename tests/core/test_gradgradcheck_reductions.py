"""Second derivatives of the reductions (reductions.py), running products and sums
(cumulative.py) and the ordering ops (ordering.py: sort, topk, gather, flip, roll), against
finite differences (gradgradcheck) and PyTorch's (``second_order.py``); third derivatives
against PyTorch's on one case of each smooth op.

Where PyTorch defines ties (amax/amin and max()/min() share the gradient evenly, max(dim)
gives it to the first maximum), ``test_ties_follow_torch`` compares them analytically: a
finite difference across a tie means nothing. Products are checked at zeros too: the
backward takes another branch there, but the function is a polynomial, smooth everywhere.
"""

import numpy as np
import pytest

pytest.importorskip("torch")

from second_order import check, compare_with_torch  # noqa: E402  (PyTorch first)

DIMS = [None, 0, -1, (0, 2)]


def distinct(rng, shape):
    """A permutation of a 0.1 grid: no two values tie within eps."""
    return (rng.permutation(int(np.prod(shape))) * 0.1 - 1.2).reshape(shape)


@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dim", DIMS, ids=str)
@pytest.mark.parametrize("name", ["sum", "mean", "amax", "amin", "logsumexp"])
def test_reductions(rng, name, dim, keepdim):
    if name == "logsumexp" and dim is None:
        dim = (0, 1, 2)  # logsumexp needs its dims
    # exp: monotone (no new ties) and curved (a second derivative of its own)
    check(lambda lib, t: getattr(lib.exp(t), name)(dim=dim, keepdim=keepdim) * 2, distinct(rng, (2, 3, 4)))


def test_reduction_third_derivatives(rng):
    x = distinct(rng, (3, 4))
    check(lambda lib, t: lib.logsumexp(t * t, 1), x, order=3)
    check(lambda lib, t: (t * t).sum(0) ** 2, x, order=3)
    check(lambda lib, t: lib.amax(t**3, 1, keepdim=True), x, order=3)


def test_max_min_whole_and_along_a_dim(rng):
    x = distinct(rng, (3, 4))
    check(lambda lib, t: lib.max(t * t) * lib.min(t), x, order=3)
    check(lambda lib, t: t.max(1).values ** 2, x)
    check(lambda lib, t: lib.min(t * t, dim=0, keepdim=True)[0] * t, x)


@pytest.mark.parametrize("correction", [0, 1])
@pytest.mark.parametrize("dim", DIMS, ids=str)
def test_var_std(rng, dim, correction):
    x = rng.standard_normal((2, 3, 4))
    check(lambda lib, t: lib.var(t, dim, correction=correction), x)
    check(lambda lib, t: lib.std(t, dim, correction=correction, keepdim=True), x)


def test_var_std_third_derivatives(rng):
    x = rng.standard_normal((3, 4))
    check(lambda lib, t: t.var(1) * t.std(), x, order=3)


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cumsum_cumprod(rng, dim):
    x = rng.uniform(0.5, 1.5, (3, 4)) * np.where(rng.random((3, 4)) < 0.5, -1, 1)
    check(lambda lib, t: lib.cumsum(t * t, dim), x, order=3)
    check(lambda lib, t: lib.cumprod(t, dim), x, order=3)


def test_products_at_zeros(rng):
    one_zero = rng.uniform(0.5, 1.5, (3, 4))
    one_zero[1, 2] = 0.0
    two_zeros = one_zero.copy()
    two_zeros[1, 0] = 0.0
    for x in (one_zero, two_zeros):
        check(lambda lib, t: lib.cumprod(t, 1), x, order=3)
        check(lambda lib, t: lib.prod(t, 1), x, order=3)
        check(lambda lib, t: lib.prod(t, 0, keepdim=True), x)
        check(lambda lib, t: lib.prod(t), x, order=3)


def test_prod(rng):
    x = rng.uniform(0.5, 1.5, (2, 3, 4))
    check(lambda lib, t: t.prod(1), x, order=3)
    check(lambda lib, t: t.prod(), x)


# ---------------------------------------------------------------------- ordering
def test_sort_topk_gather(rng):
    x = distinct(rng, (3, 4))
    check(lambda lib, t: lib.sort(t * t, 1).values * t, x, order=3)
    check(lambda lib, t: lib.sort(t, 0, descending=True)[0] ** 2, x)
    check(lambda lib, t: lib.topk(t**2, 2, dim=1).values, x)
    index = np.array([[0, 0], [3, 1], [2, 2]])
    check(lambda lib, t: lib.gather(t * t, 1, lib.tensor(index)), x, order=3)
    check(lambda lib, t: lib.gather(t, 0, lib.tensor([[2, 0, 1, 1], [2, 2, 0, 1]])) ** 2, x)


def test_flip_roll(rng):
    x = rng.standard_normal((2, 3, 4))
    check(lambda lib, t: lib.flip(t * t, (0, 2)), x, order=3)
    check(lambda lib, t: lib.roll(t, (1, -2), (1, 2)) * t, x)
    check(lambda lib, t: lib.roll(t, 5) * t, x)  # over the flattened tensor


# ---------------------------------------------------------------------- ties, analytically
@pytest.mark.parametrize(
    "fn",
    [
        pytest.param(lambda lib, t: lib.amax(t, 1) * t.sum(), id="amax"),
        pytest.param(lambda lib, t: lib.amin(t, 0, keepdim=True) ** 2, id="amin"),
        pytest.param(lambda lib, t: lib.max(t) * t.sum(), id="max()"),
        pytest.param(lambda lib, t: lib.min(t) ** 2, id="min()"),
        pytest.param(lambda lib, t: t.max(1).values * t.sum(), id="max(dim)"),
        pytest.param(lambda lib, t: lib.sort(t, 1).values * t, id="sort"),
    ],
)
def test_ties_follow_torch(fn):
    x = np.array([[1.0, 3.0, 3.0], [-2.0, -2.0, 0.5], [0.5, 0.5, 0.5]])
    compare_with_torch(fn, x, order=3)
