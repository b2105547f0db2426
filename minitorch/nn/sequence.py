"""Layers of language models that are not recurrent: ``Embedding``, ``LayerNorm``, ``GELU``.

Same names, parameters and initialisation as PyTorch (``Embedding`` from N(0, 1) with the
padding row zero; ``LayerNorm`` weight ones and bias zeros), so state dicts load as is.
"""

from __future__ import annotations

from minitorch import factories
from minitorch.errors import MiniTorchError
from minitorch.nn import functional as F
from minitorch.nn import init
from minitorch.nn.layers import _empty, _size
from minitorch.nn.module import Module, Parameter
from minitorch.tensor import Tensor


class Embedding(Module):
    """A lookup table: ``Embedding(n, d)(idx)`` is row ``idx`` of a trainable (n, d) weight."""

    _tensor_input = True

    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx: int | None = None) -> None:
        super().__init__()
        self.num_embeddings = _size("Embedding", "num_embeddings", num_embeddings)
        self.embedding_dim = _size("Embedding", "embedding_dim", embedding_dim)
        if padding_idx is not None:
            if not -self.num_embeddings <= padding_idx < self.num_embeddings:
                raise MiniTorchError(
                    f"Embedding: padding_idx must be within num_embeddings ({num_embeddings}), got {padding_idx}"
                )
            padding_idx %= self.num_embeddings
        self.padding_idx = padding_idx
        self.weight = Parameter(_empty(self.num_embeddings, self.embedding_dim))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """PyTorch's default: N(0, 1), the padding row zero."""
        init.normal_(self.weight)
        if self.padding_idx is not None:
            self.weight.data[self.padding_idx] = 0

    @classmethod
    def from_pretrained(cls, embeddings: Tensor, freeze: bool = True, padding_idx: int | None = None) -> Embedding:
        """An Embedding whose weight is (a copy of) ``embeddings`` (n, d), frozen unless ``freeze=False``."""
        if not isinstance(embeddings, Tensor) or embeddings.ndim != 2:
            shown = tuple(embeddings.shape) if isinstance(embeddings, Tensor) else type(embeddings).__name__
            raise MiniTorchError(f"Embedding.from_pretrained: embeddings must be a 2-D tensor (n, d), got {shown}")
        layer = cls(embeddings.shape[0], embeddings.shape[1], padding_idx=padding_idx)
        layer.weight = Parameter(embeddings.detach().clone(), requires_grad=not freeze)
        return layer

    def forward(self, input: Tensor) -> Tensor:
        return F.embedding(input, self.weight, self.padding_idx)

    def extra_repr(self) -> str:
        pad = "" if self.padding_idx is None else f", padding_idx={self.padding_idx}"
        return f"{self.num_embeddings}, {self.embedding_dim}{pad}"


class LayerNorm(Module):
    """Normalise each sample over its last dims ``normalized_shape``, then scale and shift."""

    _tensor_input = True

    def __init__(
        self,
        normalized_shape: int | list[int] | tuple[int, ...],
        eps: float = 1e-5,
        elementwise_affine: bool = True,
        bias: bool = True,
    ) -> None:
        super().__init__()
        shape = tuple(normalized_shape) if isinstance(normalized_shape, (list, tuple)) else (normalized_shape,)
        self.normalized_shape = tuple(_size("LayerNorm", "normalized_shape", s) for s in shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(factories.ones(*self.normalized_shape))
            if bias:
                self.bias = Parameter(factories.zeros(*self.normalized_shape))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def reset_parameters(self) -> None:
        """Weight 1 and bias 0, as at construction."""
        if self.weight is not None:
            init.ones_(self.weight)
        if self.bias is not None:
            init.zeros_(self.bias)

    def forward(self, x: Tensor) -> Tensor:
        return F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}, "
            f"bias={self.bias is not None}"
        )


class GELU(Module):
    """x * Phi(x) (``approximate="tanh"`` for PyTorch's tanh form): the activation of transformers."""

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        if approximate not in ("none", "tanh"):
            raise ValueError(f"GELU: approximate must be 'none' or 'tanh', got {approximate!r}")
        self.approximate = approximate

    def forward(self, x: Tensor) -> Tensor:
        return F.gelu(x, self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"
