"""``torch.nn.modules.container``'s path to Sequential, ModuleList, ModuleDict and ParameterList."""

from minitorch.nn.containers import ModuleList, Sequential
from minitorch.nn.more_containers import ModuleDict, ParameterList

__all__ = ["ModuleDict", "ModuleList", "ParameterList", "Sequential"]
