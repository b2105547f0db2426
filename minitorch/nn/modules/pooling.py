"""``torch.nn.modules.pooling``'s path to the pooling modules."""

from minitorch.nn.layers import MaxPool2d
from minitorch.nn.pooling import AdaptiveAvgPool2d, AvgPool2d

__all__ = ["AdaptiveAvgPool2d", "AvgPool2d", "MaxPool2d"]
