"""Loading a state_dict into a module: ``Module.load_state_dict`` checks everything, then copies.

Every key, type and shape is checked before any value changes, so a failed load leaves the
model as it was; the errors name the usual slips (a file name instead of its contents, an
optimizer's state_dict, keys saved from a wrapped ``module.`` model). ``IncompatibleKeys``
is what the load returns, printed as PyTorch prints it.
"""

from __future__ import annotations

from collections import OrderedDict, namedtuple
from collections.abc import Mapping
from typing import Any

import numpy as np

from minitorch import backends
from minitorch.errors import MiniTorchError
from minitorch.tensor import Tensor


class IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns; prints as PyTorch's when nothing is off."""

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return f"_IncompatibleKeys(missing_keys={self.missing_keys!r}, unexpected_keys={self.unexpected_keys!r})"

    __str__ = __repr__


def load_into(
    module: Any,
    own: OrderedDict[str, Tensor],
    state_dict: Mapping[str, Any],
    strict: bool,
    optional: set[str] | frozenset[str] = frozenset(),
) -> IncompatibleKeys:
    """Check ``state_dict`` against ``own`` (``module.state_dict(keep_vars=True)``), then copy it in place.

    Keys in ``optional`` (a BatchNorm's ``num_batches_tracked``) may be missing: they keep their value.
    """
    name = type(module).__name__
    if not isinstance(state_dict, Mapping):
        raise TypeError(f"{name}.load_state_dict: expected a dict-like state_dict, got {_what_it_is(state_dict)}")
    missing = [k for k in own if k not in state_dict and k not in optional]
    unexpected = [str(k) for k in state_dict if k not in own]
    problems = []
    if strict and missing:
        problems.append("missing keys: " + ", ".join(missing))
    if strict and unexpected:
        problems.append("unexpected keys: " + ", ".join(unexpected) + _unexpected_hint(unexpected, missing))
    arrays: dict[str, Any] = {}
    for key, target in own.items():
        if key not in state_dict:
            continue
        value = state_dict[key]
        array = value.data if isinstance(value, Tensor) else value
        if not backends.is_backend_array(array) and hasattr(array, "__array__"):
            # Another framework's tensor (a PyTorch state_dict loads as it is): NumPy reads it.
            detach = getattr(array, "detach", None)  # a tensor that requires grad refuses __array__
            try:
                array = np.asarray(detach() if callable(detach) else array)
            except (TypeError, ValueError, RuntimeError) as error:
                problems.append(f"{key}: could not read the {type(value).__name__} as an array ({error})")
                continue
        if not backends.is_backend_array(array):
            kind = f"{type(value).__module__}.{type(value).__name__}"
            problems.append(f"{key}: expected a Tensor (or an array), got {kind}")
            continue
        shape = tuple(array.shape)
        if shape != tuple(target.shape):
            problems.append(
                f"size mismatch for {key}: the checkpoint has shape {shape}, this model has {tuple(target.shape)}"
            )
            continue
        arrays[key] = array
    if problems:
        raise MiniTorchError(f"Error(s) in loading state_dict for {name}:\n  " + "\n  ".join(problems))
    for key, array in arrays.items():
        target = own[key]
        xp = backends.module_of(target.data)
        converted = backends.to_device(backends.module_of(array).asarray(array), target.device)
        target.data[...] = xp.asarray(converted).astype(target.data.dtype, copy=False)
        target._bump_version()  # changed in place: a graph that saved it is now stale
    return IncompatibleKeys(missing, unexpected)


def _what_it_is(value: Any) -> str:
    """``value``'s type, and what to pass instead when the slip is a common one."""
    kind = type(value).__name__
    if callable(getattr(value, "state_dict", None)) and callable(getattr(value, "forward", None)):
        return f"the module {kind} itself: pass its state_dict(), model.load_state_dict(other.state_dict())"
    if isinstance(value, (str, bytes)) or hasattr(value, "__fspath__"):
        return f"a {kind} (a file name?): load the file first, model.load_state_dict(minitorch.load(path))"
    if isinstance(value, (list, tuple)):
        return f"a {kind}: a state_dict maps names to tensors (dict(pairs) turns (name, tensor) pairs into one)"
    return kind


def _unexpected_hint(unexpected: list[str], missing: list[str]) -> str:
    if "param_groups" in unexpected:
        return " (this is an optimizer's state_dict: load it with optimizer.load_state_dict)"
    if missing and all(k.startswith("module.") for k in unexpected):
        return " (saved from a wrapped model: strip the 'module.' prefix from the keys)"
    return ""
