"""Checks on the Python data ``minitorch.tensor(data)`` turns into an array.

NumPy accepts more than PyTorch does, or fails with a message about its own internals:
nested lists must be rectangular, and integers must fit int64 (NumPy would make uint64 or
object arrays, and the values would wrap around silently in the conversion).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitorch import backends
from minitorch.dtypes import default_float, dtype_of_array, get_dtype
from minitorch.errors import MiniTorchError
from minitorch.hints import Array, DTypeLike

_INT64_MAX = np.iinfo(np.int64).max
MAX_DIMS = 64  # NumPy's (and so MiniTorch's) largest number of dimensions


def _where(path: list[int]) -> str:
    return "".join(f"[{i}]" for i in path) or "the data itself"


def check_nesting(data: list[Any] | tuple[Any, ...]) -> None:
    """Refuse nesting deeper than a tensor's dimensions, and a string where the numbers start.

    The dimensions are read from the first element at each level, as PyTorch does, so this
    walk is short and iterative: a list nested 10,000 deep (or containing itself) is told
    apart before anything recurses into it.
    """
    item: Any = data
    path: list[int] = []
    while isinstance(item, (list, tuple)) and len(item):
        if len(path) == MAX_DIMS:
            raise ValueError(
                f"tensor(): the data is nested more than {MAX_DIMS} lists deep, but a tensor has at most "
                f"{MAX_DIMS} dimensions; nest one list per dimension, e.g. [[1, 2], [3, 4]] for shape (2, 2)"
            )
        item = item[0]
        path.append(0)
    if isinstance(item, (str, bytes)) and path:  # PyTorch: ValueError "too many dimensions 'str'"
        raise ValueError(_string_message(item, path))


def _string_message(item: str | bytes, path: list[int]) -> str:
    return (
        f"tensor(): got the {type(item).__name__} {item!r} at {_where(path)}, but a tensor holds numbers only; "
        "convert it first (float('2.5'), int('3')) or map each word to an index, e.g. vocab[word]"
    )


def find_string(data: Any) -> tuple[str | bytes, list[int]] | None:
    """The first string (or bytes) in nested lists and where it is, or None; iterative, no recursion."""
    stack: list[tuple[Any, list[int]]] = [(data, [])]
    while stack:
        item, path = stack.pop()
        if isinstance(item, (str, bytes)):
            return item, path
        if isinstance(item, (list, tuple)) and len(path) < MAX_DIMS:
            stack.extend((child, [*path, i]) for i, child in reversed(list(enumerate(item))))
    return None


def string_error(data: Any) -> TypeError | None:
    """PyTorch's TypeError for a string among the numbers, naming it and its place; None if there is none."""
    found = find_string(data)
    return None if found is None else TypeError(_string_message(*found))


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


# ---------------------------------------------------------------------- data to a backend array
def to_array(data: Any, dtype: DTypeLike | None, device: Any, tensor_type: type[Any]) -> Array:
    """Build the backend array for ``minitorch.tensor(data, dtype, device)`` (always a copy).

    ``tensor_type`` is ``TensorBase`` (passed in: this module sits below the tensors).
    """
    if isinstance(data, tensor_type):
        array = data.data.copy()
    elif backends.is_backend_array(data):
        check_fits_int64(data)
        array = data.copy()
    else:
        saw_float64: list[bool] = []  # set by _unwrap_nested: a float64 array or NumPy scalar inside
        if isinstance(data, (list, tuple)):
            data = _unwrap_nested(data, saw_float64, tensor_type)
        try:
            array = np.array(data)
        except ValueError:
            if isinstance(data, list):
                check_rectangular(data)  # says which dimension is ragged (only when NumPy failed)
            raise
        check_fits_int64(array)
        if (
            dtype is None
            and array.dtype == np.float64
            and not isinstance(data, (np.ndarray, np.floating))
            and not saw_float64
        ):
            # Python floats make default-dtype (float32) tensors, as in PyTorch; NumPy float64
            # stays float64, inside a list too ([np.float64(1), 2.0], [t64_a, t64_b]).
            array = array.astype(default_float().np_dtype)
        if array.dtype.kind not in "biuf":
            raise TypeError(
                f"tensor(): could not make a tensor from {type(data).__name__} data (NumPy made "
                f"dtype {array.dtype}); pass numbers, nested lists of numbers or an array"
            )
    target = get_dtype(dtype) if dtype is not None else dtype_of_array(array)
    if array.dtype != target.np_dtype:
        array = array.astype(target.np_dtype)
    keeps_its_device = isinstance(data, tensor_type) or (
        backends.is_backend_array(data) and type(data) is not np.ndarray
    )
    if device is None and keeps_its_device:
        return array  # a copy where the data already lives (a tensor, a GPU array), as torch.tensor(t)
    return backends.to_device(array, backends.normalize_device(device))


def _unwrap_nested(data: list[Any] | tuple[Any, ...], saw_float64: list[bool], tensor_type: type[Any]) -> list[Any]:
    """Replace Tensors inside nested lists by their values (``tensor([t1, t2])``); append
    True to ``saw_float64`` if an item is float64 NumPy data (which decides the dtype)."""
    out: list[Any] = []
    for item in data:
        if isinstance(item, tensor_type):
            item = backends.to_device(item.data, "cpu")
        elif isinstance(item, (list, tuple)):
            item = _unwrap_nested(item, saw_float64, tensor_type)
        if getattr(item, "dtype", None) == np.float64 and not saw_float64:
            saw_float64.append(True)
        out.append(item)
    return out
