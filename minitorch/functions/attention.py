"""Scaled dot-product attention as one fused op: softmax(q k^T * scale + mask) v.

Forward, for queries q (..., L, E), keys k (..., S, E) and values v (..., S, Ev):

    scores = q @ k^T * scale (+ a float mask, or -inf where a bool mask is False)
    p      = softmax(scores) over the keys (the last dim)
    out    = p @ v

Backward is the chain rule through those three lines, written out (``g`` = grad of out):

    grad_v = p^T @ g
    grad_p = g @ v^T
    grad_s = p * (grad_p - sum(grad_p * p))          (softmax's backward, row by row)
    grad_q = grad_s @ k * scale,   grad_k = grad_s^T @ (q * scale)

(q is scaled before its product, not the scores after: q is half their size here.)

One node instead of six, and only ``p`` is kept for backward. A query row whose keys are
all masked gives zeros (PyTorch's "safe softmax"), not NaN.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from minitorch import backends
from minitorch.autograd.function import BackwardNode, Function
from minitorch.dtypes import float32
from minitorch.errors import MiniTorchError
from minitorch.functions.arithmetic import unbroadcast
from minitorch.functions.autocast_policy import to_low_precision
from minitorch.functions.conversion import cast
from minitorch.functions.dropout import dropout
from minitorch.functions.linalg import sum_rows
from minitorch.functions.masking import masked_fill
from minitorch.hints import Array, Gradients
from minitorch.tensor_base import TensorBase

if TYPE_CHECKING:  # the face, for annotations only: never imported at run time (no cycle)
    from minitorch.tensor import Tensor


def _swap(a: Array) -> Array:
    """The last two dims swapped (a view): k^T for each batch entry."""
    return a.swapaxes(-1, -2)


def _row_max(xp: Any, scores: Array) -> Array:
    """The max of each row of ``scores`` (over the last dim, kept as a dim of 1).

    On the CPU, NumPy reduces short rows (64 keys) one at a time; comparing the two halves of
    every row at once, then the halves of those, is 1.5x faster and gives the same maxima
    (a max does not depend on the order of comparisons; NaN wins either way)."""
    if xp is not np:
        return scores.max(axis=-1, keepdims=True)
    top = scores
    while top.shape[-1] > 1:
        half = top.shape[-1] // 2
        folded = np.maximum(top[..., :half], top[..., half : 2 * half])
        if top.shape[-1] % 2:  # an odd one out joins the first column
            np.maximum(folded[..., :1], top[..., -1:], out=folded[..., :1])
        top = folded
    return top


def _softmax_backward(xp: Any, p: Array, grad_p: Array) -> Array:
    """grad_s = p * (grad_p - sum(grad_p * p)) row by row, as p * grad_p - p * sum, in the
    two arrays it is given and makes (``grad_p`` is overwritten)."""
    grad_s = grad_p * p
    total = sum_rows(grad_s)
    grad_s -= xp.multiply(p, total, out=grad_p)
    return grad_s


class ScaledDotProductAttention(Function):
    """softmax(q @ k^T * scale + mask) @ v over the last two dims, batch dims broadcast."""

    @staticmethod
    def forward(ctx: BackwardNode, q: Array, k: Array, v: Array, mask: Array | None, scale: float) -> Array:
        xp = ctx.xp
        q_scaled = q * q.dtype.type(scale)  # (q is half the size of the scores: half a pass; in its dtype)
        scores = q_scaled @ _swap(k)
        if mask is not None:
            if mask.dtype.kind == "b":
                scores = xp.where(mask, scores, scores.dtype.type(-xp.inf))
            elif mask.dtype == scores.dtype and xp.broadcast_shapes(scores.shape, mask.shape) == scores.shape:
                scores += mask  # in place in the fresh scores: one 2 MB temporary fewer on charlm's shapes
            else:
                scores = scores + mask
        if scores.shape[-1] == 0:  # no keys (S = 0): the output is zeros, as in PyTorch
            top = xp.zeros(scores.shape[:-1] + (1,), dtype=scores.dtype)
        else:
            top = _row_max(xp, scores)
        top = xp.where(xp.isneginf(top), 0, top)  # an all-masked row: exp(-inf) = 0 below
        scores -= top  # (scores is a fresh array: updated in place, no temporaries)
        p = xp.exp(scores, out=scores)
        total = sum_rows(p)  # (a BLAS product with ones: faster than NumPy's short-row sums)
        p /= xp.where(total == 0, 1, total)  # all-masked rows stay 0 (not 0/0 = NaN)
        ctx.scale, ctx.shapes = scale, (q.shape, k.shape, v.shape, None if mask is None else mask.shape)
        ctx.save_for_backward(q_scaled, k, v, p)
        return p @ v

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        q_scaled, k, v, p = ctx.saved_tensors
        q_shape, k_shape, v_shape, mask_shape = ctx.shapes
        need_q, need_k, need_v, need_mask = ctx.needs_input_grad[:4]
        grad_v = unbroadcast(_swap(p) @ grad, v_shape) if need_v else None
        grad_q = grad_k = grad_mask = None
        if need_q or need_k or need_mask:
            grad_s = _softmax_backward(ctx.xp, p, grad @ _swap(v))
            if need_mask:  # the mask is added to the scaled scores: its gradient is grad_s itself
                grad_mask = unbroadcast(grad_s, mask_shape)
            if need_q:  # scores = (q * scale) @ k^T
                grad_q = grad_s @ k
                grad_q *= ctx.scale
                grad_q = unbroadcast(grad_q, q_shape)
            grad_k = unbroadcast(_swap(grad_s) @ q_scaled, k_shape) if need_k else None
        return grad_q, grad_k, grad_v, grad_mask, None


def scaled_dot_product_attention(
    query: TensorBase,
    key: TensorBase,
    value: TensorBase,
    attn_mask: TensorBase | None = None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    scale: float | None = None,
) -> Tensor:
    """Attention of ``query`` (..., L, E) over ``key`` (..., S, E) and ``value`` (..., S, Ev), as PyTorch.

    ``attn_mask``: a bool mask is True where attention is allowed; a float mask is added to
    the scores. ``is_causal`` uses ``ones(L, S).tril()`` (query i sees keys 0..i).
    ``scale`` defaults to 1 / sqrt(E).
    """
    for name, t in (("query", query), ("key", key), ("value", value)):
        if not isinstance(t, TensorBase) or t.ndim < 2 or t.data.dtype.kind != "f":
            raise MiniTorchError(f"scaled_dot_product_attention: {name} must be a float tensor of at least 2 dims")
    # Inside autocast the whole attention runs in float16, as on PyTorch's CUDA list.
    query, key, value = to_low_precision(query, key, value)
    if query.dtype != key.dtype or query.dtype != value.dtype:
        raise MiniTorchError(
            f"scaled_dot_product_attention: query, key and value must have one dtype, got "
            f"{query.dtype}, {key.dtype} and {value.dtype}"
        )
    if query.shape[-1] != key.shape[-1] or key.shape[-2] != value.shape[-2]:
        raise MiniTorchError(
            f"scaled_dot_product_attention: query (..., L, E) {tuple(query.shape)}, key (..., S, E) "
            f"{tuple(key.shape)} and value (..., S, Ev) {tuple(value.shape)} do not fit together"
        )
    L, S = query.shape[-2], key.shape[-2]
    if is_causal:
        if attn_mask is not None:
            raise MiniTorchError("scaled_dot_product_attention: pass either attn_mask or is_causal=True, not both")
        xp = backends.module_of(query.data)
        attn_mask = TensorBase._make(xp.tril(xp.ones((L, S), dtype=bool)), None, False)
    if attn_mask is not None and attn_mask.data.dtype.kind != "b" and attn_mask.dtype != query.dtype:
        # As PyTorch: a float mask is bool, float32 or the query's dtype (a float64 mask
        # for float32 queries, or an integer one, is a mistake, not something to round).
        if attn_mask.dtype != float32:
            raise MiniTorchError(
                f"scaled_dot_product_attention: attn_mask must be bool, float32 or the query's dtype "
                f"({query.dtype}), got {attn_mask.dtype}"
            )
        attn_mask = cast(attn_mask, query.dtype)
    scale = 1 / math.sqrt(query.shape[-1]) if scale is None else scale
    if dropout_p != 0.0:
        return _attention_with_dropout(query, key, value, attn_mask, float(dropout_p), scale)
    return ScaledDotProductAttention.apply(query, key, value, attn_mask, scale)


def _attention_with_dropout(
    query: TensorBase, key: TensorBase, value: TensorBase, attn_mask: TensorBase | None, dropout_p: float, scale: float
) -> Tensor:
    """``dropout(softmax(q @ k^T * scale + mask)) @ v`` from ordinary ops, as PyTorch's reference math.

    Dropout zeroes attention *weights* (each with probability ``dropout_p``, the rest scaled
    by 1 / (1 - p)), so the fused op, which keeps only the weights for backward, is not
    used here. As in PyTorch, ``dropout_p`` applies whatever the mode: pass 0.0 when evaluating.
    """
    scores = (query @ key.transpose(-2, -1)) * scale
    if attn_mask is not None:
        if attn_mask.data.dtype.kind == "b":  # True where attention is allowed
            scores = masked_fill(scores, ~attn_mask, float("-inf"))
        else:
            scores = scores + attn_mask
    return dropout(scores.softmax(-1), dropout_p, True) @ value
