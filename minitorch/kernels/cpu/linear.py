"""``Linear``'s fast kernel: the op's products as single BLAS calls, its bias gradient as one.

- ``x @ W^T`` on a batch of sequences (N, L, in) is one (N*L, in) @ (in, out) product
  (``products.stacked_product``), and so is ``grad_x = g @ W``: NumPy would run one BLAS call
  per sequence, slower still with the transposed weight view.
- The bias is added into the fresh product in place: no second output-sized array.
- ``grad_b``, the column sums of g, is ``ones @ g`` (``blas_sums.sum_leading``): NumPy sums
  the columns of a short batch walking the array far slower than one matrix-vector product.

Each step is a function that takes the arrays to write into (``out=``, ``ones=``): eager
calls them without (new arrays), a compiled step (``minitorch.compile``, ``jit/kernels.py``)
with the buffers it made once. The very same calls, so the compiled step gives eager's bits.
"""

from __future__ import annotations

import numpy as np

from minitorch.autograd.function import BackwardNode
from minitorch.functions.fused import Linear
from minitorch.hints import Array, Gradients
from minitorch.kernels.cpu.blas_sums import sum_leading
from minitorch.kernels.cpu.products import rows_of, stacked_product
from minitorch.kernels.registry import register

FLOATS = (np.float32, np.float64)


def _float_numpy(x: Array, weight: Array, bias: Array | None) -> bool:
    """float32/64 NumPy arrays, all of one dtype (float16 stays with the op: it widens its products)."""
    dtype = x.dtype
    return (
        type(x) is np.ndarray
        and dtype in FLOATS
        and type(weight) is np.ndarray
        and weight.dtype == dtype
        and (bias is None or (type(bias) is np.ndarray and bias.dtype == dtype))
    )


def linear_forward(x: Array, weight: Array, bias: Array | None, out: Array | None = None) -> Array:
    """x @ W^T (one product for a stack of rows), plus b in place (into ``out`` if given)."""
    out = stacked_product(x, weight.T, out=out)
    if bias is not None:
        np.add(out, bias, out=out)  # ``out`` is a fresh array or a buffer: adding in place saves a temporary
    return out


def linear_grad_x(grad: Array, weight: Array, out: Array | None = None) -> Array:
    """grad_x = g @ W (one product for a stack of rows)."""
    return stacked_product(grad, weight, out=out)


def linear_grad_weight(grad: Array, x: Array, out: Array | None = None) -> Array:
    """grad_W = g^T @ x over all rows (leading dims count as more rows)."""
    g2 = grad if grad.ndim == 2 else rows_of(grad)
    return np.matmul(g2.T, x if x.ndim == 2 else rows_of(x), out=out)


def linear_grad_bias(grad: Array, ones: Array | None = None, out: Array | None = None) -> Array:
    """grad_b = ones @ g over all rows (``blas_sums.sum_leading``; ``ones``: that vector, if kept)."""
    return sum_leading(grad if grad.ndim == 2 else rows_of(grad), ones=ones, out=out)


def linear_blas(ctx: BackwardNode, x: Array, weight: Array, bias: Array | None) -> Array:
    """The op's forward: ``linear_forward``."""
    ctx.save_for_backward(x, weight)
    return linear_forward(x, weight, bias)


def linear_blas_backward(ctx: BackwardNode, grad: Array) -> Gradients:
    """The gradients the op's backward asks for, each one function above."""
    x, weight = ctx.saved_tensors
    need_x, need_w, need_b = ctx.needs_input_grad
    grad_x = linear_grad_x(grad, weight) if need_x else None
    grad_w = linear_grad_weight(grad, x) if need_w else None
    grad_b = linear_grad_bias(grad) if need_b else None
    return grad_x, grad_w, grad_b


BLAS = register(Linear, applies=_float_numpy, forward=linear_blas, backward=linear_blas_backward)
