"""The guard of a trace: what it assumed, checked before every replay.

A recording is only the step for calls that look like the traced one. ``signature`` turns
a call into a hashable key: per tensor argument its shape, dtype, device and requires_grad;
other arguments by value (numbers, strings) or by identity (a model, an optimizer); the
training flag of every module the step can reach (an argument, or a name the function's
code reads from its globals or closure: ``model.eval()`` changes dropout); the Python numbers
it reads that way (an annealed ``beta``); and the switches that change which ops run
(grad mode, autocast, anomaly, debug). A new key traces again.
"""

from __future__ import annotations

from typing import Any

from minitorch.switches import SWITCHES
from minitorch.tensor_base import TensorBase

SCALARS = (bool, int, float, str, type(None))


_MODULE_TYPES: dict[type, bool] = {}  # type -> has a modules() method (asked on every call: cached)


def _is_module(value: Any) -> bool:
    # Duck-typed: this package must not import nn (nn imports it for Module.compile()).
    kind = type(value)
    known = _MODULE_TYPES.get(kind)
    if known is None:
        known = _MODULE_TYPES[kind] = callable(getattr(kind, "modules", None))
    return known and hasattr(value, "training")


# Each module's submodules and the names of their settings (``training``, ``p``, ``eps``...:
# the plain numbers in its __dict__), found once: walking the tree on every call would cost
# more than some whole replays. (A module or setting added after the first trace is not seen.)
_SETTINGS: dict[int, tuple[Any, list[tuple[dict[str, Any], tuple[str, ...]]]]] = {}


def _settings_of(m: Any) -> tuple[dict[str, Any], tuple[str, ...]]:
    fields = m.__dict__
    return fields, tuple(k for k, v in fields.items() if isinstance(v, (bool, int, float)) and not k.startswith("__"))


def module_settings(module: Any) -> list[tuple[dict[str, Any], tuple[str, ...]]]:
    """Each module in ``module`` (itself first): its ``__dict__`` and the names of its settings, found once."""
    known = _SETTINGS.get(id(module))
    if known is None or known[0] is not module:
        known = _SETTINGS[id(module)] = (module, [_settings_of(m) for m in module.modules()])
    return known[1]


def training_flags(module: Any) -> tuple[Any, ...]:
    """The settings (``training`` first among them) of ``module`` and of each module inside it."""
    return tuple([fields.get(k) for fields, keys in module_settings(module) for k in keys])


def describe(value: Any) -> Any:
    """The hashable part of the key for one argument."""
    if isinstance(value, TensorBase):
        data = value.data
        # the array's type itself, not its name: NumPy's and CuPy's are both called "ndarray"
        return ("tensor", data.shape, data.dtype.str, type(data), value.requires_grad)
    if isinstance(value, SCALARS):
        return (type(value).__name__, value)
    if isinstance(value, (tuple, list)):
        return (type(value).__name__, tuple(describe(v) for v in value))
    if _is_module(value):
        return ("module", id(value), training_flags(value))
    return ("object", id(value))


def environment_reads(fn: Any) -> tuple[list[str], list[int]]:
    """The global names and closure cells that ``fn``'s own code reads (once, at compile time)."""
    func = getattr(fn, "__func__", fn)
    code = getattr(func, "__code__", None)
    if code is None:
        return [], []
    names = [n for n in code.co_names if n in getattr(func, "__globals__", {})]
    cells = list(range(len(func.__closure__ or ())))
    return names, cells


def environment(fn: Any, names: list[str], cells: list[int]) -> tuple[Any, ...]:
    """The numbers and modules' training flags ``fn`` reads from its globals and closure, now."""
    func = getattr(fn, "__func__", fn)
    found: list[Any] = []
    owner = getattr(fn, "__self__", None)
    if owner is not None and _is_module(owner):
        found.append(describe(owner))
    values = [func.__globals__[n] for n in names if n in func.__globals__]
    closure = func.__closure__ or ()
    for i in cells:
        try:
            values.append(closure[i].cell_contents)
        except ValueError:  # a cell not filled yet
            values.append(None)
    for value in values:
        if isinstance(value, SCALARS) and not isinstance(value, str):
            found.append(value)
        elif _is_module(value):
            found.append(describe(value))
    return tuple(found)


def switches() -> tuple[Any, ...]:
    """The process switches that change which ops a step records."""
    s = SWITCHES
    return (s.grad_enabled, s.debug, s.anomaly, s.autocast, s.fast_kernels, s.default_dtype, s.conv_design)


def signature(flat: list[Any], keywords: tuple[str, ...], env: tuple[Any, ...]) -> Any:
    """The cache key of one call (None when an argument can't be described: run eagerly)."""
    return (tuple(describe(v) for v in flat), keywords, env, switches())


def explain_key(key: Any) -> list[str]:
    """The guard of ``key`` in words, one line per assumption."""
    args, keywords, env, switch_values = key
    lines = []
    for i, arg in enumerate(args):
        if arg[0] == "tensor":
            _, shape, dtype, kind, requires_grad = arg
            lines.append(
                f"argument {i}: a tensor of shape {tuple(shape)}, dtype {dtype}, {kind.__name__}, "
                f"requires_grad={requires_grad}"
            )
        elif arg[0] == "module":
            lines.append(f"argument {i}: the same module, its settings (training...) {arg[2]}")
        elif arg[0] == "object":
            lines.append(f"argument {i}: the same object (by identity)")
        else:
            lines.append(f"argument {i}: equal to {arg!r}")
    if keywords:
        lines.append(f"keyword arguments {keywords}")
    for value in env:
        if isinstance(value, tuple) and value and value[0] == "module":  # (its id is for the key only)
            lines.append(f"a module the step reads (the same object), its settings (training...) {value[2]}")
        else:
            lines.append(f"a number the step reads from its globals or closure: {value!r}")
    names = ("grad_enabled", "debug", "anomaly", "autocast", "fast_kernels", "default_dtype", "conv_design")
    lines.append("switches: " + ", ".join(f"{n}={v}" for n, v in zip(names, switch_values)))
    return lines
