"""Sums as matrix-vector products with a vector of ones: NumPy's sums, to rounding, faster.

NumPy reduces a short last axis (layer norm's 128 features, softmax's 64 keys) one row at a
time, with a loop set up per row; summing across rows (a bias's gradient, ``g.sum(axis=0)``)
walks the array column by column. One BLAS matrix-vector product with ``ones`` does either in
a single vectorised pass. The sum is then added in another order than NumPy's pairwise
summation, so the last bits may differ; in float32 both accumulate in float32.

Used by the kernels of ``Linear`` (the bias gradient), ``LayerNorm`` and attention's softmax.
Anything BLAS cannot take (float16, integers, a view that is not C-contiguous, CuPy arrays)
is summed by the array's own ``sum``.
"""

from __future__ import annotations

import math

import numpy as np

from minitorch.hints import Array


def blas_summable(a: Array, k: int) -> bool:
    """Whether ``a`` sums as a product with ones: a C-contiguous float32/64 NumPy array of k dims or more."""
    return type(a) is np.ndarray and a.dtype in (np.float32, np.float64) and a.flags.c_contiguous and a.ndim >= k > 0


def sum_rows(a: Array, k: int = 1) -> Array:
    """``a.sum(axis=<the last k dims>, keepdims=True)``, as (rows, m) @ ones(m)."""
    if not blas_summable(a, k) or a.size == 0:
        return a.sum(axis=tuple(range(a.ndim - k, a.ndim)), keepdims=True)
    m = math.prod(a.shape[a.ndim - k :])
    return (a.reshape(-1, m) @ np.ones(m, a.dtype)).reshape(*a.shape[: a.ndim - k], *(1,) * k)


def sum_leading(a: Array, k: int = 1, ones: Array | None = None, out: Array | None = None) -> Array:
    """``a.sum`` over all but the last k dims (a shared weight's or bias's gradient), as ones(rows) @ a.

    ``ones`` (that vector, of a's dtype) and ``out`` (the flat result) may be given by a caller
    that sums arrays of one shape again and again, as a compiled step does: the same product,
    without making them each time.
    """
    if not blas_summable(a, k) or a.size == 0:
        return a.sum(axis=tuple(range(a.ndim - k)), out=None if out is None else out.reshape(a.shape[a.ndim - k :]))
    tail = a.shape[a.ndim - k :]
    m = math.prod(tail)
    rows = a.size // m
    if ones is None:
        ones = np.ones(rows, a.dtype)
    return np.matmul(ones, a.reshape(rows, m), out=out).reshape(tail)
