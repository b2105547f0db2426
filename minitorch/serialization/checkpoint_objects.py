"""The header nodes of a whole saved Module (``minitorch.save(model)``), read without running code.

``save(model)`` writes the model's attributes as JSON, with its class, its parameters'
arrays and the functions it holds (``activation=F.gelu``) named as ``"module:QualName"``.
This module only *reads* those nodes into placeholders; whether a named class may be
imported and rebuilt is decided later, in ``minitorch/serialization/whole_module.py``, by ``load``'s
``weights_only`` and the safe-globals list. Nodes:

- ``{"__object__": "pkg.mod:Class", "id": n, "state": {...}}``: a Module (its ``__dict__``);
- ``{"__tensor__": <array>, "parameter": bool, "requires_grad": bool, "id": n}``;
- ``{"__ref__": n}``: the object saved under ``id`` n (a shared, tied weight);
- ``{"__global__": "pkg.mod:name"}``: a function, class or dtype, by its import name;
- ``{"__odict__": [[key, value], ...]}`` and ``{"__set__": [...]}``.
"""

from __future__ import annotations

import re
from typing import Any

OBJECT_KEYS = frozenset({"__object__", "__tensor__", "__ref__", "__global__", "__odict__", "__set__"})
# "package.module:Qualified.Name": dotted identifiers only (never "<locals>" or "<lambda>").
_NAME = re.compile(r"^[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)*:[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)*$")


class ObjectNode:
    """A saved Module: its class's import name, its id, and its decoded ``__dict__``."""

    def __init__(self, name: str, ident: int, state: dict[str, Any]) -> None:
        self.name, self.id, self.state = name, ident, state


class TensorNode:
    """A saved tensor or Parameter inside a Module (an ArrayRef plus what makes it a leaf)."""

    def __init__(self, array: Any, parameter: bool, requires_grad: bool, ident: int) -> None:
        self.array, self.parameter, self.requires_grad, self.id = array, parameter, requires_grad, ident


class RefNode:
    """The object saved earlier under ``id``."""

    def __init__(self, ident: int) -> None:
        self.id = ident


class GlobalNode:
    """A function, class or dtype by import name (``"minitorch.nn.functional:gelu"``)."""

    def __init__(self, name: str) -> None:
        self.name = name


class OrderedDictNode:
    """An OrderedDict (a Module's ``_parameters``, ``_modules`` ...), kept in order."""

    def __init__(self, items: list[tuple[Any, Any]]) -> None:
        self.items = items


class SetNode:
    """A set of plain values."""

    def __init__(self, items: list[Any]) -> None:
        self.items = items


def decode_object_node(reader: Any, node: dict[str, Any], where: str, depth: int) -> Any:
    """One object node of the header, checked as ``CheckpointReader._decode`` checks the others."""
    kind = next(k for k in ("__object__", "__tensor__", "__ref__", "__global__", "__odict__", "__set__") if k in node)
    if kind == "__object__":
        reader._expect_keys(node, {"__object__", "id", "state"}, where)
        state = reader._decode(node["state"], f"{where}.state", depth + 1)
        if not isinstance(state, dict):
            raise reader.fail(f"malformed header: the state of the object at {where} is not a dict")
        return ObjectNode(_name(reader, node["__object__"], where), _ident(reader, node, where), state)
    if kind == "__tensor__":
        reader._expect_keys(node, {"__tensor__", "parameter", "requires_grad", "id"}, where)
        array = reader._decode(node["__tensor__"], where, depth + 1)
        if type(array).__name__ != "ArrayRef":
            raise reader.fail(f"malformed header: the tensor at {where} does not name an array")
        return TensorNode(array, reader._expect_bool(node, "parameter", where),
                          reader._expect_bool(node, "requires_grad", where), _ident(reader, node, where))
    if kind == "__ref__":
        reader._expect_keys(node, {"__ref__"}, where)
        return RefNode(_ident(reader, {"id": node["__ref__"]}, where))
    if kind == "__global__":
        reader._expect_keys(node, {"__global__"}, where)
        return GlobalNode(_name(reader, node["__global__"], where))
    reader._expect_keys(node, {kind}, where)
    items = reader._expect_list(node[kind], f"{where} ('{kind}')")
    if kind == "__set__":
        return SetNode([reader._decode(v, f"{where}[{i}]", depth + 1) for i, v in enumerate(items)])
    pairs = []
    for item in items:
        if not isinstance(item, list) or len(item) != 2 or not isinstance(item[0], (str, int)):
            raise reader.fail(f"malformed header: an item of the OrderedDict at {where} is not a [key, value] pair")
        pairs.append((item[0], reader._decode(item[1], f"{where}[{item[0]!r}]", depth + 1)))
    return OrderedDictNode(pairs)


def _name(reader: Any, name: Any, where: str) -> str:
    if not isinstance(name, str) or not _NAME.match(name):
        raise reader.fail(f"malformed header: {where} names {name!r}, not an import name like 'pkg.mod:Class'")
    return name


def _ident(reader: Any, node: dict[str, Any], where: str) -> int:
    ident = node["id"]
    if type(ident) is not int or ident < 0:
        raise reader.fail(f"malformed header: the object id at {where} is {ident!r}, not a whole number")
    return ident
