"""Scaled dot-product attention as one fused op: softmax(q k^T * scale + mask) v.

Forward, for queries q (..., L, E), keys k (..., S, E) and values v (..., S, Ev):

    scores = q @ k^T * scale (+ a float mask, or -inf where a bool mask is False)
    p      = softmax(scores) over the keys (the last dim)
    out    = p @ v

Backward is the chain rule through those three lines, written out (``g`` = grad of out):

    grad_v = p^T @ g
    grad_p = g @ v^T
    grad_s = p * (grad_p - sum(grad_p * p))          (softmax's backward, row by row)
    grad_q = grad_s @ k * scale,   grad_k = grad_s^T @ q * scale,   grad_mask = grad_s

One node instead of six. It keeps only its inputs for backward, which computes ``p`` again
from them. A query row whose keys are all masked gives zeros (PyTorch's "safe softmax"),
not NaN. (The CPU's fast kernel, ``minitorch/kernels/cpu/attention.py``, keeps ``p`` instead,
and works in place.)
"""

from __future__ import annotations

import math
from typing import Any

from minitorch import backends
from minitorch.autograd.function import BackwardNode, Function
from minitorch.dtypes import float32
from minitorch.errors import MiniTorchError
from minitorch.functions.activations import softmax
from minitorch.functions.arithmetic import add, mul, unbroadcast
from minitorch.functions.autocast_policy import to_low_precision
from minitorch.functions.conversion import cast
from minitorch.functions.dropout import dropout
from minitorch.functions.elementwise_logic import logical_not
from minitorch.functions.linalg import matmul
from minitorch.functions.masking import masked_fill
from minitorch.functions.shape import transpose
from minitorch.hints import Array, Gradients
from minitorch.tensor_base import T, TensorBase


def swap(a: Array) -> Array:
    """The last two dims swapped (a view): k^T for each batch entry."""
    return a.swapaxes(-1, -2)


def attention_weights(xp: Any, q: Array, k: Array, mask: Array | None, scale: float) -> Array:
    """p = softmax(q @ k^T * scale + mask) over the keys; a row with every key masked gives zeros."""
    scores = q @ swap(k) * scale
    if mask is not None:
        scores = xp.where(mask, scores, -xp.inf) if mask.dtype.kind == "b" else scores + mask
    if scores.shape[-1] == 0:  # no keys (S = 0): nothing to weigh (max() of nothing would raise)
        return scores
    top = scores.max(axis=-1, keepdims=True)
    e = xp.exp(scores - xp.where(xp.isneginf(top), 0, top))  # an all-masked row: exp(-inf) = 0
    total = e.sum(axis=-1, keepdims=True)
    return e / xp.where(total == 0, 1, total)  # all-masked rows stay 0 (not 0/0 = NaN)


class ScaledDotProductAttention(Function):
    """softmax(q @ k^T * scale + mask) @ v over the last two dims, batch dims broadcast."""

    @staticmethod
    def forward(ctx: BackwardNode, q: Array, k: Array, v: Array, mask: Array | None, scale: float) -> Array:
        ctx.scale = scale
        ctx.save_for_backward(q, k, v, mask)
        return attention_weights(ctx.xp, q, k, mask, scale) @ v

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        q, k, v, mask = ctx.saved_tensors
        need_q, need_k, need_v, need_mask = ctx.needs_input_grad[:4]
        p = attention_weights(ctx.xp, q, k, mask, ctx.scale)
        grad_p = grad @ swap(v)
        grad_s = p * (grad_p - (grad_p * p).sum(axis=-1, keepdims=True))
        grad_q = unbroadcast(grad_s @ k * ctx.scale, q.shape) if need_q else None
        grad_k = unbroadcast(swap(grad_s) @ q * ctx.scale, k.shape) if need_k else None
        grad_v = unbroadcast(swap(p) @ grad, v.shape) if need_v else None
        grad_mask = unbroadcast(grad_s, mask.shape) if need_mask else None  # scores + mask: grad_s itself
        return grad_q, grad_k, grad_v, grad_mask, None


def scaled_dot_product_attention(
    query: T,
    key: T,
    value: T,
    attn_mask: T | None = None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    scale: float | None = None,
) -> T:
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
    # a Python float: it keeps the queries' dtype (a NumPy float64 would promote float32 to float64)
    scale = 1 / math.sqrt(query.shape[-1]) if scale is None else float(scale)
    if dropout_p != 0.0:
        return _attention_with_dropout(query, key, value, attn_mask, float(dropout_p), scale)
    return ScaledDotProductAttention.apply(query, key, value, attn_mask, scale)


def _attention_with_dropout(
    query: T, key: T, value: T, attn_mask: T | None, dropout_p: float, scale: float
) -> T:
    """``dropout(softmax(q @ k^T * scale + mask)) @ v`` from ordinary ops, as PyTorch's reference math.

    Dropout zeroes attention *weights* (each with probability ``dropout_p``, the rest scaled
    by 1 / (1 - p)), so the fused op, which keeps only the weights for backward, is not
    used here. As in PyTorch, ``dropout_p`` applies whatever the mode: pass 0.0 when evaluating.
    """
    scores = mul(matmul(query, transpose(key, -2, -1)), scale)
    if attn_mask is not None:
        if attn_mask.data.dtype.kind == "b":  # True where attention is allowed
            scores = masked_fill(scores, logical_not(attn_mask), float("-inf"))
        else:
            scores = add(scores, attn_mask)
    return matmul(dropout(softmax(scores, -1), dropout_p, True), value)
