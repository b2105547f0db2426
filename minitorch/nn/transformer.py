"""``nn.Transformer`` and its parts, with PyTorch's parameters, names and calling convention.

An encoder layer is self-attention then a two-layer feed-forward network, each wrapped in a
residual connection and a LayerNorm: after the sum (``norm_first=False``, the 2017 paper)
or before the sublayer (``norm_first=True``, as most GPTs do). A decoder layer adds
attention over the encoder's output ("memory") between the two. ``TransformerEncoder`` /
``TransformerDecoder`` stack ``num_layers`` copies of a layer (deep copies: each starts with
the same weights), and ``Transformer`` is an encoder and a decoder, each with a final norm.

The parameter names are PyTorch's (``encoder.layers.0.self_attn.in_proj_weight`` ...), so a
``state_dict`` saved by PyTorch loads unchanged and gives the same outputs.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from minitorch import factories
from minitorch.errors import MiniTorchError
from minitorch.nn import functional as F
from minitorch.nn import init
from minitorch.nn.attention import MultiheadAttention
from minitorch.nn.containers import ModuleList
from minitorch.nn.layers import Dropout, Linear
from minitorch.nn.module import Module
from minitorch.nn.sequence import LayerNorm
from minitorch.tensor import Tensor


def _activation(activation: str | Callable[[Tensor], Tensor]) -> Callable[[Tensor], Tensor]:
    """``"relu"`` / ``"gelu"`` as the functions, a callable (``F.gelu``, a module) as it is."""
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    if callable(activation):
        return activation
    raise MiniTorchError(f"activation should be relu/gelu, not {activation}")


class _SharedBlocks:
    """The sublayers both layer kinds have, as PyTorch names them: self-attention (``_sa_block``)
    and the feed-forward network, linear2(dropout(activation(linear1(x)))) (``_ff_block``)."""

    self_attn: MultiheadAttention
    dropout1: Dropout
    linear1: Linear
    linear2: Linear
    dropout: Dropout
    activation: Callable[[Tensor], Tensor]

    def _sa_block(self, x: Tensor, attn_mask: Tensor | None, key_padding_mask: Tensor | None,
                  is_causal: bool) -> Tensor:  # fmt: skip
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False,
                           is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff_block(self, x: Tensor, dropout: Dropout) -> Tensor:
        return dropout(self.linear2(self.dropout(self.activation(self.linear1(x)))))


class TransformerEncoderLayer(Module, _SharedBlocks):
    """Self-attention and a feed-forward network, each with a residual connection and a LayerNorm."""

    _tensor_input = True

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: Any = "relu", layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.activation = _activation(activation)
        if device is not None or dtype is not None:
            self.to(device=device, dtype=dtype)

    def forward(self, src: Tensor, src_mask: Tensor | None = None, src_key_padding_mask: Tensor | None = None,
                is_causal: bool = False) -> Tensor:  # fmt: skip
        """The layer on ``src`` of shape (S, N, E), or (N, S, E) with ``batch_first``."""
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            return x + self._ff_block(self.norm2(x), self.dropout2)
        x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
        return self.norm2(x + self._ff_block(x, self.dropout2))


class TransformerDecoderLayer(Module, _SharedBlocks):
    """Self-attention, attention over the encoder's output, and a feed-forward network."""

    _tensor_input = True

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: Any = "relu", layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias)
        self.norm3 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.dropout3 = Dropout(dropout)
        self.activation = _activation(activation)
        if device is not None or dtype is not None:
            self.to(device=device, dtype=dtype)

    def _mha_block(self, x: Tensor, memory: Tensor, attn_mask: Tensor | None, key_padding_mask: Tensor | None,
                   is_causal: bool) -> Tensor:  # fmt: skip
        x = self.multihead_attn(x, memory, memory, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                                need_weights=False, is_causal=is_causal)[0]
        return self.dropout2(x)

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor | None = None, memory_mask: Tensor | None = None,
                tgt_key_padding_mask: Tensor | None = None, memory_key_padding_mask: Tensor | None = None,
                tgt_is_causal: bool = False, memory_is_causal: bool = False) -> Tensor:  # fmt: skip
        """The layer on ``tgt`` (T, N, E), attending over ``memory`` (S, N, E) (batch first with ``batch_first``)."""
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask, memory_key_padding_mask, memory_is_causal)
            return x + self._ff_block(self.norm3(x), self.dropout3)
        x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
        x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask, memory_is_causal))
        return self.norm3(x + self._ff_block(x, self.dropout3))


def _clones(layer: Module, num_layers: int) -> ModuleList:
    """``num_layers`` deep copies of ``layer`` (PyTorch's stacks start with identical weights too)."""
    return ModuleList([copy.deepcopy(layer) for _ in range(num_layers)])


class TransformerEncoder(Module):
    """``num_layers`` copies of an encoder layer, one after the other, and an optional final norm."""

    _tensor_input = True

    def __init__(self, encoder_layer: TransformerEncoderLayer, num_layers: int, norm: Module | None = None,
                 enable_nested_tensor: bool = True, mask_check: bool = True) -> None:  # fmt: skip
        super().__init__()
        self.layers = _clones(encoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, src: Tensor, mask: Tensor | None = None, src_key_padding_mask: Tensor | None = None,
                is_causal: bool | None = None) -> Tensor:  # fmt: skip
        """Every layer on ``src`` in turn, with the same masks; then the norm."""
        output = src
        for layer in self.layers:
            output = layer(output, src_mask=mask, is_causal=bool(is_causal), src_key_padding_mask=src_key_padding_mask)
        return self.norm(output) if self.norm is not None else output


class TransformerDecoder(Module):
    """``num_layers`` copies of a decoder layer, each attending over the same memory, and an optional norm."""

    _tensor_input = True

    def __init__(self, decoder_layer: TransformerDecoderLayer, num_layers: int, norm: Module | None = None) -> None:
        super().__init__()
        self.layers = _clones(decoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor | None = None, memory_mask: Tensor | None = None,
                tgt_key_padding_mask: Tensor | None = None, memory_key_padding_mask: Tensor | None = None,
                tgt_is_causal: bool | None = None, memory_is_causal: bool = False) -> Tensor:  # fmt: skip
        """Every layer on ``tgt`` in turn; then the norm."""
        output = tgt
        for layer in self.layers:
            output = layer(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                           tgt_key_padding_mask=tgt_key_padding_mask, memory_key_padding_mask=memory_key_padding_mask,
                           tgt_is_causal=bool(tgt_is_causal), memory_is_causal=memory_is_causal)
        return self.norm(output) if self.norm is not None else output


class Transformer(Module):
    """An encoder and a decoder ("Attention Is All You Need"): ``model(src, tgt)`` -> (T, N, d_model)."""

    _tensor_input = True

    def __init__(self, d_model: int = 512, nhead: int = 8, num_encoder_layers: int = 6,
                 num_decoder_layers: int = 6, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: Any = "relu", custom_encoder: Module | None = None,
                 custom_decoder: Module | None = None, layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        layer_args = (d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps, batch_first, norm_first,
                      bias)
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            self.encoder = TransformerEncoder(TransformerEncoderLayer(*layer_args), num_encoder_layers,
                                              LayerNorm(d_model, eps=layer_norm_eps, bias=bias))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            self.decoder = TransformerDecoder(TransformerDecoderLayer(*layer_args), num_decoder_layers,
                                              LayerNorm(d_model, eps=layer_norm_eps, bias=bias))
        self.d_model, self.nhead, self.batch_first = d_model, nhead, batch_first
        for p in self.parameters():  # as PyTorch: Xavier-uniform for every matrix
            if p.ndim > 1:
                init.xavier_uniform_(p)
        if device is not None or dtype is not None:
            self.to(device=device, dtype=dtype)

    def forward(self, src: Tensor, tgt: Tensor, src_mask: Tensor | None = None, tgt_mask: Tensor | None = None,
                memory_mask: Tensor | None = None, src_key_padding_mask: Tensor | None = None,
                tgt_key_padding_mask: Tensor | None = None, memory_key_padding_mask: Tensor | None = None,
                src_is_causal: bool | None = None, tgt_is_causal: bool | None = None,
                memory_is_causal: bool = False) -> Tensor:  # fmt: skip
        """Encode ``src`` (S, N, E), then decode ``tgt`` (T, N, E) over it (batch first with ``batch_first``)."""
        batch_dim = 0 if self.batch_first else 1
        if src.ndim == 3 and tgt.ndim == 3 and src.shape[batch_dim] != tgt.shape[batch_dim]:
            raise MiniTorchError(
                f"Transformer: the batch number of src and tgt must be equal, got src {tuple(src.shape)} and tgt "
                f"{tuple(tgt.shape)} (batch_first={self.batch_first})"
            )
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise MiniTorchError(
                f"Transformer: the feature number of src and tgt must be equal to d_model ({self.d_model}), got src "
                f"{tuple(src.shape)} and tgt {tuple(tgt.shape)}"
            )
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask, is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask, memory_key_padding_mask=memory_key_padding_mask,
                            tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz: int, device: Any = None, dtype: Any = None) -> Tensor:
        """A (sz, sz) float mask: 0 where position i may attend to j (j <= i), -inf above the diagonal."""
        return factories.full((sz, sz), float("-inf"), dtype=dtype, device=device).triu(diagonal=1)
