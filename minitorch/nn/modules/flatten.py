"""``torch.nn.modules.flatten``'s path to Flatten and Unflatten."""

from minitorch.nn.layers import Flatten
from minitorch.nn.more_containers import Unflatten

__all__ = ["Flatten", "Unflatten"]
