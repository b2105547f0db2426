"""``torch.nn.modules.normalization``'s path to LayerNorm."""

from minitorch.nn.sequence import LayerNorm

__all__ = ["LayerNorm"]
