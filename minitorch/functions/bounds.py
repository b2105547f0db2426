"""Index range checks that do not make Python wait for a GPU.

Class labels and embedding indices must lie in [0, n): NumPy wraps a negative index
silently and CuPy does not check at all. Checking on the host means reading a value back,
which on a GPU is a sync every step. So on a device the check stays there: a flag computed
by two small kernels, raised at the next sync point (``Backend.check_on_device``), as
PyTorch's device-side asserts do.
"""

from __future__ import annotations

from minitorch import backends
from minitorch.hints import Array


def any_out_of_range(t: Array, n: int, where: Array | None = None) -> Array:
    """A 0-d boolean array: is some value of the integer array ``t`` outside [0, n)?

    With ``where`` (a boolean array of ``t``'s shape) only the values where it is True
    count: the labels that are not ``ignore_index``.
    """
    # Seen as unsigned, a negative index becomes huge: one comparison checks both ends.
    unsigned = t.view(t.dtype.str.replace("i", "u")) if t.dtype.kind == "i" else t
    outside = unsigned >= n
    return (outside if where is None else outside & where).any()


def check_on_device(t: Array, n: int, error: Exception) -> None:
    """Queue "every value of ``t`` is in [0, n)" on ``t``'s device; ``error`` is raised at the next sync point."""
    backends.of(t).check_on_device(any_out_of_range(t, n), error)
