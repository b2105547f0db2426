"""``ScaledDotProductAttention``'s fast kernel on NumPy: the weights kept, the work in place.

What the op computes (``functions/attention.py``), with four savings:

- **p is kept** for backward (``save_for_kernel``) instead of computed again from q, k and
  the mask: backward then skips a product and a softmax.
- **q is scaled before its product**, not the scores after: q (..., L, E) is smaller than
  the scores (..., L, S) when the head size E is below the number of keys S, so the scaling
  pass is shorter (and the scaled q is kept for grad_k's product).
- **The row max by halving**: NumPy reduces a short last axis (64 keys) one row at a time;
  comparing the two halves of every row at once, then the halves of those, runs as a few
  whole-array ``maximum`` calls and gives the same maxima (a max does not depend on the order
  of comparisons; NaN wins either way).
- **In place**: the mask is added into the fresh scores, the max subtracted and the exp
  taken in that one array, which becomes p; the row sums are BLAS products
  (``blas_sums.sum_rows``); softmax's backward reuses the array of grad_p.
"""

from __future__ import annotations

import numpy as np

from minitorch.autograd.function import BackwardNode
from minitorch.functions.arithmetic import unbroadcast
from minitorch.functions.attention import ScaledDotProductAttention, swap
from minitorch.hints import Array, Gradients
from minitorch.kernels.cpu.blas_sums import sum_rows
from minitorch.kernels.registry import register

FLOATS = (np.float32, np.float64)


def _float_numpy(q: Array, k: Array, v: Array, mask: Array | None, scale: float) -> bool:
    """float32/64 NumPy queries (the op checked that keys and values share their dtype)."""
    return type(q) is np.ndarray and q.dtype in FLOATS and type(k) is np.ndarray and type(v) is np.ndarray


def row_max(scores: Array) -> Array:
    """The max of each row of ``scores`` (over the last dim, kept as a dim of 1), by halving."""
    top = scores
    while top.shape[-1] > 1:
        half = top.shape[-1] // 2
        folded = np.maximum(top[..., :half], top[..., half : 2 * half])
        if top.shape[-1] % 2:  # an odd one out joins the first column
            np.maximum(folded[..., :1], top[..., -1:], out=folded[..., :1])
        top = folded
    return top


def attention_in_place(ctx: BackwardNode, q: Array, k: Array, v: Array, mask: Array | None, scale: float) -> Array:
    """softmax(q * scale @ k^T + mask) @ v, the scores turned into p in their own array."""
    q_scaled = q * q.dtype.type(scale)
    scores = q_scaled @ swap(k)
    if mask is not None:
        if mask.dtype.kind == "b":
            scores = np.where(mask, scores, scores.dtype.type(-np.inf))
        elif mask.dtype == scores.dtype and np.broadcast_shapes(scores.shape, mask.shape) == scores.shape:
            scores += mask  # into the fresh scores: one scores-sized temporary fewer
        else:
            scores = scores + mask
    if scores.shape[-1] == 0:  # no keys (S = 0): the output is zeros, as in PyTorch
        top = np.zeros(scores.shape[:-1] + (1,), dtype=scores.dtype)
    else:
        top = row_max(scores)
    top = np.where(np.isneginf(top), 0, top)  # an all-masked row: exp(-inf) = 0 below
    scores -= top
    p = np.exp(scores, out=scores)
    total = sum_rows(p)
    p /= np.where(total == 0, 1, total)  # all-masked rows stay 0 (not 0/0 = NaN)
    ctx.scale = scale
    ctx.save_for_backward(q, k, v, mask)
    ctx.save_for_kernel(q_scaled, p)
    return p @ v


def attention_in_place_backward(ctx: BackwardNode, grad: Array) -> Gradients:
    """The op's backward on the kept p and scaled q, softmax's backward in grad_p's array."""
    q, k, v, mask = ctx.saved_tensors
    q_scaled, p = ctx.kernel_saved
    need_q, need_k, need_v, need_mask = ctx.needs_input_grad[:4]
    grad_v = unbroadcast(swap(p) @ grad, v.shape) if need_v else None
    grad_q = grad_k = grad_mask = None
    if need_q or need_k or need_mask:
        grad_p = grad @ swap(v)
        # grad_s = p * (grad_p - sum(grad_p * p)) = p * grad_p - p * sum, grad_p's array reused
        grad_s = grad_p * p
        total = sum_rows(grad_s)
        grad_s -= np.multiply(p, total, out=grad_p)
        if need_mask:  # the mask is added to the scaled scores: its gradient is grad_s itself
            grad_mask = unbroadcast(grad_s, mask.shape)
        if need_q:  # scores = (q * scale) @ k^T
            grad_q = grad_s @ k
            grad_q *= ctx.scale
            grad_q = unbroadcast(grad_q, q.shape)
        grad_k = unbroadcast(swap(grad_s) @ q_scaled, k.shape) if need_k else None
    return grad_q, grad_k, grad_v, grad_mask, None


IN_PLACE = register(
    ScaledDotProductAttention,
    applies=_float_numpy,
    forward=attention_in_place,
    backward=attention_in_place_backward,
)
