"""The error MiniTorch raises for a misuse it can explain, and helpers to format shapes."""

from __future__ import annotations

import operator
import os
import sys
import warnings
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np


class MiniTorchError(RuntimeError):
    """A RuntimeError (as PyTorch raises) whose message already names the op and operands."""


class MiniTorchValueError(MiniTorchError, ValueError):
    """Where PyTorch raises ValueError (a batch-size mismatch, an unknown reduction): both at once,
    so ``except ValueError`` (as with PyTorch) and ``except MiniTorchError`` both catch it."""


class MiniTorchIndexError(MiniTorchError, IndexError):
    """Where PyTorch raises IndexError (a class index out of range, argmax of nothing): both at once."""


class MiniTorchNotImplementedError(MiniTorchError, NotImplementedError):
    """Where PyTorch has no kernel for a dtype ("abs" not implemented for 'Bool'): both at once."""


_PACKAGE = os.path.dirname(os.path.abspath(__file__))


def warn_user(message: str, category: type[Warning] = UserWarning) -> None:
    """``warnings.warn`` pointing at the first line outside MiniTorch: the learner's own call.

    A fixed ``stacklevel`` would point inside MiniTorch whenever the call came through another
    layer (a module, a method, ``t[i] = v``), and notebooks show the line a warning points at.
    """
    frame, level = sys._getframe(1), 2  # level 2: the caller of warn_user
    while frame.f_back is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)


def fmt_shape(shape: Iterable[int]) -> str:
    """``(3, 4)`` for a shape tuple, with ``()`` for a scalar."""
    return str(tuple(shape))


def _float_hint(value: Any) -> str:
    """A fix for the usual slip: a float size or dim, most often from ``/`` instead of ``//``."""
    if isinstance(value, (float, np.floating)):
        return "; sizes and dims are whole numbers: use // (integer division) or int(...)"
    return ""


def _is_bool(value: Any) -> bool:
    return isinstance(value, (bool, np.bool_))


def check_int(op: str, name: str, value: Any) -> int:
    """``value`` as an int, or a TypeError naming ``op`` and the argument ``name``.

    Accepts what ``operator.index`` accepts: ints, NumPy integers and one-element integer
    tensors. Floats are refused (2.5 would be truncated silently), and so are bools, as in
    PyTorch: ``unsqueeze(): argument 'dim' must be int, not float``.
    """
    if not _is_bool(value):
        try:
            return operator.index(value)
        except TypeError:
            pass
    shown = f" ({value!r})" if isinstance(value, (float, np.floating, str)) else ""
    raise TypeError(
        f"{op}(): argument '{name}' must be int, not {type(value).__name__}{shown}{_float_hint(value)}"
    )


def check_sizes(op: str, name: str, sizes: Iterable[Any]) -> tuple[int, ...]:
    """Each element of ``sizes`` as an int, or a TypeError naming ``op``, ``name`` and the position.

    As PyTorch: ``reshape(): argument 'shape' must be a tuple of ints, but found element of
    type float at pos 0``. Negative sizes are left to the caller (-1 means "infer" to some).
    """
    out = []
    for pos, value in enumerate(sizes):
        if not _is_bool(value):
            try:
                out.append(operator.index(value))
                continue
            except TypeError:
                pass
        shown = f" ({value!r})" if isinstance(value, (float, np.floating, str)) else ""
        raise TypeError(
            f"{op}(): argument '{name}' must be a tuple of ints, but found element of type "
            f"{type(value).__name__}{shown} at pos {pos}{_float_hint(value)}"
        )
    return tuple(out)


def check_dim(op: str, dim: Any, ndim: int, name: str = "dim") -> int:
    """``dim`` made non-negative, or an error naming ``op``.

    The one place dims are normalised: a TypeError for a non-integer ``dim`` (0.5, True,
    None), an IndexError naming the valid range for one out of range. A 0-d tensor accepts
    0 and -1, as in PyTorch.
    """
    dim = check_int(op, name, dim)
    low, high = -max(ndim, 1), max(ndim, 1) - 1
    if not low <= dim <= high:
        raise IndexError(f"{op}: dimension {dim} is out of range for a {ndim}-d tensor (expected {low} to {high})")
    return dim % max(ndim, 1)


def device_mismatch_message(op: str, devices: Sequence[tuple[int, str]]) -> str:
    """The error text for tensors on different devices: names the op and every device.

    ``devices`` is a list of ``(input index, device)`` for the tensor inputs.
    """
    listed = ", ".join(f"input {i} on {d}" for i, d in devices)
    found = sorted({d for _, d in devices})
    return (
        f"{op}: expected all tensors to be on the same device, but found at least two devices, "
        f"{' and '.join(found)} ({listed}). Move them first, e.g. x.to('cuda') or x.cpu()"
    )
