"""The error function and GELU, the activation of transformers.

- ``Erf``: erf(x) = 2/sqrt(pi) * integral_0^x exp(-t^2) dt. NumPy has no erf, so this
  module evaluates W. J. Cody's rational approximations (the ones C libraries use) with
  array operations: accurate to about 1e-16 relative in float64, and the same code runs on
  every device.
- ``Gelu``: x * Phi(x), with Phi the normal CDF, exactly (through erf) or with PyTorch's
  tanh approximation, as one node with its derivative written out.

Faster evaluations are fast kernels: SciPy's compiled erf where it is installed, and a
float32 GELU that never calls erf (``minitorch/kernels/cpu/special.py``); on a GPU CuPy's
erf (``minitorch/kernels/cuda/special.py``).
"""

from __future__ import annotations

import math
from typing import Any

from minitorch.autograd.function import BackwardNode, Function
from minitorch.autograd.graph_arrays import GraphArray, call
from minitorch.errors import MiniTorchError
from minitorch.functions.unary import _floating
from minitorch.hints import Array, Gradients
from minitorch.tensor_base import T, TensorBase

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
_SQRT_HALF = math.sqrt(0.5)
_SQRT_2_OVER_PI = math.sqrt(2 / math.pi)


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
    """erf of a float array with NumPy (or CuPy) operations only (Cody's approximations).

    float16 is computed in float32 and rounded once, as PyTorch does (the approximations'
    coefficients and powers do not fit in half precision).

    On a graph value (a backward running under ``create_graph=True``: GELU's calls this for
    Phi) it is the ``Erf`` op itself, so that the recorded step's derivative is erf's,
    2/sqrt(pi) exp(-x^2), not that of the approximations' arithmetic.
    """
    if isinstance(x, GraphArray):
        return call("erf", x)
    dtype = x.dtype
    if dtype == xp.float16:
        x = x.astype(xp.float32)
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
    return xp.where(y < 0.5, small, large).astype(dtype, copy=False)


class Erf(Function):
    """erf(x).   d/dx = 2/sqrt(pi) * exp(-x^2)."""

    @staticmethod
    def forward(ctx: BackwardNode, x: Array) -> Array:
        ctx.save_for_backward(x)
        return erf_array(ctx.xp, x)

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        (x,) = ctx.saved_tensors
        return (grad * (2 * _SQRT_PI_INV) * ctx.xp.exp(-x * x),)


class Gelu(Function):
    """gelu(x) = x * Phi(x), Phi(x) = (1 + erf(x / sqrt 2)) / 2 the normal CDF (or PyTorch's tanh form).

    Backward (exact): Phi(x) + x * phi(x), phi the normal density exp(-x^2/2) / sqrt(2 pi).
    Backward (tanh): with u = sqrt(2/pi) (x + 0.044715 x^3) and t = tanh(u),
    d/dx [x (1 + t) / 2] = (1 + t) / 2 + x / 2 (1 - t^2) sqrt(2/pi) (1 + 3 * 0.044715 x^2).
    Forward saves only x: backward computes Phi and phi (or t) again.
    """

    @staticmethod
    def forward(ctx: BackwardNode, x: Array, approximate: str) -> Array:
        ctx.approximate = approximate
        ctx.save_for_backward(x)
        if approximate == "tanh":
            return 0.5 * x * (1 + ctx.xp.tanh(_SQRT_2_OVER_PI * (x + 0.044715 * x * x * x)))
        return x * normal_cdf(ctx.xp, x)

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        xp = ctx.xp
        (x,) = ctx.saved_tensors
        if ctx.approximate == "tanh":
            t = xp.tanh(_SQRT_2_OVER_PI * (x + 0.044715 * x * x * x))
            du = _SQRT_2_OVER_PI * (1 + 3 * 0.044715 * x * x)
            return grad * (0.5 * (1 + t) + 0.5 * x * (1 - t * t) * du), None
        return grad * (normal_cdf(xp, x) + x * normal_density(xp, x)), None


def normal_cdf(xp: Any, x: Array) -> Array:
    """Phi(x) = (1 + erf(x / sqrt 2)) / 2, the probability that a standard normal sample is below x."""
    return 0.5 * (1 + erf_array(xp, x * _SQRT_HALF))


def normal_density(xp: Any, x: Array) -> Array:
    """phi(x) = exp(-x^2 / 2) / sqrt(2 pi), the standard normal density (Phi's derivative)."""
    return xp.exp(-0.5 * x * x) * (_SQRT_HALF * _SQRT_PI_INV)


def erf(x: T) -> T:
    """The error function of each element (float64-accurate; integers become float32)."""
    return Erf.apply(_floating(x, "erf"))


def gelu(input: T, approximate: str = "none") -> T:
    """The Gaussian error linear unit x * Phi(x); ``approximate="tanh"`` as PyTorch's."""
    if approximate not in ("none", "tanh"):
        raise MiniTorchError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
    if isinstance(input, TensorBase) and input.data.dtype.kind != "f":  # PyTorch has no integer GELU either
        raise NotImplementedError(
            f"gelu: not implemented for {input.dtype} tensors (shape {tuple(input.shape)}); convert with .float()"
        )
    return Gelu.apply(_floating(input, "gelu"), approximate)
