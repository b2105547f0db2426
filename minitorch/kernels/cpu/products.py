"""Matrix products on a stack of matrices as one product: ``MatMul``'s fast kernel.

A stack of matrices times one matrix, ``a (..., n, k) @ b (k, m)`` (a layer applied to a
batch of sequences), is what NumPy's ``matmul`` runs as one BLAS call per matrix of the
stack: many small products, each with its own set-up, and slower still when ``b`` is a
transposed view (a weight's ``.T``). Seen as one ``(rows, k)`` matrix (a C-contiguous stack
is one already: a reshape, no copy), it is a single product. Backward gains the same way:
``grad_a = g @ b^T`` is again a stack times one matrix, and ``grad_b = a^T @ g``, which the op
computes as one product per matrix of the stack and then sums over the stack, is one
product of the two flattened stacks, ``(rows, k)^T @ (rows, m)``.
"""

from __future__ import annotations

import math

import numpy as np

from minitorch.autograd.function import BackwardNode
from minitorch.functions.linalg import MatMul
from minitorch.hints import Array, Gradients
from minitorch.kernels.registry import register

FLOATS = (np.float32, np.float64)


def stacked_product(a: Array, b: Array, out: Array | None = None) -> Array:
    """``a @ b`` for NumPy arrays; a C-contiguous stack ``a`` (more than 2 dims) times a matrix
    ``b`` as one (rows, k) @ (k, m) product. float16 is the op's (``linalg.product``), not here.

    ``out``: an array of the product's shape to write it into (a compiled step's buffer), C-contiguous.
    """
    if a.ndim > 2 and b.ndim == 2 and a.flags.c_contiguous:
        rows = math.prod(a.shape[:-1])
        if out is not None and not out.flags.c_contiguous:  # its reshape would be a copy, written in vain
            raise ValueError(f"stacked_product: out must be C-contiguous, got strides {out.strides}")
        flat = None if out is None else out.reshape(rows, b.shape[1])
        product = np.matmul(a.reshape(rows, a.shape[-1]), b, out=flat)
        return product.reshape(*a.shape[:-1], b.shape[1]) if out is None else out
    return np.matmul(a, b, out=out)


def rows_of(a: Array) -> Array:
    """``a`` as a matrix of its last dim: (..., m) -> (rows, m) (a view where a is contiguous)."""
    return a.reshape(math.prod(a.shape[:-1]), a.shape[-1])


def _stack_times_matrix(a: Array, b: Array) -> bool:
    """A C-contiguous float32/64 NumPy stack of matrices times one matrix of its dtype."""
    return (
        type(a) is np.ndarray
        and a.ndim > 2
        and b.ndim == 2
        and a.dtype in FLOATS
        and a.dtype == b.dtype
        and type(b) is np.ndarray
        and a.flags.c_contiguous
    )


def matmul_stacked(ctx: BackwardNode, a: Array, b: Array) -> Array:
    """MatMul's forward for a stack times a matrix: one product."""
    ctx.save_for_backward(a, b)
    return stacked_product(a, b)


def matmul_stacked_backward(ctx: BackwardNode, grad: Array) -> Gradients:
    """grad_a = g @ b^T and grad_b = a^T @ g (summed over the stack), each as one product."""
    a, b = ctx.saved_tensors
    need_a, need_b = ctx.needs_input_grad
    grad_a = stacked_product(grad, b.T) if need_a else None
    grad_b = rows_of(a).T @ rows_of(grad) if need_b else None
    return grad_a, grad_b


STACKED = register(MatMul, applies=_stack_times_matrix, forward=matmul_stacked, backward=matmul_stacked_backward)
