"""``kernels/cpu/blas_sums``: ``sum_rows`` / ``sum_leading``, sums as products with ones, NumPy's to rounding.

They replace NumPy's short-row reductions in the fast kernels of layer norm, ``Linear``'s
bias gradient and attention's softmax. Anything BLAS cannot take (float16, integers, a
non-contiguous view) falls back to NumPy's own sum; a caller that passes its own ``ones`` and ``out`` (the
compiled step) gets the very bits of the plain call.
"""

import numpy as np
import pytest

from minitorch.kernels.cpu.blas_sums import sum_leading, sum_rows

SHAPES = [(1, 5), (7, 10), (64, 128), (3, 4, 5), (2, 3, 4, 6)]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.int64])
@pytest.mark.parametrize("k", [1, 2])
def test_the_sums_are_numpys_to_rounding(shape, dtype, k):
    if k > len(shape):
        pytest.skip("k dims or more")
    a = (np.random.default_rng(0).standard_normal(shape) * 3).astype(dtype)
    lead, tail = tuple(range(a.ndim - k)), tuple(range(a.ndim - k, a.ndim))
    tolerance = {"rtol": 1e-2, "atol": 1e-2} if dtype == np.float16 else {"rtol": 1e-5, "atol": 1e-5}
    rows = sum_rows(a, k)
    leading = sum_leading(a, k)
    assert rows.shape == a.sum(axis=tail, keepdims=True).shape and rows.dtype == a.dtype
    assert leading.shape == a.sum(axis=lead).shape and leading.dtype == a.dtype
    np.testing.assert_allclose(rows, a.sum(axis=tail, keepdims=True), **tolerance)
    np.testing.assert_allclose(leading, a.sum(axis=lead), **tolerance)


def test_a_view_that_is_not_contiguous_is_summed_by_numpy():
    a = np.random.default_rng(1).standard_normal((6, 8)).astype(np.float32).T  # (8, 6), Fortran order
    assert np.array_equal(sum_leading(a), a.sum(axis=0)) and np.array_equal(sum_rows(a), a.sum(axis=1, keepdims=True))


@pytest.mark.parametrize("shape", [(7, 10), (64, 128), (3, 4, 5)])
def test_given_ones_and_out_give_the_same_bits_into_out(shape):
    a = np.random.default_rng(2).standard_normal(shape).astype(np.float32)
    rows = a.size // shape[-1]
    out = np.empty(shape[-1], np.float32)
    got = sum_leading(a, ones=np.ones(rows, np.float32), out=out)
    assert got.tobytes() == sum_leading(a).tobytes()
    assert np.shares_memory(got, out)
