"""``torch.nn.modules.sparse``'s path to Embedding."""

from minitorch.nn.sequence import Embedding

__all__ = ["Embedding"]
