"""Containers of modules: ``Sequential`` (applied in order) and ``ModuleList`` (just held).

Both register their modules under the names ``'0'``, ``'1'``, ... so ``state_dict`` keys
match PyTorch's (``'0.weight'``).

On a GPU, ``Sequential`` runs a ``Linear`` followed by a ``ReLU`` as ``linear`` without
its bias plus one fused ``BiasReLU`` node (``fuses_linear_relu`` says when). On the CPU
it runs every module exactly as written.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from minitorch import backends
from minitorch.autograd.function import fast_kernel
from minitorch.errors import MiniTorchError
from minitorch.functions.autocast_policy import to_low_precision
from minitorch.functions.fused import BiasReLU, bias_relu, linear
from minitorch.nn.layers import Linear, ReLU
from minitorch.nn.module import Module
from minitorch.switches import SWITCHES
from minitorch.tensor import Tensor


class Sequential(Module):
    """Modules applied one after another: ``Sequential(Linear(64, 128), ReLU(), Linear(128, 10))``.

    Sub-modules are named ``'0'``, ``'1'``, ... (so state_dict keys are ``'0.weight'``, as in
    PyTorch), or by the keys of an ``OrderedDict`` passed instead. On a GPU a ``Linear``
    followed by a ``ReLU`` runs as one fused node, ``BiasReLUBackward`` in the graph
    (``fuses_linear_relu``); the values and gradients are the same.
    """

    def __init__(self, *modules: Any) -> None:
        super().__init__()
        if len(modules) == 1 and isinstance(modules[0], OrderedDict):
            for name, module in modules[0].items():
                self.add_module(name, _check_module(module, "Sequential"))
        else:
            for i, module in enumerate(modules):
                self.add_module(str(i), _check_module(module, "Sequential"))

    def forward(self, x: Any) -> Any:
        # The CPU path is the plain loop and nothing else: lessons draw the graphs of CPU
        # models and must keep seeing a Linear node, then a ReLU node. Only an input on another
        # device (a GPU) with the fast kernels on takes the fusing loop.
        if isinstance(x, Tensor) and type(x.data) is not np.ndarray and SWITCHES.fast_kernels:
            return self._forward_fusing(x)
        for module in self._modules.values():
            x = module(x)
        return x

    def _forward_fusing(self, x: Any) -> Any:
        """``forward``, with each Linear -> ReLU pair that ``fuses_linear_relu`` accepts fused."""
        modules = list(self._modules.values())
        i, n = 0, len(modules)
        while i < n:
            module = modules[i]
            if i + 1 < n and fuses_linear_relu(module, modules[i + 1], x):
                x = linear_bias_relu(module, x)
                i += 2
            else:
                x = module(x)
                i += 1
        return x

    def __getitem__(self, index: int | slice) -> Any:
        items = list(self._modules.items())
        if isinstance(index, slice):
            return Sequential(OrderedDict(items[index]))
        return items[index][1]

    def __setitem__(self, index: int, module: Module) -> None:
        key = list(self._modules)[index]
        self.add_module(key, _check_module(module, "Sequential"))

    def __delitem__(self, index: int | slice) -> None:
        _delete(self, index)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Any]:
        return iter(self._modules.values())

    def append(self, module: Module) -> Sequential:
        """Add a module at the end; returns self."""
        self.add_module(str(len(self._modules)), _check_module(module, "Sequential"))
        return self

    def extend(self, modules: Iterable[Module]) -> Sequential:
        """Append each of ``modules``; returns self."""
        for module in modules:
            self.append(module)
        return self

    def insert(self, index: int, module: Module) -> Sequential:
        """Insert ``module`` before position ``index``; returns self."""
        _insert(self, index, module)
        return self

    def pop(self, index: int | slice) -> Any:
        """Remove and return the module (or Sequential of modules) at ``index``."""
        taken = self[index]
        del self[index]
        return taken


def fuses_linear_relu(first: Any, second: Any, x: Any) -> bool:
    """True when ``second(first(x))`` may run as ``linear(x, W)`` plus one fused ``BiasReLU``.

    Why: on a GPU every CuPy call costs microseconds of host time to launch, and a small
    model's step is bound by its launches, not by its arithmetic. ``Linear`` adds its
    bias in one launch and ``ReLU`` is another; the ``BiasReLU`` kernel does both in
    one (the backward launches the same number of kernels either way).

    Only where it changes nothing but the launch count: ``x`` is a Tensor on a device where
    ``BiasReLU`` has a fast kernel for it and the fast kernels are on (a GPU's
    ``minitorch/kernels/cuda/elementwise.py``; never the CPU), ``first`` is exactly
    ``nn.Linear`` (a subclass may override ``forward``) with a bias of its weight's dtype and
    an input of the right width (else ``Linear`` raises its own error), ``second`` is exactly
    ``nn.ReLU``, and neither has its ``forward`` replaced on the instance and neither has
    forward hooks (a hook must see the module's own input and output, so a hooked pair runs
    unfused).
    """
    if type(first) is not Linear or type(second) is not ReLU or not isinstance(x, Tensor):
        return False
    if "forward" in first.__dict__ or "forward" in second.__dict__:
        return False
    if any(m._forward_pre_hooks or m._forward_hooks for m in (first, second)):
        return False
    bias = first.bias
    if bias is None or bias.data.dtype != first.weight.data.dtype:
        return False
    shape = x.data.shape
    if not shape or shape[-1] != first.in_features or type(x.data) is np.ndarray:
        return False
    return fast_kernel(BiasReLU, backends.device_of(x.data), (x.data, bias.data)) is not None


def linear_bias_relu(layer: Linear, x: Tensor) -> Tensor:
    """``relu(layer(x))`` as ``linear(x, weight)`` then one ``BiasReLU`` node.

    Inside autocast the bias is cast as ``linear`` would cast it (``linear`` casts x and W).
    """
    (bias,) = to_low_precision(layer.bias)
    return bias_relu(linear(x, layer.weight, None), bias)


class ModuleList(Module):
    """A list of modules whose parameters are registered (a plain Python list hides them)."""

    def __init__(self, modules: Iterable[Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __getitem__(self, index: int | slice) -> Any:
        values = list(self._modules.values())
        if isinstance(index, slice):
            return ModuleList(values[index])
        return values[index]

    def __setitem__(self, index: int, module: Module) -> None:
        key = list(self._modules)[index]
        self.add_module(key, _check_module(module, "ModuleList"))

    def __delitem__(self, index: int | slice) -> None:
        _delete(self, index)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Any]:
        return iter(self._modules.values())

    def append(self, module: Module) -> ModuleList:
        """Add a module at the end; returns self."""
        self.add_module(str(len(self._modules)), _check_module(module, "ModuleList"))
        return self

    def extend(self, modules: Iterable[Module]) -> ModuleList:
        """Add several modules at the end; returns self."""
        for module in modules:
            self.append(module)
        return self

    def insert(self, index: int, module: Module) -> None:
        """Insert ``module`` before position ``index``."""
        _insert(self, index, module)

    def pop(self, index: int | slice) -> Any:
        """Remove and return the module (or ModuleList of modules) at ``index``."""
        taken = self[index]
        del self[index]
        return taken

    def forward(self, *args: Any) -> Any:
        raise MiniTorchError("ModuleList has no forward(): iterate over it in your own module's forward")


def _set_modules(container: Module, modules: list[Any]) -> None:
    """Make ``modules`` the container's children, named 0, 1, ... in order (as PyTorch keeps them)."""
    object.__setattr__(container, "_modules", OrderedDict((str(i), m) for i, m in enumerate(modules)))


def _delete(container: Module, index: int | slice) -> None:
    """``del container[index]`` (one module or a slice); the rest are renumbered 0, 1, ... as in PyTorch."""
    modules = list(container._modules.values())
    del modules[index]
    _set_modules(container, modules)


def _insert(container: Module, index: int, module: Module) -> None:
    """Put ``module`` before position ``index`` (negative counts from the end), as PyTorch's ``insert``."""
    modules = list(container._modules.values())
    n = len(modules)
    if not -n <= index <= n:
        raise IndexError(f"{type(container).__name__}.insert: index {index} is out of range for {n} modules")
    modules.insert(index if index >= 0 else index + n, _check_module(module, type(container).__name__))
    _set_modules(container, modules)


def _check_module(module: Any, container: str) -> Module:
    if not isinstance(module, Module):
        raise TypeError(f"{container}: expected Module instances, got {type(module).__name__} ({module!r})")
    return module
