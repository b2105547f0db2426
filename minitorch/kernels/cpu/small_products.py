"""``matmul_narrow``: a product whose right operand has few columns, in row blocks that OpenBLAS
multiplies without packing.

A recurrent step multiplies a tall weight matrix by the step's batch, (4H, K) @ (K, N) with N
around 32. OpenBLAS's x86-64 AVX-512 kernels (those of NumPy's wheels on Skylake-X and later
Intel cores, and on AMD Zen 4) multiply a product of at most ``SMALL_PRODUCT`` multiply-adds
(rows * inner * columns) straight from its operands; a larger one is first copied into packed
buffers, which for so few columns costs more than it saves. So the product is cut into blocks of
rows under that size (docs/benchmarks.md has the measured rates on both sides of the limit).
On another BLAS, another core, with wide operands or off NumPy it is one product.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from minitorch.hints import Array

# The most multiply-adds (rows * inner * columns) a product may have for OpenBLAS's AVX-512
# small-product path (a measured limit: docs/benchmarks.md).
SMALL_PRODUCT = 100**3
# OpenBLAS's names for the cores it runs those kernels on (threadpoolctl's "architecture").
SMALL_PRODUCT_CORES = {"skylakex", "cooperlake", "sapphirerapids"}


@functools.cache
def small_product_kernels() -> bool:
    """Whether NumPy's BLAS is an OpenBLAS running its AVX-512 small-product kernels.

    Asked once, through threadpoolctl (scikit-learn's dependency): another BLAS (Accelerate,
    MKL, OpenBLAS on an AVX2 or ARM core) gains nothing from ``matmul_narrow``'s blocks.
    """
    try:
        from threadpoolctl import threadpool_info  # type: ignore[import-untyped]
    except ImportError:
        return False
    for pool in threadpool_info():
        if pool.get("internal_api") == "openblas" and "numpy" in str(pool.get("filepath", "")):
            return str(pool.get("architecture", "")).lower() in SMALL_PRODUCT_CORES
    return False


def matmul_narrow(xp: Any, a: Array, b: Array, out: Array) -> Array:
    """``xp.matmul(a, b, out=out)`` for a ``b`` of few columns: on NumPy with OpenBLAS's AVX-512
    kernels, in blocks of ``a``'s rows small enough for their small-product path.

    With more than 48 columns the blocks would get too thin to pay; then, as off NumPy (a GPU
    array) or on another BLAS, it is one product.
    """
    rows = SMALL_PRODUCT // max(1, b.shape[0] * b.shape[1])
    if xp is not np or b.shape[1] > 48 or rows >= a.shape[0] or rows < 8 or not small_product_kernels():
        return xp.matmul(a, b, out=out)
    for r in range(0, a.shape[0], rows):
        np.matmul(a[r : r + rows], b, out=out[r : r + rows])
    return out
