"""``torch.nn.modules.linear``'s path to Linear and Identity."""

from minitorch.nn.layers import Identity, Linear

__all__ = ["Identity", "Linear"]
