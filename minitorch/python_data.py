"""Checks on the Python data ``minitorch.tensor(data)`` turns into an array.

NumPy accepts more than PyTorch does, or fails with a message about its own internals:
nested lists must be rectangular, and integers must fit int64 (NumPy would make uint64 or
object arrays, and the values would wrap around silently in the conversion).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitorch.errors import MiniTorchError

_INT64_MAX = np.iinfo(np.int64).max


def check_rectangular(data: list[Any]) -> None:
    """Nested lists must form a box: PyTorch's ValueError names the first ragged dimension."""
    lengths: dict[int, int] = {}  # depth -> the length of the first list seen there
    number_depth: int | None = None  # the depth where the numbers are
    stack: list[tuple[Any, int]] = [(data, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (list, tuple)):
            if number_depth is not None and depth >= number_depth:
                raise ValueError(
                    f"tensor(): expected a number at dim {depth} but got a sequence; nested lists "
                    "must be rectangular, e.g. [[1, 2], [3, 4]]"
                )
            expected = lengths.setdefault(depth, len(item))
            if len(item) != expected:
                raise ValueError(
                    f"tensor(): expected a sequence of length {expected} at dim {depth} (got "
                    f"{len(item)}); nested lists must be rectangular, e.g. [[1, 2], [3, 4]]"
                )
            stack.extend((child, depth + 1) for child in reversed(item))
        elif number_depth is None:
            number_depth = depth
            if depth in lengths:
                raise ValueError(
                    f"tensor(): expected a sequence of length {lengths[depth]} at dim {depth} (got a "
                    f"{type(item).__name__}); nested lists must be rectangular, e.g. [[1, 2], [3, 4]]"
                )
        elif depth != number_depth:
            raise ValueError(
                f"tensor(): expected a sequence at dim {depth} (got a {type(item).__name__}); nested "
                "lists must be rectangular, e.g. [[1, 2], [3, 4]]"
            )


def check_fits_int64(array: np.ndarray) -> None:
    """Integers beyond int64 would wrap around silently: refuse them, as PyTorch does."""
    if array.dtype == np.uint64 and array.size and int(array.max()) > _INT64_MAX:
        raise MiniTorchError(
            f"tensor(): value {int(array.max())} overflows int64 (the largest is {_INT64_MAX}); "
            "MiniTorch integers are int64: use a float tensor for larger numbers"
        )
    if array.dtype == object and any(isinstance(v, int) for v in array.flat):
        raise MiniTorchError(
            "tensor(): an integer overflows int64 (MiniTorch integers are int64, from "
            f"{-_INT64_MAX - 1} to {_INT64_MAX}); use a float tensor for larger numbers"
        )
