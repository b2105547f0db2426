"""Box-Muller in blocks of 16, computed exactly as PyTorch's CPU ``normal_`` kernel does.

For a contiguous tensor of 16 or more elements PyTorch turns uniforms into normals 16 at a
time: the first 8 uniforms ``a`` and the last 8 ``b`` give ``r = sqrt(-2 log(1 - a))``,
``theta = 2 pi b`` and the pair ``r cos(theta)``, ``r sin(theta)``, then ``fma(n, std, mean)``.

To get the same bits we must round exactly where PyTorch rounds:

* float64 uses the C library's ``log``, ``cos`` and ``sin``: we call the same functions
  (Python's ``math`` module wraps them), one element at a time but in C (``map``), since
  NumPy's own vectorised versions may differ in the last bit (and by CPU).
* float32 uses a vectorised AVX2 routine ("avx_mathfun", Cephes polynomials), compiled
  with fused multiply-adds. It is pure arithmetic, so we redo it step by step in float32
  NumPy, fusing the same multiply-adds (``fma32``) — the same numbers on any CPU.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

_F32 = np.float32


def libm(function: Callable[[float], float], x: np.ndarray) -> np.ndarray:
    """``function`` (from ``math``: the C library's) applied to each float64 of ``x``."""
    flat = np.ascontiguousarray(x, dtype=np.float64).ravel()
    out = np.fromiter(map(function, flat.tolist()), dtype=np.float64, count=flat.size)
    return out.reshape(np.shape(x))


def fma32(a: np.ndarray, b: np.ndarray | float, c: np.ndarray | float) -> np.ndarray:
    """``a * b + c`` with a single rounding to float32, as the CPU's fused multiply-add.

    The product of two float32s is exact in float64, so only the sum rounds there; the one
    case where rounding twice (to float64, then float32) differs from once is a sum that lands
    exactly halfway between two float32s: we then step it towards its exact value.
    """
    product = np.asarray(a, np.float64) * np.asarray(b, np.float64)
    addend = np.asarray(c, np.float64)
    total = product + addend
    back = total - product
    error = (product - (total - back)) + (addend - back)  # what the float64 sum lost (TwoSum)
    halfway = (total.view(np.uint64) & np.uint64((1 << 29) - 1)) == np.uint64(1 << 28)
    fix = halfway & (error != 0)
    if fix.any():
        total = np.where(fix, np.nextafter(total, np.where(error > 0, np.inf, -np.inf)), total)
    return total.astype(_F32)


def _split(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Veltkamp's split of a float64 into two halves of 26 bits, whose products are exact."""
    t = x * 134217729.0  # 2**27 + 1
    high = t - (t - x)
    return high, x - high


def fma64(a: np.ndarray, b: float, c: float) -> np.ndarray:
    """``a * b + c`` in float64 with (almost always) one rounding, as ``std::fma``.

    The product's rounding error comes from Dekker's exact product, the sum's from TwoSum;
    both are added back before the final rounding.
    """
    a = np.asarray(a, np.float64)
    if b == 1.0 and c == 0.0:
        return a.copy()
    product = a * b
    a_hi, a_lo = _split(a)
    b_hi, b_lo = _split(np.float64(b))
    product_error = ((a_hi * b_hi - product) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo
    total = product + c
    back = total - product
    sum_error = (product - (total - back)) + (c - back)
    return total + (sum_error + product_error)


# ---------------------------------------------------------------- float32: avx_mathfun
_LOG_POLY = [_F32(v) for v in (
    7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1, 1.4249322787e-1,
    -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1, 3.3333331174e-1,
)]
_SMALLEST_NORMAL = np.array(0x00800000, np.int32).view(_F32)


def _log_float32(x: np.ndarray) -> np.ndarray:
    """Natural log of float32 ``x`` > 0, as avx_mathfun's ``log256_ps`` (Cephes ``logf``)."""
    x = np.maximum(x, _SMALLEST_NORMAL)
    bits = x.view(np.uint32)
    exponent = (bits >> np.uint32(23)).astype(np.int32) - 127
    # The mantissa as a number in [0.5, 1): keep its bits, put 0.5's exponent on them.
    x = ((bits & np.uint32(0x807FFFFF)) | _F32(0.5).view(np.uint32)).view(_F32)
    e = exponent.astype(_F32) + _F32(1)
    small = x < _F32(0.707106781186547524)  # below sqrt(1/2): use 2x - 1 and one less exponent
    x = (x - _F32(1)) + np.where(small, x, _F32(0))
    e = e - np.where(small, _F32(1), _F32(0))
    z = x * x
    y = np.full_like(x, _LOG_POLY[0])
    for coefficient in _LOG_POLY[1:]:
        y = fma32(y, x, coefficient)
    y = fma32(y * x, z, e * _F32(-2.12194440e-4))
    y = fma32(-z, _F32(0.5), y)
    return fma32(e, _F32(0.693359375), x + y)


def _sincos_float32(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(sin x, cos x) of float32 ``x``, as avx_mathfun's ``sincos256_ps`` (Cephes ``sinf``)."""
    sin_negative = np.signbit(x)
    x = np.abs(x)
    octant = (x * _F32(1.27323954473516)).astype(np.int32)  # x / (pi/4), truncated
    octant = (octant + 1) & ~1
    y = octant.astype(_F32)
    sin_negative = sin_negative ^ ((octant & 4) != 0)
    cos_negative = (~(octant - 2) & 4) != 0
    use_sin_poly = (octant & 2) == 0
    # x - y * pi/4 in three parts ("extended precision modular arithmetic").
    for part in (-0.78515625, -2.4187564849853515625e-4, -3.77489497744594108e-8):
        x = fma32(y, _F32(part), x)
    z = x * x
    cos_poly = fma32(np.full_like(z, _F32(2.443315711809948e-5)), z, _F32(-1.388731625493765e-3))
    cos_poly = fma32(cos_poly, z, _F32(4.166664568298827e-2))
    cos_poly = fma32(cos_poly * z, z, -(z * _F32(0.5))) + _F32(1)
    sin_poly = fma32(np.full_like(z, _F32(-1.9515295891e-4)), z, _F32(8.3321608736e-3))
    sin_poly = fma32(sin_poly, z, _F32(-1.6666654611e-1))
    sin_poly = fma32(sin_poly * z, x, x)
    sin = np.where(use_sin_poly, sin_poly, cos_poly)
    cos = np.where(use_sin_poly, cos_poly, sin_poly)
    return np.where(sin_negative, -sin, sin), np.where(cos_negative, -cos, cos)


def normal_blocks_float32(uniforms: np.ndarray, mean: float, std: float) -> np.ndarray:
    """Normals from float32 uniforms of shape (blocks, 16), PyTorch's AVX2 ``NormalFill16``."""
    u1 = _F32(1) - uniforms[:, :8]  # [0, 1) -> (0, 1] for the log
    u2 = uniforms[:, 8:]
    radius = np.sqrt(_F32(-2) * _log_float32(u1))
    sin, cos = _sincos_float32(_F32(2 * math.pi) * u2)
    pairs = np.concatenate([radius * cos, radius * sin], axis=1)
    return fma32(pairs, _F32(std), _F32(mean))


def normal_blocks_float64(uniforms: np.ndarray, mean: float, std: float) -> np.ndarray:
    """Normals from float64 uniforms of shape (blocks, 16), PyTorch's scalar ``NormalFill16``."""
    radius = np.sqrt(-2 * libm(math.log, 1 - uniforms[:, :8]))
    theta = 2 * math.pi * uniforms[:, 8:]
    pairs = np.concatenate([radius * libm(math.cos, theta), radius * libm(math.sin, theta)], axis=1)
    return fma64(pairs, std, mean)
