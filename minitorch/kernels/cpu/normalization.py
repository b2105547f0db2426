"""Fast kernels of ``LayerNorm`` and ``BatchNorm`` on NumPy: xhat kept, sums as BLAS products.

Both ops keep only x for backward and normalise it again there; these kernels keep xhat and
invstd from forward instead (``save_for_kernel``). Layer norm's kernel also:

- takes each row's sums (for the mean and the variance) as BLAS products with ones
  (``blas_sums.sum_rows``): NumPy reduces the short rows of a transformer (128 features) one
  at a time;
- takes, in backward, the two sums over each row, of gh = g * w and of gh * xhat, as products
  with the weight vector, sum_j g_j w_j = g @ w and sum_j g_j xhat_j w_j = (g * xhat) @ w,
  where g * xhat is the weight's gradient's array anyway: no pass to make gh * xhat;
- sums the weight's and bias's gradients over the rows as ``ones @ rows``
  (``blas_sums.sum_leading``);
- works in the arrays it makes (xhat in the centered x, the bias added into the product,
  grad_x built in one array).

Batch norm's kernel is the op's forward and backward, with xhat and invstd kept: backward
then skips the batch's statistics (two passes over x) and xhat (a third). float16 (with its
float32 parameters, in mixed dtypes) stays with the ops.
"""

from __future__ import annotations

import math

import numpy as np

from minitorch.autograd.function import BackwardNode
from minitorch.functions.normalization import (
    BatchNorm,
    LayerNorm,
    batch_norm_forward,
    batch_norm_gradients,
)
from minitorch.hints import Array, Gradients
from minitorch.kernels.cpu.blas_sums import sum_leading, sum_rows
from minitorch.kernels.registry import register

FLOATS = (np.float32, np.float64)


def _float_numpy(x: Array, *rest: object) -> bool:
    """A float32/64 NumPy input (its parameters then have its dtype: the functions check it)."""
    return type(x) is np.ndarray and x.dtype in FLOATS


# ---------------------------------------------------------------------- layer norm
def layer_norm_blas(ctx: BackwardNode, x: Array, weight: Array | None, bias: Array | None, k: int, eps: float) -> Array:
    """LayerNorm's forward: row sums as products with ones, xhat made in the centered x's array."""
    axes = tuple(range(x.ndim - k, x.ndim))
    m = math.prod(x.shape[x.ndim - k :])  # M: elements per row
    mean = sum_rows(x, k) / x.dtype.type(m)
    centered = x - mean
    var = sum_rows(centered * centered, k) / x.dtype.type(m)  # biased, as PyTorch
    invstd = 1 / np.sqrt(var + eps)
    xhat = np.multiply(centered, invstd, out=centered)
    out = xhat if weight is None else xhat * weight
    if bias is not None:
        out = out + bias if weight is None else np.add(out, bias, out=out)
    ctx.axes, ctx.m, ctx.eps = axes, m, eps
    ctx.bias_dtype = None if bias is None else bias.dtype
    ctx.save_for_backward(x, weight)
    ctx.save_for_kernel(xhat, invstd)
    return out


def layer_norm_blas_backward(ctx: BackwardNode, grad: Array) -> Gradients:
    """LayerNorm's backward on the kept xhat: the row sums as products with the weight vector."""
    _, weight = ctx.saved_tensors
    xhat, invstd = ctx.kernel_saved
    m, k = ctx.m, len(ctx.axes)
    need_x, need_w, need_b = ctx.needs_input_grad[:3]
    grad_w = grad_b = grad_x = gx = None
    if need_w:
        gx = grad * xhat
        grad_w = sum_leading(gx, k)
    if need_b:
        grad_b = sum_leading(grad, k)
    if need_x:
        if weight is not None:
            gh = grad * weight
            w = weight.reshape(m)
            sum_gh = (grad.reshape(-1, m) @ w).reshape(invstd.shape)
            gx = grad * xhat if gx is None else gx
            sum_ghx = (gx.reshape(-1, m) @ w).reshape(invstd.shape)
        else:
            gh = grad
            sum_gh = sum_rows(gh, k)
            sum_ghx = sum_rows(gh * xhat, k)
        # invstd * (gh - (sum_gh + xhat * sum_ghx) / m), in one fresh array
        grad_x = np.multiply(xhat, sum_ghx / m)
        grad_x += sum_gh / m
        np.subtract(gh, grad_x, out=grad_x)
        grad_x *= invstd
    return grad_x, grad_w, grad_b, None, None


# ---------------------------------------------------------------------- batch norm
def batch_norm_kept(
    ctx: BackwardNode,
    x: Array,
    weight: Array | None,
    bias: Array | None,
    running_mean: Array | None,
    running_var: Array | None,
    training: bool,
    momentum: float,
    eps: float,
) -> Array:
    """BatchNorm's forward, keeping xhat and invstd for backward (not computed again from x)."""
    out, xhat, invstd = batch_norm_forward(ctx, x, weight, bias, running_mean, running_var, training, momentum, eps)
    ctx.save_for_kernel(xhat, invstd)
    return out


def batch_norm_kept_backward(ctx: BackwardNode, grad: Array) -> Gradients:
    """BatchNorm's backward on the kept xhat and invstd."""
    xhat, invstd = ctx.kernel_saved
    return batch_norm_gradients(ctx, grad, ctx.saved_tensors[1], xhat, invstd)


LAYER_NORM = register(LayerNorm, applies=_float_numpy, forward=layer_norm_blas, backward=layer_norm_blas_backward)
BATCH_NORM = register(BatchNorm, applies=_float_numpy, forward=batch_norm_kept, backward=batch_norm_kept_backward)
