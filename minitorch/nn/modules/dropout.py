"""``torch.nn.modules.dropout``'s path to Dropout."""

from minitorch.nn.layers import Dropout

__all__ = ["Dropout"]
