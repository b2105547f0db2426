"""``minitorch.save(model)`` of a whole Module, and how ``load`` rebuilds it only when allowed.

PyTorch pickles the model: its class by import name plus every attribute. Loading a
pickle may run any code, so since PyTorch 2.6 ``torch.load`` refuses such a file unless
the caller passes ``weights_only=False`` or lists the classes with
``torch.serialization.add_safe_globals`` / ``safe_globals``. MiniTorch does the same
without pickle: ``save`` writes the class's import name (``"__main__:Net"``), the module's
attributes as JSON and its tensors as arrays (``checkpoint_objects.py`` lists the nodes).
``load`` rebuilds a Module only

- with ``weights_only=False`` (the class is imported by name: that runs its module's code,
  which is why it must be asked for), or
- when every class and function the file names is on the safe-globals list (those are
  already imported objects: nothing is imported).

Otherwise it raises ``WeightsOnlyLoadError`` (an ``UnpicklingError``, as PyTorch's) naming
what the file would need. Rebuilding never calls ``__init__``: as pickle does, it makes the
object with ``cls.__new__`` and fills its ``__dict__``. Shared tensors (tied weights) and
shared submodules stay shared.
"""

from __future__ import annotations

import contextlib
import importlib
import pickle
import sys
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from typing import Any

from minitorch.dtypes import DType
from minitorch.errors import MiniTorchError
from minitorch.nn.module import Module, Parameter
from minitorch.serialization.checkpoint_format import ArrayRef
from minitorch.serialization.checkpoint_objects import (
    GlobalNode,
    ObjectNode,
    OrderedDictNode,
    RefNode,
    SetNode,
    TensorNode,
)
from minitorch.tensor import Tensor

_SAFE_GLOBALS: list[Any] = []


class WeightsOnlyLoadError(MiniTorchError, pickle.UnpicklingError):
    """``load`` met a class or function it may not rebuild without ``weights_only=False``."""


# ------------------------------------------------------------------ the safe-globals list
def add_safe_globals(safe_globals: Iterable[Any]) -> None:
    """Allow ``load(..., weights_only=True)`` to rebuild these classes and use these functions."""
    _SAFE_GLOBALS.extend(g for g in safe_globals if g not in _SAFE_GLOBALS)


def get_safe_globals() -> list[Any]:
    """The classes and functions ``add_safe_globals`` allowed (a copy)."""
    return list(_SAFE_GLOBALS)


def clear_safe_globals() -> None:
    """Forget every allowed class and function."""
    _SAFE_GLOBALS.clear()


@contextlib.contextmanager
def safe_globals(safe_globals: Iterable[Any]) -> Iterator[None]:
    """``with safe_globals([Net]): load(path)``: allow them for the ``with`` block only."""
    before = list(_SAFE_GLOBALS)
    add_safe_globals(safe_globals)
    try:
        yield
    finally:
        _SAFE_GLOBALS[:] = before


def import_name(obj: Any) -> str:
    """``"package.module:QualName"`` of a class or function (what a file names it by)."""
    return f"{obj.__module__}:{obj.__qualname__}"


# ------------------------------------------------------------------ saving
def _global_name(value: Any, where: str) -> str:
    """The import name of a function, class or dtype that ``load`` can find again, else an error."""
    if isinstance(value, DType):
        return f"minitorch.dtypes:{'bool_' if value.name == 'bool' else value.name}"
    module, qualname = getattr(value, "__module__", None), getattr(value, "__qualname__", "")
    found: Any = sys.modules.get(module) if module else None
    for part in qualname.split("."):
        found = getattr(found, part, None)
    if found is not value:  # a lambda, a closure, a nested function: nothing to import it by
        raise MiniTorchError(
            f"save: the model holds {value!r} at {where}, which cannot be found again by its name "
            f"({module}.{qualname}); store a module-level function or a layer instead"
        )
    return import_name(value)


class ModuleEncoder:
    """Writes one Module tree as header nodes, giving each tensor and module an id on first sight."""

    def __init__(self, add_array: Any) -> None:
        self.add_array = add_array  # (array-like, where) -> the array node, from serialization/__init__.py
        self.ids: dict[int, int] = {}
        self.keep: list[Any] = []  # holds what has an id alive, so id() values stay unique

    def _seen(self, value: Any) -> int | None:
        return self.ids.get(id(value))

    def _new_id(self, value: Any) -> int:
        self.ids[id(value)] = len(self.ids)
        self.keep.append(value)
        return self.ids[id(value)]

    def encode(self, value: Any, where: str) -> Any:
        """The header node for ``value``, an attribute (at any depth) of a saved Module."""
        if isinstance(value, (Module, Tensor)) and self._seen(value) is not None:
            return {"__ref__": self._seen(value)}
        if isinstance(value, Module):
            ident = self._new_id(value)
            state = {"__dict__": [[k, self.encode(v, f"{where}.{k}")] for k, v in vars(value).items()]}
            return {"__object__": _global_name(type(value), where), "id": ident, "state": state}
        if isinstance(value, Tensor):
            if value.grad_fn is not None:
                raise MiniTorchError(f"save: the tensor at {where} is not a leaf; store value.detach() instead")
            ident = self._new_id(value)
            return {"__tensor__": self.add_array(value, where), "parameter": isinstance(value, Parameter),
                    "requires_grad": bool(value.requires_grad), "id": ident}
        if isinstance(value, OrderedDict):
            return {"__odict__": [[k, self.encode(v, f"{where}[{k!r}]")] for k, v in value.items()]}
        if isinstance(value, dict):
            return {"__dict__": [[k, self.encode(v, f"{where}[{k!r}]")] for k, v in value.items()]}
        if isinstance(value, (set, frozenset)):
            return {"__set__": [self.encode(v, f"{where}[...]") for v in sorted(value, key=repr)]}
        if isinstance(value, (list, tuple)):
            return {"__list__": [self.encode(v, f"{where}[{i}]") for i, v in enumerate(value)],
                    "tuple": isinstance(value, tuple)}
        if value is None or isinstance(value, (bool, int, float, str)):
            return value
        if isinstance(value, DType) or callable(value):
            return {"__global__": _global_name(value, where)}
        raise MiniTorchError(
            f"save: the model's attribute {where} is a {type(value).__name__}, which save cannot store; a saved "
            "module holds layers, tensors, numbers, strings, functions and lists/dicts of them"
        )


# ------------------------------------------------------------------ loading
def names_in(node: Any) -> list[str]:
    """Every class and function name the decoded header needs, in order, once each."""
    found: list[str] = []
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, (ObjectNode, GlobalNode)) and n.name not in found:
            found.append(n.name)
        if isinstance(n, ObjectNode):
            stack.extend(n.state.values())
        elif isinstance(n, OrderedDictNode):
            stack.extend(v for _, v in n.items)
        elif isinstance(n, dict):
            stack.extend(n.values())
        elif isinstance(n, (list, tuple, SetNode)):
            stack.extend(n.items if isinstance(n, SetNode) else n)
    return found


def lookup_table(names: list[str], weights_only: bool, source: str) -> dict[str, Any]:
    """The objects behind ``names``: from the safe-globals list, or imported when ``weights_only`` is False."""
    allowed = {import_name(g): g for g in _SAFE_GLOBALS if hasattr(g, "__qualname__")}
    missing = [n for n in names if n not in allowed]
    if weights_only and missing:
        raise WeightsOnlyLoadError(
            f"load: {source} holds a whole saved model, and weights_only=True (the default) loads only tensors and "
            f"plain data. It names {', '.join(missing)}. If you trust the file, load it with weights_only=False "
            "(this imports those modules, which runs their code), or allow the classes and functions with "
            "minitorch.serialization.add_safe_globals([...]) or `with minitorch.serialization.safe_globals([...]):`"
        )
    return {n: allowed[n] if n in allowed else _import(n, source) for n in names}


def _import(name: str, source: str) -> Any:
    module, qualname = name.split(":")
    found: Any = importlib.import_module(module)
    for part in qualname.split("."):
        if not hasattr(found, part):
            raise MiniTorchError(f"load: {source} names {name}, but {module} has no {qualname}")
        found = getattr(found, part)
    return found


def rebuild(node: Any, table: dict[str, Any], make_tensor: Any, objects: dict[int, Any]) -> Any:
    """The object behind a decoded node; ``make_tensor(ArrayRef)`` turns an array into a Tensor."""
    if isinstance(node, RefNode):
        if node.id not in objects:
            raise MiniTorchError(f"load: the file refers to object {node.id} before saving it")
        return objects[node.id]
    if isinstance(node, GlobalNode):
        return table[node.name]
    if isinstance(node, TensorNode):
        tensor = make_tensor(node.array)
        if node.parameter:
            tensor = Parameter(tensor, requires_grad=node.requires_grad)
        elif node.requires_grad:
            tensor.requires_grad_(True)
        objects[node.id] = tensor
        return tensor
    if isinstance(node, ObjectNode):
        cls = table[node.name]
        if not (isinstance(cls, type) and issubclass(cls, Module)):
            raise MiniTorchError(f"load: the file asks to rebuild {node.name}, which is not a Module class")
        obj = cls.__new__(cls)
        objects[node.id] = obj  # before its state: a submodule may refer back to it
        for key, value in node.state.items():
            object.__setattr__(obj, key, rebuild(value, table, make_tensor, objects))
        return obj
    if isinstance(node, OrderedDictNode):
        return OrderedDict((k, rebuild(v, table, make_tensor, objects)) for k, v in node.items)
    if isinstance(node, SetNode):
        return {rebuild(v, table, make_tensor, objects) for v in node.items}
    if isinstance(node, dict):
        return {k: rebuild(v, table, make_tensor, objects) for k, v in node.items()}
    if isinstance(node, list):
        return [rebuild(v, table, make_tensor, objects) for v in node]
    if isinstance(node, tuple):
        return tuple(rebuild(v, table, make_tensor, objects) for v in node)
    if isinstance(node, ArrayRef):  # a tensor or array saved beside the model ({"model": m, "opt": ...})
        return make_tensor(node)
    return node
