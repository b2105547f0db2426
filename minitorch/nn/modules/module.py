"""``torch.nn.modules.module``'s path to Module and Parameter."""

from minitorch.nn.module import Module, Parameter

__all__ = ["Module", "Parameter"]
