"""``kernels/cpu/small_products.matmul_narrow``: a product with a narrow right operand, in row
blocks, is NumPy's to rounding.

The LSTM kernel's per-step products go through it: blocks of rows small enough for OpenBLAS's
small-product kernels, or one product where blocks would not pay (wide operands, tiny or
empty ones).
"""

import numpy as np
import pytest

from minitorch.kernels.cpu import small_products
from minitorch.kernels.cpu.small_products import matmul_narrow

SHAPES = [  # (rows, inner, columns)
    (1024, 321, 32),  # an LSTM step: 11 blocks, the last one short
    (256, 1024, 32),  # its backward
    (1000, 100, 10),  # exactly 10 blocks of 100 rows
    (1024, 321, 64),  # too wide: one product
    (7, 3, 2),  # small: one product
    (5, 0, 4),  # empty inner
    (0, 3, 4),  # no rows
    (4, 3, 0),  # no columns
]


@pytest.mark.parametrize("blocks", [True, False], ids=["small-product kernels", "another BLAS"])
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_matmul_narrow_is_numpys_product(shape, dtype, blocks, monkeypatch):
    monkeypatch.setattr(small_products, "small_product_kernels", lambda: blocks)  # both paths, on any machine
    rows, inner, cols = shape
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((rows, inner)).astype(dtype), rng.standard_normal((inner, cols)).astype(dtype)
    out = np.full((rows, cols), np.nan, dtype)
    assert matmul_narrow(np, a, b, out) is out
    tolerance = 1e-4 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(out, a @ b, rtol=tolerance, atol=tolerance * max(1, inner))


def test_small_product_kernels_is_asked_once_and_is_a_bool():
    assert small_products.small_product_kernels() in (True, False)
    assert small_products.small_product_kernels.cache_info().currsize == 1
