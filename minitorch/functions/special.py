"""The error function and GELU, the activation of transformers.

- ``Erf``: erf(x) = 2/sqrt(pi) * integral_0^x exp(-t^2) dt. NumPy has no erf, so this
  module evaluates W. J. Cody's rational approximations (the ones C libraries use),
  vectorised: accurate to about 1e-16 relative in float64. Where SciPy is installed its
  ``scipy.special.erf`` (one compiled loop) is used on the CPU, and on a GPU
  ``cupyx.scipy.special.erf``.
- ``Gelu``: x * Phi(x), with Phi the normal CDF, exactly (through erf) or with PyTorch's
  tanh approximation, as one node with its derivative written out.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from minitorch.autograd.function import BackwardNode, Function
from minitorch.errors import MiniTorchError
from minitorch.functions.unary import _floating
from minitorch.hints import Array, Gradients
from minitorch.tensor_base import TensorBase

if TYPE_CHECKING:  # the face, for annotations only: never imported at run time (no cycle)
    from minitorch.tensor import Tensor

try:  # an optional speed-up: MiniTorch needs only NumPy
    from scipy.special import erf as _scipy_erf  # type: ignore[import-untyped]
except ImportError:  # pragma: no cover - scipy is usually there
    _scipy_erf = None

# Cody (1969), "Rational Chebyshev approximations for the error function", as in calerf.
_A = (3.16112374387056560e00, 1.13864154151050156e02, 3.77485237685302021e02, 3.20937758913846947e03,
      1.85777706184603153e-1)  # fmt: skip
_B = (2.36012909523441209e01, 2.44024637934444173e02, 1.28261652607737228e03, 2.84423683343917062e03)
_C = (
    5.64188496988670089e-1, 8.88314979438837594e00, 6.61191906371416295e01, 2.98635138197400131e02,
    8.81952221241769090e02, 1.71204761263407058e03, 2.05107837782607147e03, 1.23033935479799725e03,
    2.15311535474403846e-8,
)  # fmt: skip
_D = (
    1.57449261107098347e01, 1.17693950891312499e02, 5.37181101862009858e02, 1.62138957456669019e03,
    3.29079923573345963e03, 4.36261909014324716e03, 3.43936767414372164e03, 1.23033935480374942e03,
)  # fmt: skip
_P = (3.05326634961232344e-1, 3.60344899949804439e-1, 1.25781726111229246e-1, 1.60837851487422766e-2,
      6.58749161529837803e-4, 1.63153871373020978e-2)  # fmt: skip
_Q = (2.56852019228982242e00, 1.87295284992346725e00, 5.27905102951428412e-1, 6.05183413124413191e-2,
      2.33520497626869185e-3)  # fmt: skip
_SQRT_PI_INV = 1 / math.sqrt(math.pi)


def _erfc_tail(xp: Any, y: Array) -> Array:
    """erfc(y) for y >= 0.5 (Cody's two outer ranges), with exp(-y^2) computed without cancellation."""
    # Range 0.5 <= y <= 4: erfc = exp(-y^2) * C(y) / D(y).
    num, den = _C[8] * y, y
    for i in range(7):
        num, den = (num + _C[i]) * y, (den + _D[i]) * y
    mid = (num + _C[7]) / (den + _D[7])
    # Range y > 4: erfc = exp(-y^2) / y * (1/sqrt(pi) + z * P(z) / Q(z)), z = 1/y^2.
    z = 1 / (y * y)
    num, den = _P[5] * z, z
    for i in range(4):
        num, den = (num + _P[i]) * z, (den + _Q[i]) * z
    far = (_SQRT_PI_INV - z * (num + _P[4]) / (den + _Q[4])) / y
    # exp(-y^2) = exp(-s^2) * exp(-(y - s)(y + s)) with s = y rounded to 1/16: y^2 is not rounded.
    s = xp.trunc(y * 16) / 16
    scale = xp.exp(-s * s) * xp.exp(-(y - s) * (y + s))
    return scale * xp.where(y <= 4, mid, far)


def erf_array(xp: Any, x: Array) -> Array:
    """erf of a float array with NumPy (or CuPy) operations only (Cody's approximations)."""
    y = xp.abs(x)
    ysq = x * x
    # |x| < 0.5: erf = x * A(x^2) / B(x^2).
    num, den = _A[4] * ysq, ysq
    for i in range(3):
        num, den = (num + _A[i]) * ysq, (den + _B[i]) * ysq
    small = x * (num + _A[3]) / (den + _B[3])
    # Clamped to [0.5, 27]: erfc(27) already underflows to 0, and inf would give inf - inf.
    tail = xp.where(y < 0.5, 1.0, _erfc_tail(xp, xp.minimum(xp.maximum(y, 0.5), 27.0)))
    large = xp.copysign(1 - tail, x)
    return xp.where(y < 0.5, small, large).astype(x.dtype, copy=False)


def _erf(xp: Any, x: Array) -> Array:
    """erf of ``x`` in ``x``'s dtype (SciPy computes float16 in float64 and returns that)."""
    if xp is np:
        if _scipy_erf is not None:
            return _scipy_erf(x).astype(x.dtype, copy=False)
        return erf_array(xp, x)
    try:  # CuPy: its own elementwise kernel
        from cupyx.scipy.special import erf as cupy_erf

        return cupy_erf(x).astype(x.dtype, copy=False)
    except ImportError:  # pragma: no cover - a backend without cupyx
        return erf_array(xp, x)


class Erf(Function):
    """erf(x).   d/dx = 2/sqrt(pi) * exp(-x^2)."""

    @staticmethod
    def forward(ctx: BackwardNode, x: Array) -> Array:
        ctx.save_for_backward(x)
        return _erf(ctx.xp, x)

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        (x,) = ctx.saved_tensors
        return (grad * (2 * _SQRT_PI_INV) * ctx.xp.exp(-x * x),)


_SQRT_HALF = math.sqrt(0.5)
_SQRT_2_OVER_PI = math.sqrt(2 / math.pi)

# The lower tail of the normal distribution, Phi(-|x|) = erfc(z) / 2 with z = |x| / sqrt 2, is
# written t Q(t) phi(x): phi the normal density, t = 1 / (1 + z/2) (the variable of Numerical
# Recipes' erfcc) and Q(t) = sqrt(pi/2) erfcx(z) / t, where erfcx(z) = erfc(z) e^(z^2) varies
# slowly. Q is a degree-8 polynomial in t, its coefficients (constant term first) fitted for
# MiniTorch by least squares, reweighted toward the smallest largest error, at 6000 Chebyshev
# points of t in [1/6, 1] (z in [0, 10]; beyond, the tail underflows float32). Its relative
# error is under 5e-8 in float64. (The density is needed for GELU's backward anyway: the tail
# then costs no exp of its own.)
_TAIL_FIT = (
    0.3535428898086608, 0.35390507469840654, 0.30468452737521673, 0.25403394561206566, -0.033379420006333406,
    0.3485193941549876, -0.6106272001501063, 0.35666817972201315, -0.0740333076540839,
)  # fmt: skip
_BLOCK = 1 << 16  # elements per block: 256 KB a float32 array, so a block's ~30 passes run in the L2 cache
_LOG_DENSITY = math.log(_SQRT_HALF * _SQRT_PI_INV)  # phi(x) = exp(-x^2 / 2 + log(1 / sqrt(2 pi)))


def normal_cdf_float32(x: Array, times_x: bool = False) -> tuple[Array, Array, Array | None]:
    """Phi(x), the normal density phi(x) and (``times_x``) x * Phi(x) of a float32 NumPy array.

    SciPy's erf computes each float32 element in float64 (10-20 ns each); this evaluates
    the fit above in float32, in about 30 passes, one exp. The lower tail Phi(-|x|) = erfc(|x| / sqrt 2) / 2
    is computed directly (not as 1 + erf, which cancels): relative error about 2e-6 for |x| < 5,
    where PyTorch's float32 GELU loses most digits of the tail.

    The passes run block by block (``_BLOCK`` elements): over a whole 4 MB array each pass
    would go out to memory and back, and the same passes took 9 ms instead of 5.
    """
    flat = np.ascontiguousarray(x).reshape(-1)
    cdf, pdf = np.empty_like(flat), np.empty_like(flat)
    product = np.empty_like(flat) if times_x else None
    scratch = np.empty((2, min(_BLOCK, flat.size)), dtype=np.float32)  # made once, reused by every block
    for start in range(0, flat.size, _BLOCK):
        part = slice(start, start + _BLOCK)
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
    np.multiply(t, f(_TAIL_FIT[8]), out=poly)  # Q(t), by Horner's rule
    for c in _TAIL_FIT[7:0:-1]:
        poly += f(c)
        poly *= t
    poly += f(_TAIL_FIT[0])
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


class Gelu(Function):
    """gelu(x) = x * Phi(x), Phi(x) = (1 + erf(x / sqrt 2)) / 2 (or PyTorch's tanh form).

    Backward (exact): Phi(x) + x * phi(x), phi the normal density exp(-x^2/2) / sqrt(2 pi).
    Backward (tanh): with u = sqrt(2/pi) (x + 0.044715 x^3) and t = tanh(u),
    d/dx [x (1 + t) / 2] = (1 + t) / 2 + x / 2 (1 - t^2) sqrt(2/pi) (1 + 3 * 0.044715 x^2).
    """

    @staticmethod
    def forward(ctx: BackwardNode, x: Array, approximate: str) -> Array:
        xp = ctx.xp
        ctx.approximate = approximate
        if approximate == "tanh":
            t = xp.tanh(_SQRT_2_OVER_PI * (x + 0.044715 * x * x * x))
            ctx.save_for_backward(x, t)
            return 0.5 * x * (1 + t)
        if xp is np and x.dtype == np.float32:
            cdf, pdf, out = normal_cdf_float32(x, times_x=True)
        else:
            cdf, pdf = 0.5 * (1 + _erf(xp, x * _SQRT_HALF)), None
            out = x * cdf
        ctx.save_for_backward(x, cdf, pdf)
        return out

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        xp = ctx.xp
        if ctx.approximate == "tanh":
            x, t = ctx.saved_tensors
            du = _SQRT_2_OVER_PI * (1 + 3 * 0.044715 * x * x)
            return grad * (0.5 * (1 + t) + 0.5 * x * (1 - t * t) * du), None
        x, cdf, pdf = ctx.saved_tensors
        if pdf is None:
            pdf = xp.exp(-0.5 * x * x) * (_SQRT_HALF * _SQRT_PI_INV)
        if pdf.dtype == grad.dtype == np.float32 and xp is np and grad.shape == x.shape:
            return _gelu_grad_float32(x, cdf, pdf, grad), None
        slope = x * pdf  # d/dx x Phi(x) = Phi(x) + x phi(x), written in place
        slope += cdf
        slope *= grad
        return slope, None


def _gelu_grad_float32(x: Array, cdf: Array, pdf: Array, grad: Array) -> Array:
    """grad * (Phi(x) + x phi(x)) as the backward above writes it, block by block: each of the
    four inputs is read from memory once, and the three passes run in the cache."""
    shape = x.shape
    x, cdf, pdf, grad = (np.ascontiguousarray(a).reshape(-1) for a in (x, cdf, pdf, grad))
    out = np.empty_like(x)
    for start in range(0, x.size, _BLOCK):
        part = slice(start, start + _BLOCK)
        slope = np.multiply(x[part], pdf[part], out=out[part])
        slope += cdf[part]
        slope *= grad[part]
    return out.reshape(shape)


def erf(x: TensorBase) -> Tensor:
    """The error function of each element (float64-accurate; integers become float32)."""
    return Erf.apply(_floating(x, "erf"))


def gelu(input: TensorBase, approximate: str = "none") -> Tensor:
    """The Gaussian error linear unit x * Phi(x); ``approximate="tanh"`` as PyTorch's."""
    if approximate not in ("none", "tanh"):
        raise MiniTorchError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
    if isinstance(input, TensorBase) and input.data.dtype.kind != "f":  # PyTorch has no integer GELU either
        raise NotImplementedError(
            f"gelu: not implemented for {input.dtype} tensors (shape {tuple(input.shape)}); convert with .float()"
        )
    return Gelu.apply(_floating(input, "gelu"), approximate)
