"""Index range checks that do not make Python wait for a GPU.

Class labels and embedding indices must lie in [0, n): NumPy wraps a negative index
silently and CuPy does not check at all. Checking on the host means reading a value back,
which on a GPU is a sync every step. So on a device the check stays there: a flag computed
by two small kernels, raised at the next sync point (``Backend.check_on_device``), as
PyTorch's device-side asserts do.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitorch import backends
from minitorch.errors import MiniTorchIndexError
from minitorch.hints import Array
from minitorch.switches import SWITCHES

# The unsigned integer type of each signed one's size.
_UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def as_unsigned(t: Array) -> Array:
    """``t`` seen as unsigned (a view): a negative index becomes huge, so one ``>= n`` checks both ends."""
    return t.view(_UNSIGNED[t.dtype.itemsize]) if t.dtype.kind == "i" else t


def label_range_error(c: int, ignore_index: int) -> MiniTorchIndexError:
    """The error the device-side label check of cross_entropy/nll_loss raises at the next sync point."""
    return MiniTorchIndexError(
        f"nll_loss/cross_entropy: a target value was outside [0, {c - 1}] for {c} classes and not "
        f"ignore_index={ignore_index} (checked on the GPU and reported at this sync point; "
        "set_debug(True) names the step)"
    )


def any_out_of_range(t: Array, n: int, where: Array | None = None) -> Array:
    """A 0-d boolean array: is some value of the integer array ``t`` outside [0, n)?

    With ``where`` (a boolean array of ``t``'s shape) only the values where it is True
    count: the labels that are not ``ignore_index``.
    """
    outside = as_unsigned(t) >= n
    return (outside if where is None else outside & where).any()


def check_on_device(t: Array, n: int, error: Exception) -> None:
    """Queue "every value of ``t`` is in [0, n)" on ``t``'s device; ``error`` is raised at the next sync point."""
    backends.of(t).check_on_device(any_out_of_range(t, n), error)


def labels_in_range(t: Array, c: int) -> bool:
    """True when every label is in [0, C), checked with one max(); False on a device (not checked there)."""
    if not (backends.of(t).is_host or SWITCHES.debug):
        return False
    return not t.size or int(as_unsigned(t).max()) < c  # one max() checks both ends


def label_rows(
    t: Array, c: int, class_weight: Array | None, ignore_index: int, dtype: Any
) -> tuple[Array, Array | None]:
    """``(safe target, row weights)`` for labels ``t`` (N,): row weights None when every row counts fully.

    A label outside [0, C) that is not ``ignore_index`` raises (on a GPU at the next sync
    point, see bounds.py). Ignored rows get weight 0 and the safe label 0.
    """
    xp = backends.module_of(t)
    ignorable = not 0 <= ignore_index < c  # an ignore_index inside [0, C) is a valid label too
    if labels_in_range(t, c):
        if class_weight is None and ignorable:
            return t, None  # the common case: nothing to mask
        keep = t != ignore_index
    elif backends.of(t).is_host or SWITCHES.debug:
        keep = t != ignore_index
        bad = t[keep]
        bad = bad[(bad < 0) | (bad >= c)]
        if bad.size:
            low, high = int(bad.min()), int(bad.max())
            raise MiniTorchIndexError(
                f"nll_loss/cross_entropy: target values must be in [0, {c - 1}] for {c} classes "
                f"(or equal ignore_index={ignore_index}), got {low if low == high else f'{low}..{high}'}"
            )
    else:
        # On a GPU the range check stays on the device and raises at the next sync point.
        keep = t != ignore_index
        backends.of(t).check_on_device(any_out_of_range(t, c, keep), label_range_error(c, ignore_index))
    safe = xp.where(keep, t, 0)
    row_weight = keep.astype(dtype)
    if class_weight is not None:
        row_weight = row_weight * class_weight[safe]
    return safe, row_weight


def check_index_range(op: str, index: Array, n: int, axis: int) -> None:
    """Every index in [0, n): NumPy would wrap a negative one and CuPy checks nothing."""
    if not (backends.of(index).is_host or SWITCHES.debug):
        # On a GPU reading the values back would wait for it: check there, raise at a sync.
        error = MiniTorchIndexError(f"{op}: an index was out of bounds for dimension {axis} with size {n}")
        check_on_device(index, n, error)
        return
    if index.size:
        low, high = int(index.min()), int(index.max())
        if low < 0 or high >= n:
            raise MiniTorchIndexError(
                f"{op}: index {low if low < 0 else high} is out of bounds for dimension {axis} with size {n}"
            )
