"""``Linear``'s fast kernel: the op's products as single BLAS calls, its bias gradient as one.

- ``x @ W^T`` on a batch of sequences (N, L, in) is one (N*L, in) @ (in, out) product
  (``products.stacked_product``), and so is ``grad_x = g @ W``: NumPy would run one BLAS call
  per sequence, slower still with the transposed weight view.
- The bias is added into the fresh product in place: no second output-sized array.
- ``grad_b``, the column sums of g, is ``ones @ g`` (``blas_sums.sum_leading``): NumPy sums
  the columns of a short batch walking the array far slower than one matrix-vector product.

The compiled step writes these same calls out on its buffers (``jit/kernels.py``'s
``linear``): change one, change the other, or the compiled step stops being bit-identical.
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


def linear_blas(ctx: BackwardNode, x: Array, weight: Array, bias: Array | None) -> Array:
    """x @ W^T (one product for a stack of rows), plus b in place."""
    ctx.save_for_backward(x, weight)
    out = stacked_product(x, weight.T)
    if bias is not None:
        out += bias  # ``out`` is a fresh array: adding in place saves a temporary
    return out


def linear_blas_backward(ctx: BackwardNode, grad: Array) -> Gradients:
    """grad_x = g @ W, grad_W = g^T @ x over all rows, grad_b = ones @ g."""
    x, weight = ctx.saved_tensors
    need_x, need_w, need_b = ctx.needs_input_grad
    grad_x = stacked_product(grad, weight) if need_x else None
    grad_w = grad_b = None
    if need_w or need_b:
        g2 = grad if grad.ndim == 2 else rows_of(grad)  # leading dims count as more rows
        if need_w:
            grad_w = g2.T @ (x if x.ndim == 2 else rows_of(x))
        if need_b:
            grad_b = sum_leading(g2)
    return grad_x, grad_w, grad_b


BLAS = register(Linear, applies=_float_numpy, forward=linear_blas, backward=linear_blas_backward)
