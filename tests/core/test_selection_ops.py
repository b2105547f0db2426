"""Selection, ordering and shape ops (functions/selection.py, ordering.py): gradcheck in
float64, then PyTorch as the oracle for values, dtypes, indices, gradients and errors.

sort, argsort, topk, cumsum, cumprod, prod, norm, gather, index_select, scatter,
masked_select, nonzero, unique, count_nonzero, flip, roll, narrow, select, unbind, movedim,
repeat, tile, repeat_interleave, diag, outer, dot, broadcast_to/_tensors, hstack, vstack,
concat, and the Tensor-only new_* / size attributes. Random inputs are drawn without ties,
so sort and topk have one right answer.
"""

import numpy as np
import pytest

import minitorch
from minitorch.autograd import gradcheck

torch = pytest.importorskip("torch")
from torch_oracle import compare, leaf  # noqa: E402  (PyTorch first)

DTYPES = ["float32", "float64"]
SHAPES = [(5,), (3, 4), (2, 3, 4)]


def randn(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def raises_like_torch(fn):
    """fn(lib) raises in PyTorch; MiniTorch raises the same kind of error."""
    with pytest.raises(Exception) as theirs:
        fn(torch)
    with pytest.raises(theirs.type):
        fn(minitorch)


def with_zeros(shape, seed=0):
    """Random values with zeros sprinkled in (no zero, one zero, several per row)."""
    a = randn(*shape, seed=seed)
    a[np.random.default_rng(seed + 1).random(shape) < 0.3] = 0.0
    return a


# ---------------------------------------------------------------------- gradcheck (float64)
GRADCHECKS = {
    "sort": lambda x: x.sort(1).values,
    "sort_descending_dim0": lambda x: minitorch.sort(x, 0, descending=True).values,
    "topk": lambda x: x.topk(2).values,
    "topk_smallest_dim0": lambda x: minitorch.topk(x, 2, dim=0, largest=False).values,
    "cumsum": lambda x: x.cumsum(1),
    "cumprod": lambda x: x.cumprod(0),
    "prod_all": lambda x: x.prod(),
    "prod_dim": lambda x: x.prod(-1, keepdim=True),
    "norm": lambda x: x.norm(),
    "norm_dim": lambda x: minitorch.norm(x, dim=1),
    "norm_p1": lambda x: x.norm(1, dim=0),
    "gather_repeats": lambda x: x.gather(1, minitorch.tensor([[0, 0], [1, 3], [2, 2]])),
    "index_select_repeats": lambda x: x.index_select(1, minitorch.tensor([0, 0, 3])),
    "masked_select": lambda x: x.masked_select(x > 0),
    "flip": lambda x: x.flip(0, 1),
    "roll_flat": lambda x: x.roll(2),
    "roll_dims": lambda x: x.roll((1, -1), (0, 1)),
    "narrow": lambda x: x.narrow(1, 1, 2),
    "select": lambda x: x.select(0, -1),
    "unbind": lambda x: minitorch.stack(x.unbind(1)),
    "movedim": lambda x: x.movedim(0, 1),
    "repeat": lambda x: x.repeat(2, 1, 3),
    "tile": lambda x: x.tile(2),
    "repeat_interleave": lambda x: x.repeat_interleave(2, 1),
    "repeat_interleave_tensor": lambda x: x.repeat_interleave(minitorch.tensor([1, 0, 2]), 0),
    "diag_of_matrix": lambda x: x.diag(1),
    "diag_of_vector": lambda x: x[0].diag(-1),
    "outer": lambda x: minitorch.outer(x[0], x[1]),
    "dot": lambda x: minitorch.dot(x[0], x[1]),
    "hstack": lambda x: minitorch.hstack([x, x * 2]),
    "vstack": lambda x: minitorch.vstack([x[0], x]),
    "broadcast_to": lambda x: x[0].broadcast_to((2, 4)),
}


@pytest.mark.parametrize("name", sorted(GRADCHECKS))
def test_gradcheck(name):
    assert gradcheck(GRADCHECKS[name], (leaf(randn(3, 4)),))


def test_gradcheck_scatter_reaches_self_and_src():
    x, src = leaf(randn(3, 4)), leaf(randn(3, 2, seed=1))
    index = minitorch.tensor([[0, 3], [1, 2], [2, 0]])
    assert gradcheck(lambda x, s: x.scatter(1, index, s), (x, src))


@pytest.mark.parametrize("op", ["cumprod", "prod_dim", "prod_all"])
def test_gradcheck_products_with_zeros(op):
    # rows with no zero, one zero and two zeros: the division by the input must not show
    x = leaf([[1.5, 0.0, 2.0, 0.0], [0.7, 3.0, 0.0, 5.0], [1.0, 2.0, 3.0, 4.0], [0.0, 1.1, 1.2, 1.3]])
    fn = {"cumprod": lambda x: x.cumprod(1), "prod_dim": lambda x: x.prod(1), "prod_all": lambda x: x[:, 1:].prod()}
    assert gradcheck(fn[op], (x,))


# ---------------------------------------------------------------------- sort, argsort, topk
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("descending", [False, True])
def test_sort_and_argsort_match_torch(dtype, shape, descending):
    for dim in (0, -1):
        compare(lambda lib, x, dim=dim: lib.sort(x, dim, descending=descending), [randn(*shape)], dtype)
        compare(lambda lib, x, dim=dim: x.argsort(dim=dim, descending=descending), [randn(*shape)], dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("largest", [True, False])
def test_topk_matches_torch(dtype, shape, largest):
    for k in (0, 1, shape[-1]):
        compare(lambda lib, x, k=k: lib.topk(x, k, largest=largest), [randn(*shape)], dtype)
    compare(lambda lib, x: x.topk(2, dim=0, largest=largest), [randn(*shape)], dtype)


def test_sort_edge_cases_match_torch():
    compare(lambda lib, x: x.sort(), [np.array(2.5)])  # 0-d: itself, index 0
    compare(lambda lib, x: x.sort(0), [np.zeros((0, 3))])
    compare(lambda lib, x: x.topk(0, dim=1), [np.zeros((2, 0))])
    compare(lambda lib, x: x.sort(descending=True), [np.array([1.0, np.nan, 0.0, -np.inf])])
    compare(lambda lib, x: x.sort(), [np.array([1.0, np.nan, 0.0, -np.inf])])
    compare(lambda lib, x: x.sort(), [np.array([True, False, True])])
    compare(lambda lib, x: x.sort(descending=True), [np.array([3, 1, 2, 1])])


def test_sort_returns_named_values_and_indices():
    out = minitorch.tensor([3.0, 1.0, 2.0]).sort()
    values, indices = out
    assert out.values is values and out.indices is indices
    assert indices.tolist() == [1, 2, 0] and indices.dtype == minitorch.int64


# ---------------------------------------------------------------------- cumsum, cumprod, prod
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_cumsum_cumprod_match_torch(dtype, shape):
    for dim in range(-len(shape), len(shape)):
        compare(lambda lib, x, dim=dim: x.cumsum(dim), [randn(*shape)], dtype)
        compare(lambda lib, x, dim=dim: lib.cumprod(x, dim), [randn(*shape)], dtype)
        compare(lambda lib, x, dim=dim: x.cumprod(dim), [with_zeros(shape)], dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_prod_matches_torch_with_and_without_zeros(dtype, shape):
    for data in (randn(*shape), with_zeros(shape)):
        compare(lambda lib, x: x.prod(), [data], dtype)
        compare(lambda lib, x: lib.prod(x, 0), [data], dtype)
        compare(lambda lib, x: x.prod(-1, keepdim=True), [data], dtype)


def test_running_ops_and_prod_dtypes_match_torch():
    ints, bools = np.array([[1, 2, 3], [4, 5, 6]]), np.array([True, False, True])
    compare(lambda lib, x: x.cumsum(1), [ints])
    compare(lambda lib, x: x.cumsum(0), [bools])
    compare(lambda lib, x: x.cumprod(0), [bools])
    compare(lambda lib, x: x.prod(), [ints])
    compare(lambda lib, x: x.prod(0), [bools])
    compare(lambda lib, x: x.cumsum(0, dtype=lib.float32), [ints])
    compare(lambda lib, x: x.prod(dtype=lib.float64), [randn(2, 3)], "float32")
    compare(lambda lib, x: x.cumsum(0), [np.array(3.0)])
    compare(lambda lib, x: x.cumsum(0), [np.zeros((0, 2))])
    compare(lambda lib, x: x.prod(), [np.zeros((0, 2))])


# ---------------------------------------------------------------------- norm
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("p", ["fro", 2, 1, float("inf")])
def test_norm_matches_torch(dtype, p):
    compare(lambda lib, x: x.norm(p), [randn(3, 4)], dtype)
    compare(lambda lib, x: lib.norm(x, p, dim=1), [randn(3, 4)], dtype)
    compare(lambda lib, x: x.norm(p, dim=(0, 2), keepdim=True), [randn(2, 3, 4)], dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("p", [3, 0.5, -1.5, float("-inf")])
def test_norm_other_p_match_torch(dtype, p):
    compare(lambda lib, x: x.norm(p), [randn(3, 4)], dtype)
    compare(lambda lib, x: lib.norm(x, p, dim=-1, keepdim=True), [randn(3, 4)], dtype)


def test_norm_gradient_at_zero_is_zero_as_torch():
    compare(lambda lib, x: x.norm(), [np.zeros((2, 3))])
    compare(lambda lib, x: x.norm(dim=1), [np.array([[0.0, 0.0], [3.0, 4.0]])])
    compare(lambda lib, x: x.norm(), [np.zeros(0)])
    for p in (1, 3, 0.5, -1):
        compare(lambda lib, x, p=p: x.norm(p, dim=1), [np.array([[0.0, 0.0, 0.0], [0.0, -2.0, 0.5]])])
    compare(lambda lib, x: x.norm(float("inf")), [np.array([-3.0, 0.0, 3.0])])  # ties share
    compare(lambda lib, x: x.detach().norm(0), [np.array([1.0, 0.0, 3.0])])
    compare(lambda lib, x: x.norm(dtype=lib.float64), [randn(3)], "float32")
    raises_like_torch(lambda lib: lib.zeros(0).norm(float("inf")))
    raises_like_torch(lambda lib: lib.ones(2).norm(p=lib.ones(1)))


# ---------------------------------------------------------------------- gather, index_select, scatter
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_gather_matches_torch_repeats_accumulate(dtype, shape):
    rng = np.random.default_rng(1)
    for dim in (0, -1):
        n = shape[dim]
        index_shape = list(shape)
        index_shape[dim] = 2 * n  # more picks than elements: repeats for sure
        index_shape[0 if dim == -1 and len(shape) > 1 else -1] -= 1 if len(shape) > 1 else 0  # smaller elsewhere
        index = rng.integers(0, n, size=index_shape)
        compare(lambda lib, x, i, dim=dim: x.gather(dim, i), [randn(*shape), index], dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_index_select_matches_torch_repeats_accumulate(dtype, shape):
    for dim in (0, -1):
        index = np.array([shape[dim] - 1, 0, 0, shape[dim] - 1, 1])
        compare(lambda lib, x, i, dim=dim: lib.index_select(x, dim, i), [randn(*shape), index], dtype)
    compare(lambda lib, x, i: x.index_select(0, i), [randn(*shape), np.array(1)], dtype)
    compare(lambda lib, x, i: x.index_select(0, i), [randn(*shape), np.zeros(0, dtype=np.int64)], dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_scatter_matches_torch(dtype):
    rng = np.random.default_rng(2)
    index = np.stack([rng.permutation(5)[:3] for _ in range(3)])  # distinct within each row
    compare(lambda lib, x, s, i: x.scatter(1, i, s), [randn(3, 5), randn(3, 3, seed=1), index], dtype)
    # src larger than index: PyTorch's own backward refuses that shape, so values only
    compare(lambda lib, x, s, i: x.scatter(1, i, s.detach()), [randn(3, 5), randn(4, 3, seed=1), index], dtype)
    compare(lambda lib, x, s, i: lib.scatter(x, 0, i.T, s), [randn(5, 3), randn(3, 3, seed=1), index], dtype)
    compare(lambda lib, x, i: x.scatter(1, i, 7.5), [randn(3, 5), index], dtype)
    compare(lambda lib, x, i: x.scatter(-1, i, value=-1.0), [randn(3, 5), index], dtype)


def test_gather_index_select_scatter_0d_and_1d_mix_as_torch():
    compare(lambda lib, x: x.gather(0, lib.tensor(0)), [np.array(2.5)])
    compare(lambda lib, x: x.gather(0, lib.tensor([0, 0])), [np.array(2.5)])
    compare(lambda lib, x: x.gather(0, lib.tensor(2)), [randn(3)])
    compare(lambda lib, x: x.index_select(0, lib.tensor([0])), [np.array(2.5)])
    compare(lambda lib, x: x.index_select(0, lib.tensor(1)), [randn(3)])
    compare(lambda lib, x, s: x.scatter(0, lib.tensor([0]), s), [np.array(2.5), np.array([5.0])])
    compare(lambda lib, x, s: x.scatter(0, lib.tensor(1), s), [randn(2), np.array(5.0)])
    raises_like_torch(lambda lib: lib.tensor(2.0).index_select(0, lib.tensor([0, 0])))
    raises_like_torch(lambda lib: lib.ones(2, 3).gather(0, lib.tensor(0)))


INDEX_OPS = {
    "gather": lambda lib, x, index: x.gather(1, index),
    "index_select": lambda lib, x, index: x.index_select(1, index[0]),
    "scatter": lambda lib, x, index: x.scatter(1, index, lib.zeros(1, 3, dtype=lib.float64)),
}


@pytest.mark.parametrize("op", sorted(INDEX_OPS))
def test_index_changed_in_place_before_backward_is_an_error_as_torch(op):
    for lib in (torch, minitorch):
        x = lib.ones(2, 3, dtype=lib.float64, requires_grad=True)
        index = lib.tensor([[0, 1, 2]])
        out = INDEX_OPS[op](lib, x, index)
        index[0, 0] = 1
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            out.sum().backward()


def test_gather_scatter_index_select_errors_match_torch():
    x = lambda lib: lib.arange(6.0).reshape(2, 3)  # noqa: E731
    long = lambda lib, v: lib.tensor(v)  # noqa: E731
    raises_like_torch(lambda lib: x(lib).gather(1, long(lib, [[5]])))  # out of range
    raises_like_torch(lambda lib: x(lib).gather(1, long(lib, [[-1]])))  # negative: no wrap-around
    raises_like_torch(lambda lib: x(lib).gather(1, lib.tensor([[1.0]])))  # float index
    raises_like_torch(lambda lib: x(lib).gather(1, long(lib, [1])))  # wrong rank
    raises_like_torch(lambda lib: x(lib).gather(1, lib.zeros(3, 1, dtype=lib.int64)))  # index too large
    raises_like_torch(lambda lib: x(lib).gather(2, lib.zeros(2, 1, dtype=lib.int64)))  # bad dim
    raises_like_torch(lambda lib: x(lib).index_select(1, long(lib, [3])))
    raises_like_torch(lambda lib: x(lib).index_select(1, long(lib, [-1])))
    raises_like_torch(lambda lib: x(lib).index_select(1, long(lib, [[1]])))
    raises_like_torch(lambda lib: x(lib).index_select(1, lib.tensor([1.0])))
    raises_like_torch(lambda lib: x(lib).index_select(-3, long(lib, [0])))
    raises_like_torch(lambda lib: x(lib).scatter(1, long(lib, [[3]]), lib.ones(1, 1)))
    raises_like_torch(lambda lib: x(lib).scatter(1, long(lib, [[2]]), lib.ones(1, 1, dtype=lib.float64)))
    raises_like_torch(lambda lib: x(lib).scatter(1, long(lib, [[2, 1]]), lib.ones(1, 1)))  # src too small


# ---------------------------------------------------------------------- masks, nonzero, unique, count_nonzero
@pytest.mark.parametrize("dtype", DTYPES)
def test_masked_select_matches_torch_with_broadcasting(dtype):
    mask = randn(3, 4, seed=3) > 0
    compare(lambda lib, x, m: x.masked_select(m), [randn(3, 4), mask], dtype)
    compare(lambda lib, x, m: lib.masked_select(x, m), [randn(4), mask], dtype)  # x broadcast
    compare(lambda lib, x, m: x.masked_select(m), [randn(3, 4), mask[0]], dtype)  # mask broadcast
    compare(lambda lib, x, m: x.masked_select(m), [randn(3, 4), np.zeros((3, 4), bool)], dtype)
    raises_like_torch(lambda lib: lib.ones(2).masked_select(lib.ones(2)))


def test_nonzero_count_nonzero_unique_match_torch():
    data = np.array([[0.0, 1.5, 0.0], [2.0, 0.0, 1.5]])
    compare(lambda lib, x: x.nonzero(), [data])
    compare(lambda lib, x: lib.nonzero(x, as_tuple=True), [data])
    compare(lambda lib, x: x.nonzero(), [np.array(5)])
    compare(lambda lib, x: x.nonzero(as_tuple=True), [np.array(5)])
    compare(lambda lib, x: x.nonzero(), [np.zeros((0, 2))])
    compare(lambda lib, x: lib.count_nonzero(x), [data])
    compare(lambda lib, x: x.count_nonzero(1), [data])
    compare(lambda lib, x: lib.count_nonzero(x, dim=(0, 1)), [data])
    ints = np.array([[3, 1, 3], [2, 1, 7]])
    compare(lambda lib, x: lib.unique(x), [ints])
    compare(lambda lib, x: x.unique(return_inverse=True, return_counts=True), [ints])
    compare(lambda lib, x: lib.unique(x.detach(), return_counts=True), [data])
    compare(lambda lib, x: x.unique(return_inverse=True), [np.array([True, False, True])])
    rows = np.array([[1.0, 2.0], [0.0, 1.0], [1.0, 2.0]])
    compare(lambda lib, x: x.detach().unique(dim=0, return_inverse=True, return_counts=True), [rows])
    compare(lambda lib, x: lib.unique(x.detach(), return_inverse=True, dim=-1), [rows.T])


# ---------------------------------------------------------------------- flip, roll, narrow, select, unbind, movedim
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_rearranging_ops_match_torch(dtype, shape):
    x = randn(*shape)
    compare(lambda lib, x: x.flip(0), [x], dtype)
    compare(lambda lib, x: lib.flip(x, dims=(-1,)), [x], dtype)
    compare(lambda lib, x: lib.flip(x, [-1, 0]) if x.ndim > 1 else x.flip([0]), [x], dtype)
    compare(lambda lib, x: x.roll(3), [x], dtype)
    compare(lambda lib, x: lib.roll(x, -1, 0), [x], dtype)
    compare(lambda lib, x: x.roll((2, -3), (-1, 0)), [x], dtype)
    compare(lambda lib, x: x.narrow(-1, 1, 2), [x], dtype)
    compare(lambda lib, x: lib.narrow(x, 0, -1, 1), [x], dtype)
    compare(lambda lib, x: x.select(-1, 2), [x], dtype)
    compare(lambda lib, x: lib.select(x, 0, -1), [x], dtype)
    compare(lambda lib, x: x.unbind(-1), [x], dtype)
    compare(lambda lib, x: lib.unbind(x), [x], dtype)
    compare(lambda lib, x: x.movedim(0, -1), [x], dtype)
    compare(lambda lib, x: lib.moveaxis(x, -1, 0), [x], dtype)
    if len(shape) == 3:
        compare(lambda lib, x: lib.movedim(x, (0, 1), (2, 0)), [x], dtype)


def test_rearranging_edge_cases_and_errors_match_torch():
    compare(lambda lib, x: x.flip(0), [np.array(1.5)])
    compare(lambda lib, x: x.roll(1), [np.zeros((0, 3))])
    compare(lambda lib, x: x.narrow(1, 3, 0), [randn(2, 3)])
    compare(lambda lib, x: x.unbind(1), [np.zeros((2, 0))])
    x = lambda lib: lib.arange(6.0).reshape(2, 3)  # noqa: E731
    raises_like_torch(lambda lib: x(lib).flip(0, 0))
    raises_like_torch(lambda lib: x(lib).flip(2))
    raises_like_torch(lambda lib: x(lib).roll((1, 2), (0,)))
    raises_like_torch(lambda lib: x(lib).narrow(1, 2, 2))
    raises_like_torch(lambda lib: x(lib).narrow(2, 0, 1))
    raises_like_torch(lambda lib: x(lib).select(1, 3))
    raises_like_torch(lambda lib: x(lib).select(1, -4))
    raises_like_torch(lambda lib: lib.tensor(1.0).unbind())
    raises_like_torch(lambda lib: lib.zeros(2, 3, 4).movedim((0, 0), (2, 1)))
    raises_like_torch(lambda lib: lib.zeros(2, 3, 4).movedim((0, 1), (2,)))
    raises_like_torch(lambda lib: lib.tensor(1.0).roll(1, 0))


def test_flip_and_narrow_memory_as_torch():
    x = minitorch.arange(6.0).reshape(2, 3)
    flipped, narrowed = x.flip(1), x.narrow(1, 0, 2)
    x[0, 0] = 100.0
    assert flipped[0, 2].item() == 0.0  # flip copies
    assert narrowed[0, 0].item() == 100.0  # narrow is a view
    assert narrowed._version == x._version


# ---------------------------------------------------------------------- repeat, tile, repeat_interleave
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_repeating_ops_match_torch(dtype, shape):
    x = randn(*shape)
    ones = (1,) * (len(shape) - 1)
    compare(lambda lib, x: x.repeat(2, *ones, 3), [x], dtype)
    compare(lambda lib, x: x.repeat(2, *ones, 1, 2), [x], dtype)  # one more leading dim
    compare(lambda lib, x: x.repeat(*ones, 0), [x], dtype)
    compare(lambda lib, x: lib.tile(x, (2,)), [x], dtype)
    compare(lambda lib, x: x.tile(2, *ones, 2), [x], dtype)
    compare(lambda lib, x: x.tile(dims=(3,)), [x], dtype)
    compare(lambda lib, x: x.repeat_interleave(3), [x], dtype)
    compare(lambda lib, x: lib.repeat_interleave(x, 2, dim=-1), [x], dtype)
    compare(lambda lib, x, r: x.repeat_interleave(r, dim=0), [x, np.arange(shape[0])], dtype)


def test_repeating_errors_match_torch():
    x = lambda lib: lib.arange(6.0).reshape(2, 3)  # noqa: E731
    raises_like_torch(lambda lib: x(lib).repeat(2))
    raises_like_torch(lambda lib: x(lib).repeat(2, -1))
    raises_like_torch(lambda lib: x(lib).repeat(2.0, 1))
    raises_like_torch(lambda lib: x(lib).repeat_interleave(-1, 0))
    raises_like_torch(lambda lib: x(lib).repeat_interleave(2, 2))
    raises_like_torch(lambda lib: x(lib).repeat_interleave(lib.tensor([1, 2, 3]), 0))
    raises_like_torch(lambda lib: lib.tensor(1.0).repeat_interleave(2, 0))


# ---------------------------------------------------------------------- diag, outer, dot
@pytest.mark.parametrize("dtype", DTYPES)
def test_diag_outer_dot_match_torch(dtype):
    for k in (-2, 0, 1):
        compare(lambda lib, x, k=k: x.diag(k), [randn(4)], dtype)
        compare(lambda lib, x, k=k: lib.diag(x, k), [randn(3, 5)], dtype)
        compare(lambda lib, x, k=k: lib.diag(x, k), [randn(5, 3)], dtype)
    compare(lambda lib, a, b: lib.outer(a, b), [randn(3), randn(4, seed=1)], dtype)
    compare(lambda lib, a, b: a.outer(b), [randn(3), np.arange(4)], dtype)  # int promotes
    compare(lambda lib, a, b: lib.dot(a, b), [randn(5), randn(5, seed=1)], dtype)
    compare(lambda lib, a, b: a.dot(b), [np.zeros(0), np.zeros(0)], dtype)


def test_diag_outer_dot_ints_and_errors_match_torch():
    compare(lambda lib, a, b: lib.dot(a, b), [np.arange(3), np.arange(3)])
    compare(lambda lib, x: x.diag(), [np.arange(4)])
    raises_like_torch(lambda lib: lib.diag(lib.ones(2, 2, 2)))
    raises_like_torch(lambda lib: lib.diag(lib.tensor(1.0)))
    raises_like_torch(lambda lib: lib.dot(lib.ones(2), lib.ones(2, dtype=lib.float64)))
    raises_like_torch(lambda lib: lib.dot(lib.ones(2), lib.ones(3)))
    raises_like_torch(lambda lib: lib.dot(lib.ones(2, 2), lib.ones(2, 2)))
    raises_like_torch(lambda lib: lib.outer(lib.ones(2, 1), lib.ones(3)))
    raises_like_torch(lambda lib: lib.dot(lib.ones(2, dtype=lib.bool), lib.ones(2, dtype=lib.bool)))


# ---------------------------------------------------------------------- broadcasting and joining
@pytest.mark.parametrize("dtype", DTYPES)
def test_broadcast_and_stack_ops_match_torch(dtype):
    a, b, c = randn(3, 1), randn(4, seed=1), randn(2, 1, 1, seed=2)
    compare(lambda lib, a: lib.broadcast_to(a, (2, 3, 5)), [a], dtype)
    compare(lambda lib, a, b, c: lib.broadcast_tensors(a, b, c), [a, b, c], dtype)
    compare(lambda lib, a, b: lib.hstack([a, b]), [randn(3), randn(2, seed=1)], dtype)
    compare(lambda lib, a, b: lib.hstack((a, b)), [randn(2, 3), randn(2, 1, seed=1)], dtype)
    compare(lambda lib, a, b: lib.hstack([a, b]), [np.array(1.0), np.array(2.0)], dtype)
    compare(lambda lib, a, b: lib.vstack([a, b]), [randn(3), randn(2, 3, seed=1)], dtype)
    compare(lambda lib, a, b: lib.concat([a, b], dim=1), [randn(2, 3), randn(2, 1, seed=1)], dtype)
    compare(lambda lib, a, b: lib.concatenate((a, b), -1), [randn(2, 3), randn(2, 1, seed=1)], dtype)
    raises_like_torch(lambda lib: lib.broadcast_tensors(lib.ones(2), lib.ones(3)))
    raises_like_torch(lambda lib: lib.ones(3).broadcast_to((2, 4)))


# ---------------------------------------------------------------------- errors of the ordering ops
def test_ordering_errors_match_torch():
    x = lambda lib: lib.arange(6.0).reshape(2, 3)  # noqa: E731
    raises_like_torch(lambda lib: x(lib).topk(4))
    raises_like_torch(lambda lib: x(lib).topk(-1))
    raises_like_torch(lambda lib: x(lib).topk(1, dim=2))
    raises_like_torch(lambda lib: x(lib).sort(dim=-3))
    raises_like_torch(lambda lib: x(lib).argsort(dim=2))
    raises_like_torch(lambda lib: x(lib).cumsum(2))
    raises_like_torch(lambda lib: x(lib).cumsum())
    raises_like_torch(lambda lib: x(lib).prod(2))
    raises_like_torch(lambda lib: x(lib).prod((0, 1)))
    raises_like_torch(lambda lib: lib.tensor([1, 2]).norm())
    raises_like_torch(lambda lib: x(lib).prod(keepdim=True))
    raises_like_torch(lambda lib: lib.tensor([True, False]).topk(1))
    raises_like_torch(lambda lib: lib.tensor(1.0).topk(2))


def test_ordering_0d_and_empty_as_torch():
    compare(lambda lib, x: x.topk(0), [np.array(2.5)])  # PyTorch gives the element itself
    compare(lambda lib, x: x.topk(1, dim=-1), [np.array(2.5)])
    compare(lambda lib, x: x.argsort(), [np.array(2.5)])
    compare(lambda lib, x: x.cumprod(0), [np.zeros((0, 3))])
    compare(lambda lib, x: x.prod(0), [np.array(2.5)])
    compare(lambda lib, x: x.norm(), [np.array(-2.5)])


# ---------------------------------------------------------------------- Tensor-only: new_*, sizes
def test_new_factories_keep_dtype_and_device_as_torch():
    for lib in (minitorch, torch):
        x = lib.ones(2, dtype=lib.float64)
        longs = lib.ones(2, dtype=lib.int64)
        assert x.new_zeros(2, 3).dtype == lib.float64 and x.new_zeros((2, 3)).shape == (2, 3)
        assert x.new_ones(4).tolist() == [1.0] * 4 and x.new_ones(4).dtype == lib.float64
        assert x.new_empty(3, dtype=lib.float32).dtype == lib.float32
        assert longs.new_full((2,), 1.5).tolist() == [1, 1] and longs.new_full((2,), 7).dtype == lib.int64
        assert longs.new_tensor([1.5, 2.0]).tolist() == [1, 2]
        assert x.new_tensor([1, 2]).dtype == lib.float64
        made = x.new_zeros(2, requires_grad=True)
        assert made.requires_grad and made.is_leaf
        assert str(x.new_zeros(1).device) == "cpu"


def test_size_attributes_match_torch():
    for dtype in ("float32", "float64", "int64", "bool", "float16"):
        m = minitorch.zeros(2, 3, dtype=getattr(minitorch, dtype))
        t = torch.zeros(2, 3, dtype=getattr(torch, dtype))
        assert (m.nelement(), m.element_size(), m.itemsize, m.nbytes) == (
            t.nelement(),
            t.element_size(),
            t.itemsize,
            t.nbytes,
        )
    assert minitorch.ones(2, 3).mT.shape == (3, 2)


@pytest.mark.parametrize(
    "shape,offset,dim1,dim2",
    [((3, 4), 0, 0, 1), ((3, 4), 1, 0, 1), ((3, 4), -2, 0, 1), ((2, 3, 4), 0, 1, 2), ((2, 3, 4), 1, 2, 0),
     ((2, 3, 4), -1, -1, 0), ((3, 3), 5, 0, 1)],
)
@pytest.mark.parametrize("dtype", DTYPES)
def test_diagonal_as_torch(shape, offset, dim1, dim2, dtype):
    compare(lambda lib, x: x.diagonal(offset, dim1, dim2), [randn(*shape)], dtype)
    assert gradcheck(lambda x: minitorch.diagonal(x, offset, dim1, dim2), (leaf(randn(*shape)),))


def test_trace_as_torch():
    compare(lambda lib, x: lib.trace(x), [randn(3, 4)])
    assert minitorch.tensor([[1, 2], [3, 4]]).trace().tolist() == 5  # int64, as torch
    raises_like_torch(lambda lib: lib.ones(2, 2, 2).trace())
    raises_like_torch(lambda lib: lib.ones(2, 2).diagonal(0, 0, 0))
