"""erf and GELU on the CPU, faster than ``functions/special.py`` evaluates them in array math.

- **SciPy's erf** (where SciPy is installed): one compiled loop over the array, where Cody's
  approximations written with NumPy make dozens of passes over it. It serves ``Erf`` and
  the exact ``Gelu`` of every dtype but float32 (float64 for gradcheck, float16).
- **float32 GELU without erf** (``gelu_forward_float32``): SciPy computes each float32
  element in float64, through erf's longer branches. Here Phi(x) comes from a polynomial
  fitted for this purpose (``TAIL_FIT``), evaluated in float32, and the normal density, which
  the backward needs anyway: about thirty in-place float32 passes and one exp. The passes run
  block by block (``BLOCK`` elements), so that all of them work in the L2 cache instead of
  streaming a whole activation tensor through memory thirty times. Forward keeps Phi and phi
  for the backward (``save_for_kernel``), which then makes three passes per block and reads
  each input once.
- **The tanh form keeps its tanh** for the backward instead of computing it again.

The contract of ``minitorch/kernels``: each forward saves what ``Gelu`` / ``Erf`` save (the
input x) and sets ``ctx.approximate`` as the op does; the ops' own backwards run on their nodes.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minitorch.autograd.function import BackwardNode
from minitorch.functions.special import Erf, Gelu, normal_density
from minitorch.hints import Array, Gradients
from minitorch.kernels.registry import register

try:  # optional: MiniTorch needs only NumPy
    from scipy.special import erf as scipy_erf  # type: ignore[import-untyped]
except ImportError:  # pragma: no cover - scipy is usually there
    scipy_erf = None

_SQRT_HALF = math.sqrt(0.5)
_SQRT_2_OVER_PI = math.sqrt(2 / math.pi)
_LOG_DENSITY = math.log(1 / math.sqrt(2 * math.pi))  # phi(x) = exp(-x^2 / 2 + log(1 / sqrt(2 pi)))

# The lower tail of the normal distribution, Phi(-|x|) = erfc(z) / 2 with z = |x| / sqrt 2, is
# written t Q(t) phi(x): phi the normal density, t = 1 / (1 + z/2) (the variable of Numerical
# Recipes' erfcc) and Q(t) = sqrt(pi/2) erfcx(z) / t, where erfcx(z) = erfc(z) e^(z^2) varies
# slowly. Q is a degree-8 polynomial in t, its coefficients (constant term first) fitted for
# MiniTorch by least squares, reweighted toward the smallest largest error, at 6000 Chebyshev
# points of t in [1/6, 1] (z in [0, 10]; beyond, the tail underflows float32). Its relative
# error is under 5e-8 in float64.
TAIL_FIT = (
    0.3535428898086608, 0.35390507469840654, 0.30468452737521673, 0.25403394561206566, -0.033379420006333406,
    0.3485193941549876, -0.6106272001501063, 0.35666817972201315, -0.0740333076540839,
)  # fmt: skip
BLOCK = 1 << 16  # elements per block: 256 KB a float32 array, so a block's ~30 passes stay in the L2 cache


# ---------------------------------------------------------------------- erf through SciPy
def library_erf(x: Array) -> Array:
    """SciPy's erf in ``x``'s dtype (for float16 SciPy computes in a wider type and returns that)."""
    return scipy_erf(x).astype(x.dtype, copy=False)


def numpy_float(x: Array, *_: Any) -> bool:
    """A floating-point NumPy array (``Erf``'s input)."""
    return type(x) is np.ndarray and x.dtype.kind == "f"


def erf_forward(ctx: BackwardNode, x: Array) -> Array:
    """``Erf.forward`` with SciPy's erf."""
    ctx.save_for_backward(x)
    return library_erf(x)


def exact_gelu_not_float32(x: Array, approximate: str) -> bool:
    """The exact GELU of a float64 or float16 NumPy array (float32 has ``gelu_float32``)."""
    return type(x) is np.ndarray and approximate == "none" and x.dtype in (np.float64, np.float16)


def gelu_forward_scipy(ctx: BackwardNode, x: Array, approximate: str) -> Array:
    """``Gelu.forward`` (exact) with SciPy's erf; Phi kept for the backward."""
    ctx.approximate = approximate
    cdf = 0.5 * (1 + library_erf(x * _SQRT_HALF))
    ctx.save_for_backward(x)
    ctx.save_for_kernel(cdf)
    return x * cdf


def gelu_backward_scipy(ctx: BackwardNode, grad: Array) -> Gradients:
    """``Gelu.backward`` (exact) from the kept Phi: grad * (Phi(x) + x phi(x)), written in place."""
    (x,) = ctx.saved_tensors
    (cdf,) = ctx.kernel_saved
    slope = x * normal_density(np, x)
    slope += cdf
    slope *= grad
    return slope, None


# ---------------------------------------------------------------------- float32 GELU
def normal_cdf_float32(x: Array, times_x: bool = False) -> tuple[Array, Array, Array | None]:
    """Phi(x), the normal density phi(x) and (``times_x``) x * Phi(x) of a float32 NumPy array.

    Evaluates the fit above in float32, block by block (``BLOCK`` elements), one exp. The lower
    tail Phi(-|x|) = erfc(|x| / sqrt 2) / 2 is computed directly (not as 1 + erf, which cancels):
    relative error about 2e-6 for |x| < 5, where PyTorch's float32 GELU loses most digits of the tail.
    """
    flat = np.ascontiguousarray(x).reshape(-1)
    cdf, pdf = np.empty_like(flat), np.empty_like(flat)
    product = np.empty_like(flat) if times_x else None
    scratch = np.empty((2, min(BLOCK, flat.size)), dtype=np.float32)  # made once, reused by every block
    for start in range(0, flat.size, BLOCK):
        part = slice(start, start + BLOCK)
        x_part = flat[part]
        t, poly = scratch[:, : x_part.size]
        _normal_cdf_block(x_part, cdf[part], pdf[part], t, poly)
        if product is not None:
            np.multiply(x_part, cdf[part], out=product[part])
    shaped = [a if a is None else a.reshape(x.shape) for a in (cdf, pdf, product)]
    return shaped[0], shaped[1], shaped[2]


def _normal_cdf_block(x: Array, cdf: Array, pdf: Array, t: Array, poly: Array) -> None:
    """One block of ``normal_cdf_float32``: writes Phi(x) into ``cdf``, phi(x) into ``pdf``
    (``t`` and ``poly`` are scratch arrays of the same size)."""
    f = np.float32
    z = np.abs(x, out=pdf)  # pdf holds |x|, then -x^2 / 2 + log(1 / sqrt(2 pi)), then the density
    np.multiply(z, f(0.5 * _SQRT_HALF), out=t)  # t = 1 / (1 + |x| / (2 sqrt 2))
    t += 1
    np.divide(f(1), t, out=t)
    np.multiply(t, f(TAIL_FIT[8]), out=poly)  # Q(t), by Horner's rule
    for c in TAIL_FIT[7:0:-1]:
        poly += f(c)
        poly *= t
    poly += f(TAIL_FIT[0])
    np.multiply(z, z, out=z)
    z *= f(-0.5)
    z += f(_LOG_DENSITY)
    density = np.exp(z, out=pdf)
    tail = np.multiply(poly, t, out=poly)
    tail *= density  # Phi(-|x|) = t Q(t) phi(x)
    # Phi(x) = |H(x) - Phi(-|x|)|, H the step (1 where x >= 0): 1 - tail where x >= 0, and the
    # tail itself, exactly, where x < 0 (a where= mask would cost as much as all the passes above).
    step = np.greater_equal(x, 0, out=t)  # (t's float32 array takes the step as 0.0 and 1.0)
    np.subtract(step, tail, out=cdf)
    np.abs(cdf, out=cdf)


def exact_gelu_float32(x: Array, approximate: str) -> bool:
    """The exact GELU of a float32 NumPy array."""
    return type(x) is np.ndarray and x.dtype == np.float32 and approximate == "none"


def gelu_forward_float32(ctx: BackwardNode, x: Array, approximate: str) -> Array:
    """``Gelu.forward`` (exact, float32): x * Phi(x) from ``normal_cdf_float32``; Phi and phi kept."""
    ctx.approximate = approximate
    cdf, pdf, out = normal_cdf_float32(x, times_x=True)
    ctx.save_for_backward(x)
    ctx.save_for_kernel(cdf, pdf)
    return out


def gelu_backward_float32(ctx: BackwardNode, grad: Array) -> Gradients:
    """grad * (Phi(x) + x phi(x)) from the kept Phi and phi, block by block: each of the four
    inputs is read from memory once, and the three passes run in the cache."""
    (x,) = ctx.saved_tensors
    cdf, pdf = ctx.kernel_saved
    if grad.dtype != np.float32 or grad.shape != x.shape:  # (not from the engine: the formula as is)
        return grad * (cdf + x * pdf), None
    shape = x.shape
    x, cdf, pdf, grad = (np.ascontiguousarray(a).reshape(-1) for a in (x, cdf, pdf, grad))
    out = np.empty_like(x)
    for start in range(0, x.size, BLOCK):
        part = slice(start, start + BLOCK)
        slope = np.multiply(x[part], pdf[part], out=out[part])
        slope += cdf[part]
        slope *= grad[part]
    return out.reshape(shape), None


# ---------------------------------------------------------------------- the tanh form
def tanh_gelu_numpy(x: Array, approximate: str) -> bool:
    """GELU's tanh form of a NumPy array."""
    return type(x) is np.ndarray and approximate == "tanh"


def gelu_forward_tanh_kept(ctx: BackwardNode, x: Array, approximate: str) -> Array:
    """``Gelu.forward`` (tanh form), its tanh kept for the backward instead of computed again."""
    ctx.approximate = approximate
    t = np.tanh(_SQRT_2_OVER_PI * (x + 0.044715 * x * x * x))
    ctx.save_for_backward(x)
    ctx.save_for_kernel(t)
    return 0.5 * x * (1 + t)


def gelu_backward_tanh_kept(ctx: BackwardNode, grad: Array) -> Gradients:
    """``Gelu.backward`` (tanh form) from the kept tanh."""
    (x,) = ctx.saved_tensors
    (t,) = ctx.kernel_saved
    du = _SQRT_2_OVER_PI * (1 + 3 * 0.044715 * x * x)
    return grad * (0.5 * (1 + t) + 0.5 * x * (1 - t * t) * du), None


# Tried in this order: the float32 GELU first.
GELU_FLOAT32 = register(
    Gelu, device="cpu", applies=exact_gelu_float32, forward=gelu_forward_float32, backward=gelu_backward_float32
)
GELU_TANH = register(
    Gelu, device="cpu", applies=tanh_gelu_numpy, forward=gelu_forward_tanh_kept, backward=gelu_backward_tanh_kept
)
if scipy_erf is not None:
    ERF_SCIPY = register(Erf, device="cpu", applies=numpy_float, forward=erf_forward)
    GELU_SCIPY = register(
        Gelu, device="cpu", applies=exact_gelu_not_float32, forward=gelu_forward_scipy, backward=gelu_backward_scipy
    )
