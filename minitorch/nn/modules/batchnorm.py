"""``torch.nn.modules.batchnorm``'s path to BatchNorm1d, BatchNorm2d and their base class _BatchNorm."""

from minitorch.nn.layers import BatchNorm1d, BatchNorm2d, _BatchNorm

__all__ = ["BatchNorm1d", "BatchNorm2d", "_BatchNorm"]
