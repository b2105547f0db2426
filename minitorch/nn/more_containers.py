"""More containers, as PyTorch's: ``ModuleDict`` (modules by name), ``ParameterList`` (parameters
by position) and the reshaping layer ``Unflatten``.

A container registers what it holds (``add_module``, ``register_parameter``), so
``parameters()``, ``state_dict()`` (keys ``'enc.weight'``, ``'0'``), ``to()`` and the repr see it;
a plain dict or list would hide it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from minitorch.errors import MiniTorchError
from minitorch.nn.module import Module, Parameter
from minitorch.tensor import Tensor


class ModuleDict(Module):
    """A dict of modules, kept in insertion order: ``ModuleDict({'enc': Linear(4, 8), 'act': ReLU()})``."""

    def __init__(self, modules: Mapping[str, Module] | Iterable[tuple[str, Module]] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Any:
        return self._modules[key]  # a KeyError naming the key, as a dict

    def __setitem__(self, key: str, module: Module) -> None:
        if not isinstance(key, str):
            raise TypeError(f"ModuleDict: module name should be a string. Got {type(key).__name__}")
        if "." in key or key == "":  # a dot would split the state_dict key in two
            raise KeyError(f'ModuleDict: module name can\'t contain "." or be empty, got {key!r}')
        if not isinstance(module, Module):
            raise TypeError(f"ModuleDict: {type(module).__name__} is not a Module subclass (key {key!r})")
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]
        object.__delattr__(self, key)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __contains__(self, key: object) -> bool:
        return key in self._modules

    def keys(self) -> Iterable[str]:
        """The names, in insertion order."""
        return self._modules.keys()

    def values(self) -> Iterable[Any]:
        """The modules, in insertion order."""
        return self._modules.values()

    def items(self) -> Iterable[tuple[str, Any]]:
        """(name, module) pairs, in insertion order."""
        return self._modules.items()

    def pop(self, key: str) -> Any:
        """Remove the module called ``key`` and return it."""
        module = self[key]
        del self[key]
        return module

    def clear(self) -> None:
        """Remove every module."""
        for key in list(self._modules):
            del self[key]

    def update(self, modules: Mapping[str, Module] | Iterable[tuple[str, Module]]) -> None:
        """Add (or replace) modules from a mapping or from (name, module) pairs, in their order."""
        pairs = modules.items() if isinstance(modules, Mapping) else modules
        for pair in pairs:
            if not isinstance(pair, (tuple, list)) or len(pair) != 2:
                raise TypeError(f"ModuleDict.update: expected (name, module) pairs, got {pair!r}")
            self[pair[0]] = pair[1]

    def forward(self, *args: Any) -> Any:
        raise NotImplementedError("ModuleDict has no forward(): call its modules in your own module's forward")


class ParameterList(Module):
    """A list of parameters, registered as ``'0'``, ``'1'``, ... (a plain Tensor becomes a Parameter)."""

    def __init__(self, values: Iterable[Tensor] | None = None) -> None:
        super().__init__()
        if values is not None:
            self.extend(values)

    def _as_parameter(self, value: Any) -> Parameter:
        if isinstance(value, Parameter):
            return value
        if isinstance(value, Tensor):  # as PyTorch: wrapped, so it trains (requires_grad=True)
            return Parameter(value)
        raise TypeError(
            f"ParameterList: expected a Parameter or a Tensor, got {type(value).__name__} "
            "(MiniTorch keeps only tensors in a ParameterList)"
        )

    def _index(self, index: int) -> str:
        n = len(self._parameters)
        if not -n <= index < n:
            raise IndexError(f"ParameterList: index {index} is out of range for {n} parameters")
        return str(index % n)

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return ParameterList(list(self)[index])
        return self._parameters[self._index(index)]

    def __setitem__(self, index: int, value: Tensor) -> None:
        self.register_parameter(self._index(index), self._as_parameter(value))

    def __len__(self) -> int:
        return len(self._parameters)

    def __iter__(self) -> Iterator[Any]:
        return iter(self._parameters.values())

    def append(self, value: Tensor) -> ParameterList:
        """Add a parameter at the end; returns self."""
        self.register_parameter(str(len(self._parameters)), self._as_parameter(value))
        return self

    def extend(self, values: Iterable[Tensor]) -> ParameterList:
        """Append each of ``values``; returns self."""
        for value in values:
            self.append(value)
        return self

    def extra_repr(self) -> str:
        # PyTorch's lines: the kind, dtype and shape of each entry, never its values.
        lines = []
        for i, p in enumerate(self):
            size = "x".join(str(s) for s in p.shape)
            device = "" if p.device.type == "cpu" else f" ({p.device})"
            lines.append(f"  ({i}): Parameter containing: [{p.dtype} of size {size}{device}]")
        return "\n".join(lines)

    def forward(self, *args: Any) -> Any:
        raise MiniTorchError("ParameterList should not be called.")


class Unflatten(Module):
    """Split dimension ``dim`` into ``unflattened_size`` (one entry may be -1): the inverse of ``Flatten``."""

    _tensor_input = True

    def __init__(self, dim: int, unflattened_size: tuple[int, ...] | list[int]) -> None:
        super().__init__()
        if not isinstance(unflattened_size, (tuple, list)):
            raise TypeError(
                f"Unflatten: unflattened_size must be a tuple of ints, but found type {type(unflattened_size).__name__}"
            )
        for pos, size in enumerate(unflattened_size):
            if not isinstance(size, int) or isinstance(size, bool):
                raise TypeError(
                    "Unflatten: unflattened_size must be tuple of ints, "
                    f"but found element of type {type(size).__name__} at pos {pos}"
                )
        self.dim, self.unflattened_size = dim, unflattened_size

    def forward(self, input: Tensor) -> Tensor:
        shape = tuple(input.shape)
        dim = self.dim + len(shape) if self.dim < 0 else self.dim
        if not 0 <= dim < len(shape):
            raise IndexError(f"Unflatten: dim {self.dim} is out of range for an input of shape {shape}")
        sizes = tuple(self.unflattened_size)
        known = math.prod(s for s in sizes if s != -1)
        fits = shape[dim] % known == 0 if -1 in sizes and known else known == shape[dim]
        if not fits:
            raise MiniTorchError(
                f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim {self.dim} "
                f"({shape[dim]}) in the input tensor of shape {shape}"
            )
        return input.reshape(*shape[:dim], *sizes, *shape[dim + 1 :])

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
