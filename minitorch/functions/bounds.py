"""Index range checks that do not make Python wait for a GPU.

Class labels and embedding indices must lie in [0, n): NumPy wraps a negative index
silently and CuPy does not check at all. Checking on the host means reading a value back,
which on a GPU is a sync every step. So on a device the check stays there: a flag computed
by two small kernels, raised at the next sync point (``Backend.check_on_device``), as
PyTorch's device-side asserts do.
"""

from __future__ import annotations

import numpy as np

from minitorch import backends
from minitorch.errors import MiniTorchIndexError
from minitorch.hints import Array

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
