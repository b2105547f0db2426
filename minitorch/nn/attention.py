"""``MultiheadAttention``, with PyTorch's parameters and calling convention.

The queries, keys and values are projected by one stacked weight ``in_proj_weight``
(3E, E) (rows: q, then k, then v) and ``in_proj_bias``, split into ``num_heads`` heads of
E / num_heads features, attended per head, joined and projected by ``out_proj``.
Masks follow ``torch.nn.MultiheadAttention``: a bool ``attn_mask`` or ``key_padding_mask``
is True where attention is NOT allowed; a float one is added to the scores.
"""

from __future__ import annotations

import math

from minitorch import factories
from minitorch.errors import MiniTorchError
from minitorch.functions.masking import masked_fill
from minitorch.nn import functional as F
from minitorch.nn import init
from minitorch.nn.layers import Linear, _empty, _size
from minitorch.nn.module import Module, Parameter
from minitorch.tensor import Tensor


def _as_additive(mask: Tensor, dtype: object, name: str) -> Tensor:
    """A mask to add to the scores: bool True (not allowed) becomes -inf, False 0.

    A float mask is added as it is, so it must have the scores' dtype (as in PyTorch).
    """
    if mask.data.dtype.kind == "b":
        return masked_fill(factories.zeros(*mask.shape, dtype=dtype, device=mask.device), mask, float("-inf"))
    if mask.dtype != dtype:
        raise MiniTorchError(
            f"MultiheadAttention: {name} must be bool or have the input's dtype {dtype}, got {mask.dtype}"
        )
    return mask


class MultiheadAttention(Module):
    """Attention with ``num_heads`` heads over (L, N, E) inputs, or (N, L, E) with ``batch_first``."""

    _tensor_input = True

    def __init__(
        self,
        embed_dim: int,
        num_heads: int,
        dropout: float = 0.0,
        bias: bool = True,
        add_bias_kv: bool = False,
        add_zero_attn: bool = False,
        kdim: int | None = None,
        vdim: int | None = None,
        batch_first: bool = False,
    ) -> None:
        super().__init__()
        # PyTorch's argument order; its options for other key/value sizes at their defaults only.
        if add_bias_kv or add_zero_attn or kdim not in (None, embed_dim) or vdim not in (None, embed_dim):
            raise MiniTorchError(
                f"MultiheadAttention: add_bias_kv={add_bias_kv}, add_zero_attn={add_zero_attn}, kdim={kdim}, "
                f"vdim={vdim}: MiniTorch supports only the defaults (keys and values of size embed_dim)"
            )
        self.embed_dim = _size("MultiheadAttention", "embed_dim", embed_dim, low=1)
        self.num_heads = _size("MultiheadAttention", "num_heads", num_heads, low=1)
        if embed_dim % num_heads:
            raise MiniTorchError(
                f"MultiheadAttention: embed_dim ({embed_dim}) must be divisible by num_heads ({num_heads})"
            )
        self.head_dim = embed_dim // num_heads
        self.dropout, self.batch_first = float(dropout), batch_first
        self.in_proj_weight = Parameter(_empty(3 * embed_dim, embed_dim))
        if bias:
            self.in_proj_bias = Parameter(_empty(3 * embed_dim))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = Linear(embed_dim, embed_dim, bias=bias)
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        """As PyTorch: Xavier-uniform in_proj_weight, zero biases (out_proj.weight keeps Linear's init)."""
        init.xavier_uniform_(self.in_proj_weight)
        if self.in_proj_bias is not None:
            init.zeros_(self.in_proj_bias)
            init.zeros_(self.out_proj.bias)

    def _project(self, query: Tensor, key: Tensor, value: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        """q, k, v = x W_q^T + b_q, ...: three products, each with its third of the stacked weight.

        Even for self-attention (query, key and value one tensor) three products beat one on
        the stacked weight cut into three: the thirds of one (N, L, 3E) output would be strided
        views, and each one's backward a zero (N, L, 3E) array with a third filled, three
        summed (the charlm transformer's step is faster with three: docs/benchmarks.md). The
        weight's thirds cost that only at its own, small, size.
        """
        w, b = self.in_proj_weight, self.in_proj_bias
        ws = w.chunk(3)
        bs = b.chunk(3) if b is not None else (None, None, None)
        return F.linear(query, ws[0], bs[0]), F.linear(key, ws[1], bs[1]), F.linear(value, ws[2], bs[2])

    def _mask(self, attn_mask: Tensor | None, key_padding_mask: Tensor | None, N: int, L: int, S: int,
              dtype: object) -> Tensor | None:  # fmt: skip
        """Both masks merged into one additive mask broadcastable to (N, heads, L, S)."""
        mask = None
        if attn_mask is not None:
            if tuple(attn_mask.shape) not in ((L, S), (N * self.num_heads, L, S)):
                raise MiniTorchError(
                    f"MultiheadAttention: attn_mask should be ({L}, {S}) or (N * num_heads, L, S) = "
                    f"({N * self.num_heads}, {L}, {S}), got {tuple(attn_mask.shape)}"
                )
            mask = _as_additive(attn_mask, dtype, "attn_mask")
            if mask.ndim == 3:  # (N * heads, L, S)
                mask = mask.reshape(N, self.num_heads, L, S)
        if key_padding_mask is not None:
            if tuple(key_padding_mask.shape) != (N, S):
                raise MiniTorchError(
                    f"MultiheadAttention: key_padding_mask should be ({N}, {S}), got {tuple(key_padding_mask.shape)}"
                )
            pad = _as_additive(key_padding_mask, dtype, "key_padding_mask").reshape(N, 1, 1, S)
            mask = pad if mask is None else mask + pad
        return mask

    def forward(
        self,
        query: Tensor,
        key: Tensor,
        value: Tensor,
        key_padding_mask: Tensor | None = None,
        need_weights: bool = True,
        attn_mask: Tensor | None = None,
        average_attn_weights: bool = True,
        is_causal: bool = False,
    ) -> tuple[Tensor, Tensor | None]:
        """(attention output, attention weights (N, L, S) averaged over heads, or None)."""
        if is_causal and attn_mask is None:
            raise MiniTorchError("MultiheadAttention: is_causal is a hint; pass the causal attn_mask as well")
        batched = query.ndim == 3
        if query.ndim not in (2, 3) or key.ndim != query.ndim or value.ndim != query.ndim:
            raise MiniTorchError(
                f"MultiheadAttention: query, key and value must all be batched (3-D) or all unbatched (2-D), "
                f"got shapes {tuple(query.shape)}, {tuple(key.shape)} and {tuple(value.shape)}"
            )
        shapes = f"query {tuple(query.shape)}, key {tuple(key.shape)} and value {tuple(value.shape)}"
        if any(t.shape[-1] != self.embed_dim for t in (query, key, value)):
            raise MiniTorchError(f"MultiheadAttention: expected embed_dim {self.embed_dim} in all three, got {shapes}")
        batch_dim = 0 if self.batch_first else 1
        if key.shape != value.shape or (batched and key.shape[batch_dim] != query.shape[batch_dim]):
            raise MiniTorchError(
                f"MultiheadAttention: key and value must have one shape, and the query's batch size; got {shapes}"
            )
        if not batched:  # one unbatched sequence (L, E)
            query, key, value = (t.unsqueeze(0 if self.batch_first else 1) for t in (query, key, value))
            if key_padding_mask is not None:
                key_padding_mask = key_padding_mask.unsqueeze(0)
        same_kv, same_qkv = key is value, query is key and key is value
        if not self.batch_first:  # work batch first: (N, L, E)
            query = query.transpose(0, 1)
            key = query if same_qkv else key.transpose(0, 1)
            value = key if same_kv else value.transpose(0, 1)
        N, L, E = query.shape
        S = key.shape[1]
        q, k, v = self._project(query, key, value)
        h, d = self.num_heads, self.head_dim
        # (N, L, E) -> (N, heads, L, head_dim): each head attends on its own slice of features.
        q, k, v = (t.reshape(N, t.shape[1], h, d).transpose(1, 2) for t in (q, k, v))  # (no -1: N may be 0)
        mask = self._mask(attn_mask, key_padding_mask, N, L, S, q.dtype)
        weights = None
        if need_weights or (self.dropout > 0 and self.training):
            scores = q @ k.transpose(-2, -1) * (1 / math.sqrt(d))
            if mask is not None:
                scores = scores + mask
            weights = scores.softmax(-1)
            if self.dropout > 0 and self.training:
                weights = F.dropout(weights, self.dropout, True)
            out = weights @ v
        else:  # the fused op: one node, and only the weights kept for backward
            out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        out = self.out_proj(out.transpose(1, 2).reshape(N, L, E))
        if not self.batch_first:
            out = out.transpose(0, 1)
        if not batched:
            out = out.squeeze(0 if self.batch_first else 1)
        if not need_weights or weights is None:
            return out, None
        if average_attn_weights:
            weights = weights.mean(dim=1)
        return out, (weights if batched else weights.squeeze(0))

    def extra_repr(self) -> str:
        return f"embed_dim={self.embed_dim}, num_heads={self.num_heads}, batch_first={self.batch_first}"
