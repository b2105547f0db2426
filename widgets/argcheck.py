"""Argument checks shared by the widgets: every error names the widget, the argument and what was passed.

A learner reads one line and knows what to change::

    draw_graph: root must be a minitorch Tensor (the result you want to see), got float 3.0

``what(value)`` describes a value in a few words; the ``need_*`` helpers raise a
``TypeError`` (wrong kind of value) or ``ValueError`` (right kind, bad value), as PyTorch does.
"""

import numbers
import re

import numpy as np

from minitorch.tensor import Tensor

RANKDIRS = ("LR", "TB", "RL", "BT")
_SIZE = re.compile(r"^\s*\d+(\.\d*)?\s*(,\s*\d+(\.\d*)?\s*)?!?\s*$")


def is_module(value):
    """True for a Module (anything with ``named_parameters()``), without importing ``minitorch.nn``."""
    return callable(getattr(value, "named_parameters", None))


def what(value, limit=40):
    """A value in a few words: ``float 3.0``, ``str 'abc'``, ``Tensor of shape (3,)``, ``Linear (a Module)``."""
    if isinstance(value, Tensor):
        return f"a Tensor of shape {tuple(value.shape)}"
    if isinstance(value, np.ndarray):
        return f"a NumPy array of shape {value.shape}"
    if is_module(value):
        return f"{type(value).__name__} (a Module)"
    if isinstance(value, type):
        return f"the class {value.__name__}"
    if callable(value) and hasattr(value, "__name__"):
        return f"the function {value.__name__}"
    text = repr(value)
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    if value is None or isinstance(value, bool):
        return text
    return f"{type(value).__name__} {text}"


def need_tensor(widget, arg, value, hint=""):
    """``value`` must be a minitorch Tensor; the error suggests the likely fix."""
    if isinstance(value, Tensor):
        return value
    if not hint:
        if is_module(value):
            hint = "; pass the tensor the model computed (e.g. its loss), not the model"
        elif isinstance(value, (np.ndarray, numbers.Number, list)):
            hint = "; plain numbers and arrays have no graph: compute it from tensors with requires_grad=True"
    raise TypeError(f"{widget}: {arg} must be a minitorch Tensor, got {what(value)}{hint}")


def need_bool(widget, arg, value):
    """``value`` must be True or False (a Module or tensor here is usually a misplaced positional argument)."""
    if isinstance(value, (bool, np.bool_)) or (isinstance(value, int) and value in (0, 1)):
        return bool(value)
    hint = ""
    if is_module(value) or isinstance(value, (Tensor, dict)):
        hint = f"; did you mean params={'model' if is_module(value) else '...'}? pass it by name"
    raise TypeError(f"{widget}: {arg} must be True or False, got {what(value)}{hint}")


def need_int(widget, arg, value, minimum=1):
    """A whole number ``>= minimum`` (not a bool, not None)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{widget}: {arg} must be a whole number >= {minimum}, got {what(value)}")
    if value < minimum:
        raise ValueError(f"{widget}: {arg} must be >= {minimum}, got {value}")
    return int(value)


def need_number(widget, arg, value, low=None, high=None, low_open=False, high_open=False):
    """A real number (not a bool) in ``[low, high]`` (a side is open when asked)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{widget}: {arg} must be a number, got {what(value)}")
    value = float(value)
    too_low = low is not None and (value <= low if low_open else value < low)
    too_high = high is not None and (value >= high if high_open else value > high)
    if too_low or too_high or value != value:
        lo = "" if low is None else f"{low} {'<' if low_open else '<='} "
        hi = "" if high is None else f" {'<' if high_open else '<='} {high}"
        raise ValueError(f"{widget}: {arg} must be {lo}{arg}{hi}, got {value}")
    return value


def need_rankdir(widget, value):
    if value in RANKDIRS:
        return value
    hint = ""
    if isinstance(value, str) and value.upper() in RANKDIRS:
        hint = f"; write it in capitals: rankdir={value.upper()!r}"
    raise ValueError(f"{widget}: rankdir must be one of {', '.join(map(repr, RANKDIRS))} "
                     f"(left to right, top to bottom, ...), got {what(value)}{hint}")


def need_size(widget, value):
    """``None``, ``"width,height"`` in inches, or a pair of positive numbers (turned into that string)."""
    if value is None or (isinstance(value, str) and _SIZE.match(value)):
        return value
    if isinstance(value, (tuple, list)) and len(value) == 2 and all(
            isinstance(v, numbers.Real) and not isinstance(v, bool) and v > 0 for v in value):
        return f"{value[0]:g},{value[1]:g}"
    raise ValueError(f'{widget}: size must be "width,height" in inches (e.g. "10,30") or None, got {what(value)}')


def need_names(widget, names):
    """``names``: a ``{name: tensor}`` dict (or None); every value a Tensor."""
    if names is None:
        return {}
    if not isinstance(names, dict):
        raise TypeError(f"{widget}: names must be a dict {{name: tensor}}, e.g. names={{'h': h}}, got {what(names)}")
    return _named_tensors(widget, "names", names.items())


def _named_tensors(widget, arg, pairs):
    out = {}
    for name, tensor in pairs:
        if not isinstance(name, str):
            raise TypeError(f"{widget}: the names in {arg} must be strings, got {what(name)}")
        if not isinstance(tensor, Tensor):
            raise TypeError(f"{widget}: {arg}[{name!r}] must be a Tensor, got {what(tensor)}")
        out[name] = tensor
    return out


def need_params(widget, params):
    """``({dotted name: tensor}, {module path: class name})`` from what ``params=`` may be.

    A Module; a ``{name: tensor}`` dict; ``named_parameters()`` (pairs, even as a
    generator). Bare tensors (``model.parameters()``) carry no names to show: the error
    says what to pass instead.
    """
    if params is None:
        return {}, {}
    if is_module(params):
        modules = {}
        named_modules = getattr(params, "named_modules", None)
        if named_modules is not None:
            modules = {path: type(m).__name__ for path, m in named_modules() if path}
        return _named_tensors(widget, "params", params.named_parameters()), modules
    if isinstance(params, dict):
        return _named_tensors(widget, "params", params.items()), {}
    fix = "pass the model itself (params=model) or params=dict(model.named_parameters())"
    if isinstance(params, (Tensor, str, bytes)) or not hasattr(params, "__iter__"):
        raise TypeError(f"{widget}: params must be a Module or a {{name: tensor}} dict; got {what(params)}: {fix}")
    items = list(params)
    if all(isinstance(p, tuple) and len(p) == 2 for p in items):
        return _named_tensors(widget, "params", items), {}
    if all(isinstance(p, Tensor) for p in items):
        raise TypeError(f"{widget}: params got {len(items)} tensors without names (model.parameters()?): {fix}")
    bad = next(p for p in items if not isinstance(p, (Tensor, tuple)))
    raise TypeError(f"{widget}: params must hold (name, tensor) pairs, found {what(bad)}: {fix}")
