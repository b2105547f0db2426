"""A signature's guard as one generated check: is this call the traced one again?

``guards.signature`` builds a call's whole key (a nested tuple: each argument described,
the numbers and modules the step reads, the switches) and the cache looks it up: a few
percent of a small model's replay (docs/benchmarks.md). Most calls of a training loop have the
signature of the call before, so ``compiled.py`` first asks the last hit's ``FastGuard``:
one generated expression that compares, against what the trace saw,

    len(args) == 2
    and type(a0 := args[0]) is Tensor and (d0 := a0.data).shape == (64, 64)
    and d0.dtype is dtype0 and type(d0) is ndarray and a0.requires_grad is False
    and type(a1 := args[1]) is Tensor and ...
    and closure0.cell_contents is module0 and fields0.get('training') == True and ...
    and switches() == switch_values

The check may only be *stricter* than the key, never looser: True must mean the full key
would be equal (so the same entry); False means nothing, and the full key is built and
looked up as before. So where in doubt (a list argument, keyword arguments, a reading the
check can't repeat), no fast guard is made and every call takes the full key.
"""

from __future__ import annotations

from typing import Any

from minitorch.jit import guards
from minitorch.tensor_base import TensorBase

_NUMBERS = (bool, int, float, type(None))  # what ``guards.environment`` keeps by value (not str)


class FastGuard:
    """``guard(args)``: True if this call's key is certainly the traced one's."""

    def __init__(self, source: str, check: Any) -> None:
        self.source = source  # the generated text (for reading; ``explain`` may show it)
        self.check = check

    def __call__(self, args: tuple[Any, ...]) -> bool:
        try:
            return bool(self.check(args))
        except (AttributeError, ValueError, TypeError):  # an empty cell, an argument of another kind
            return False


class _Builder:
    """The conditions of the check and the constants they name."""

    def __init__(self) -> None:
        self.conditions: list[str] = []
        self.namespace: dict[str, Any] = {"switches": guards.switches}
        self._counter = 0

    def name(self, value: Any, hint: str) -> str:
        name = f"{hint}{self._counter}"
        self._counter += 1
        self.namespace[name] = value
        return name

    def settings(self, module: Any) -> None:
        """Each setting of the module and its submodules (``training``, ``p``...) equal to its value now."""
        for fields, keys in guards.module_settings(module):
            fields_name = self.name(fields, "fields")
            for key in keys:
                self.conditions.append(f"{fields_name}.get({key!r}) == {self.name(fields.get(key), 'setting')}")

    def value(self, expr: str, value: Any, as_argument: bool) -> bool:
        """Conditions for one value read by ``expr``; False when the check can't repeat its description."""
        kind = type(value)
        if isinstance(value, TensorBase) and as_argument:
            data = value.data
            a, d = self.name(None, "a"), self.name(None, "d")
            self.conditions += [
                f"type({a} := {expr}) is {self.name(kind, 'T')}",
                f"({d} := {a}.data).shape == {tuple(data.shape)!r}",
                f"{d}.dtype is {self.name(data.dtype, 'dtype')}",
                f"type({d}) is {self.name(type(data), 'T')}",
                f"{a}.requires_grad is {bool(value.requires_grad)}",
            ]
            return True
        if guards._is_module(value):
            self.conditions.append(f"{expr} is {self.name(value, 'module')}")
            self.settings(value)
            return True
        if (isinstance(value, (tuple, list)) and as_argument) or guards._MODULE_TYPES.get(kind):
            return False  # a container argument (described item by item), a module-like object without ``training``
        scalar = isinstance(value, guards.SCALARS) if as_argument else isinstance(value, _NUMBERS)
        if scalar:
            v = self.name(None, "v")
            self.conditions.append(f"type({v} := {expr}) is {self.name(kind, 'T')} and {v} == {self.name(value, 'c')}")
            return True
        if as_argument:  # described by identity
            self.conditions.append(f"id({expr}) == {id(value)}")
        else:  # not part of the key: it must stay a kind the key leaves out
            self.conditions.append(f"type({expr}) is {self.name(kind, 'T')}")
        return True


def make_fast_guard(fn: Any, reads: tuple[list[str], list[int]], flat: list[Any], keywords: tuple[str, ...]) -> Any:
    """The ``FastGuard`` of a call with arguments ``flat``, or None where every call needs the full key."""
    if keywords:
        return None
    b = _Builder()
    b.conditions.append(f"len(args) == {len(flat)}")
    for i, value in enumerate(flat):
        if not b.value(f"args[{i}]", value, as_argument=True):
            return None
    func = getattr(fn, "__func__", fn)
    owner = getattr(fn, "__self__", None)
    if owner is not None and guards._is_module(owner):
        b.settings(owner)  # the owner itself is fixed: it is the bound method's
    names, cells = reads
    module_globals = getattr(func, "__globals__", {})
    g = b.name(module_globals, "globals")
    for n in names:
        if n not in module_globals:
            b.conditions.append(f"{n!r} not in {g}")
        elif not b.value(f"{g}[{n!r}]", module_globals[n], as_argument=False):
            return None
    closure = func.__closure__ or ()
    for i in cells:
        try:
            contents = closure[i].cell_contents
        except ValueError:  # an empty cell: the key reads None; here the check fails (full key)
            return None
        if not b.value(f"{b.name(closure[i], 'cell')}.cell_contents", contents, as_argument=False):
            return None
    b.conditions.append(f"switches() == {b.name(guards.switches(), 'switch_values')}")
    source = "def check(args):\n    return (\n        " + "\n        and ".join(b.conditions) + "\n    )\n"
    exec(compile(source, "<minitorch.compile: guard>", "exec"), b.namespace)  # noqa: S102 (our own text)
    return FastGuard(source, b.namespace["check"])
