"""erf and GELU on a GPU with CuPy's own erf (``cupyx.scipy.special.erf``).

On a GPU each array operation is a kernel launch, and a small model's step is bound by their
number. Cody's approximations written in array math (``functions/special.py``) launch dozens;
CuPy's erf is one elementwise kernel. The exact GELU keeps Phi for its backward, which then
computes only the density.
"""

from __future__ import annotations

import math
from typing import Any

from minitorch.autograd.function import BackwardNode
from minitorch.functions.special import Erf, Gelu, normal_density
from minitorch.hints import Array, Gradients
from minitorch.kernels.registry import register

_SQRT_HALF = math.sqrt(0.5)


_ERFS: dict[type, Any] = {}  # array type -> CuPy's erf for it, or None


def cupy_erf(array_type: type) -> Any:
    """``cupyx.scipy.special.erf`` for arrays of this type: CuPy's own arrays, where ``cupyx``
    imports; None for any other (the stand-in CuPy of the tests). Asked once per array type."""
    if array_type not in _ERFS:
        erf = None
        if array_type.__module__.split(".")[0] == "cupy":
            try:
                from cupyx.scipy.special import erf
            except Exception:  # not installed, or not importable beside this CuPy
                erf = None
        _ERFS[array_type] = erf
    return _ERFS[array_type]


def has_erf(x: Array, *_: Any) -> bool:
    """Any floating-point GPU array, where CuPy has its erf."""
    return x.dtype.kind == "f" and cupy_erf(type(x)) is not None


def erf_forward(ctx: BackwardNode, x: Array) -> Array:
    """``Erf.forward`` with CuPy's erf."""
    ctx.save_for_backward(x)
    return cupy_erf(type(x))(x).astype(x.dtype, copy=False)


def exact_gelu(x: Array, approximate: str) -> bool:
    """The exact GELU of a GPU array, where CuPy has its erf."""
    return approximate == "none" and has_erf(x)


def gelu_forward(ctx: BackwardNode, x: Array, approximate: str) -> Array:
    """``Gelu.forward`` (exact) with CuPy's erf; Phi kept for the backward."""
    ctx.approximate = approximate
    cdf = 0.5 * (1 + cupy_erf(type(x))(x * _SQRT_HALF).astype(x.dtype, copy=False))
    ctx.save_for_backward(x)
    ctx.save_for_kernel(cdf)
    return x * cdf


def gelu_backward(ctx: BackwardNode, grad: Array) -> Gradients:
    """``Gelu.backward`` (exact) from the kept Phi: grad * (Phi(x) + x phi(x))."""
    (x,) = ctx.saved_tensors
    (cdf,) = ctx.kernel_saved
    slope = x * normal_density(ctx.xp, x)
    slope += cdf
    slope *= grad
    return slope, None


ERF_CUPY = register(Erf, device="cuda", applies=has_erf, forward=erf_forward)
GELU_CUPY = register(Gelu, device="cuda", applies=exact_gelu, forward=gelu_forward, backward=gelu_backward)
