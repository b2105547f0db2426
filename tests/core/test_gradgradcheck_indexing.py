"""Second derivatives of indexing (indexing.py), writing into part of a tensor
(index_put.py: ``t[i] = v``), the selection ops (selection.py: index_select, scatter,
masked_select) and the embedding lookup (embedding.py), against finite differences
(gradgradcheck) and PyTorch's (``second_order.py``); third derivatives against PyTorch's
on one case of each.

Picking elements and scattering them back are each other's backward: the gradient of a
gather is a scatter-add into zeros (repeated indices summed), whose gradient is the gather
again. Repeated indices are in every family.
"""

import numpy as np
import pytest

pytest.importorskip("torch")

from second_order import check, compare_with_torch  # noqa: E402  (PyTorch first)

import minitorch  # noqa: E402
from minitorch.functions.index_put import index_put  # noqa: E402


@pytest.mark.parametrize(
    "index",
    [
        pytest.param(1, id="int"),
        pytest.param((0, 1, 3), id="scalar-element"),
        pytest.param((slice(None), slice(0, 3, 2)), id="slice-step"),
        pytest.param((Ellipsis, None, slice(1, None)), id="ellipsis-none-slice"),
        pytest.param([1, 1, 0], id="int-list-repeats"),
        pytest.param((slice(None), [2, 2, 0]), id="slice-int-list-repeats"),
        pytest.param(([0, 1, 1], [2, 2, 2]), id="two-int-lists-repeats"),
        pytest.param((0, slice(None), [3, 0, 3]), id="int-beside-list"),
        pytest.param(np.array([[1, 1], [0, 1]]), id="2d-int-array"),
        pytest.param(np.array([True, False]), id="bool-mask"),
        pytest.param((slice(None), np.array([True, False, True])), id="bool-mask-dim1"),
    ],
)
def test_getitem(rng, index):
    def fn(lib, t):
        i = tuple(lib.tensor(p) if isinstance(p, (list, np.ndarray)) else p for p in index) if isinstance(
            index, tuple
        ) else (lib.tensor(index) if isinstance(index, (list, np.ndarray)) else index)
        return t[i] ** 2 * 3

    check(fn, rng.standard_normal((2, 3, 4)), order=3)


def test_getitem_with_tensor_indices_and_masks(rng):
    x = rng.standard_normal((4, 3))
    rows, cols = [3, 0, 3, 3], [0, 2, 0, 0]
    check(lambda lib, t: t[lib.tensor(rows)] * t[lib.tensor(rows), lib.tensor(cols)][:, None], x, order=3)
    check(lambda lib, t: t[t > 0] ** 3, x)  # a mask computed from the input itself


# ---------------------------------------------------------------------- t[index] = value
def _put(lib, t, index, value, accumulate=False):
    """``t`` with ``value`` written (added) at ``index``: MiniTorch's IndexPut, torch's index_put."""
    if lib is minitorch:
        return index_put(t, index, value, accumulate)
    return t.index_put(tuple(index) if isinstance(index, tuple) else (index,), value, accumulate=accumulate)


@pytest.mark.parametrize("accumulate", [False, True])
def test_index_put(rng, accumulate):
    x, v = rng.standard_normal((3, 4)), rng.standard_normal(4)
    # accumulate: repeated rows add up; a plain write takes distinct rows (a repeat has no defined winner)
    rows = [2, 0, 2] if accumulate else [2, 0]

    def fn(lib, t, u):
        value = (u * u).expand(len(rows), 4)  # broadcast to the indexed region
        return _put(lib, t * t, lib.tensor(rows), value, accumulate) * t

    check(fn, x, v, order=3)


def test_setitem_in_the_graph(rng):
    x, v = rng.standard_normal((3, 4)), rng.standard_normal(2)

    def fn(lib, t, u):
        y = t * t
        y[1:, 1] = u * u  # recorded as IndexPut (a copy in the graph)
        y[0] = 0.5
        return y * t

    check(fn, x, v, order=3)


# ---------------------------------------------------------------------- selection
def test_gather_index_select_scatter(rng):
    x = rng.standard_normal((3, 4))
    index = [2, 0, 2, 1]
    check(lambda lib, t: lib.index_select(t * t, 0, lib.tensor(index)) * t[1], x, order=3)
    check(lambda lib, t: lib.index_select(t, 1, lib.tensor([3, 3])) ** 2, x)
    where = [[0, 2], [1, 3], [3, 0]]
    check(lambda lib, t, s: lib.scatter(t * t, 1, lib.tensor(where), s * s) * t, x, rng.standard_normal((3, 2)))
    # a src larger than the index: only its first columns are written (PyTorch's own double
    # backward refuses this shape, so it is checked against finite differences only)
    check(lambda lib, t, s: lib.scatter(t, 1, lib.tensor(where), s * s) * t, x, rng.standard_normal((3, 3)),
          torch_check=False)
    check(lambda lib, t: t.scatter(0, lib.tensor([[1, 0, 2, 0]]), 0.5) * t, x)  # a number written


def test_masked_select(rng):
    mask = rng.random((3, 4)) < 0.5
    check(lambda lib, t: lib.masked_select(t * t, lib.tensor(mask)) ** 2, rng.standard_normal((3, 4)), order=3)
    # the input broadcast against the mask: its gradient summed back
    check(lambda lib, t: lib.masked_select(t, lib.tensor(mask)) ** 3, rng.standard_normal((1, 4)))


# ---------------------------------------------------------------------- embedding
@pytest.mark.parametrize("padding_idx", [None, 1])
def test_embedding(rng, padding_idx):
    tokens = [[1, 0, 3], [1, 1, 2]]  # repeated tokens: their gradients add up
    w = rng.standard_normal((4, 3))

    def cube(lib, w):
        return lib.nn.functional.embedding(lib.tensor(tokens), w, padding_idx=padding_idx) ** 3

    def cube_and_sum(lib, w):
        out = lib.nn.functional.embedding(lib.tensor(tokens), w, padding_idx=padding_idx)
        return out**3 + out * w.sum()

    check(cube, w, order=3)
    # The padding row's looked-up values get no gradient (PyTorch's rule, not the derivative
    # of the lookup), so a function that reads them back is checked against PyTorch only.
    if padding_idx is None:
        check(cube_and_sum, w, order=3)
    else:
        compare_with_torch(cube_and_sum, w, order=3)
