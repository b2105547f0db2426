"""``torch.nn.modules.conv``'s path to Conv2d."""

from minitorch.nn.layers import Conv2d

__all__ = ["Conv2d"]
