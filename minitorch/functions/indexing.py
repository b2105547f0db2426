"""Indexing ``t[...]``: ints, slices (with steps), None, Ellipsis, integer and boolean arrays.

Forward is NumPy indexing. Backward scatters the gradient into a zero tensor of the
input's shape; with integer arrays an element can be picked several times, so the
gradients are added (``add.at``), never just assigned.

Backward formulas write into arrays through ``scatter_into`` and ``scatter_into_zeros``
rather than ``a[index] = v``: on arrays they are that in-place write on a fresh array
(today's speed), and under ``create_graph=True``, on graph values, they are the
differentiable ``IndexPut`` (``index_put`` in ``array_api.py``), so the scatter itself can
be differentiated again (its backward is a gather: ``grad[index]``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitorch import backends
from minitorch.autograd.function import BackwardNode, Function
from minitorch.autograd.graph_arrays import GraphArray, call
from minitorch.errors import MiniTorchError, warn_user
from minitorch.hints import Array, Gradients
from minitorch.tensor_base import T, TensorBase


def _is_basic(index: Any) -> bool:
    """True when the index holds only ints, slices, None and Ellipsis (no repeats possible)."""
    items = index if isinstance(index, tuple) else (index,)
    return all(i is None or i is Ellipsis or isinstance(i, (int, slice)) for i in items)


class Index(Function):
    """a[index]."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array, index: Any) -> Array:
        ctx.basic = _is_basic(index)
        if not ctx.basic:
            index = _index_on_device(index, backends.device_of(a))
        ctx.in_shape, ctx.in_dtype, ctx.index = a.shape, a.dtype, index
        return a[index]

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        # A basic index picks each element once: written. Index arrays may repeat one: added.
        return scatter_into_zeros(ctx.xp, ctx.in_shape, grad.dtype, ctx.index, grad, accumulate=not ctx.basic), None


def scatter_into_zeros(xp: Any, shape: Any, dtype: Any, index: Any, values: Any, accumulate: bool = False) -> Any:
    """Zeros of ``shape`` with ``values`` written at ``index`` (``accumulate``: added, repeats summed).

    The gradient of picking ``a[index]``. On arrays: ``full[index] = values`` (or the
    backend's ``index_add``) on a fresh array; on graph values: the differentiable IndexPut.
    """
    if isinstance(values, GraphArray):
        return call("index_put", xp.zeros(shape, dtype=dtype), index, values, accumulate)
    full = xp.zeros(shape, dtype=dtype)
    if accumulate:
        backends.of(full).index_add(full, index, values)
    else:
        full[index] = values
    return full


def scatter_into(a: Any, index: Any, values: Any, accumulate: bool = False, copy: bool = True) -> Any:
    """A copy of ``a`` with ``values`` (an array or a number) written at ``index`` (``accumulate``: added).

    On arrays: a copy, then the in-place write (``copy=False``: into ``a`` itself, a fresh
    array the caller made); on graph values: the differentiable IndexPut, never in place.
    """
    if isinstance(a, GraphArray) or isinstance(values, GraphArray):
        return call("index_put", a, index, values, accumulate)
    out = a.copy() if copy else a
    if accumulate:
        backends.of(out).index_add(out, index, values)
    else:
        out[index] = values
    return out


def _index_on_device(index: Any, device: str) -> Any:
    """Index arrays moved next to the data they index.

    A host (NumPy) index for a GPU tensor is uploaded once, as PyTorch does; a GPU index
    for a CPU tensor is refused, since using it would mean a silent copy to the host.
    """
    items = index if isinstance(index, tuple) else (index,)
    moved = []
    for item in items:
        if backends.is_backend_array(item) and backends.device_of(item) != device:
            if device == "cpu":
                raise MiniTorchError(
                    "index: indices are on cuda but the indexed tensor is on cpu; indices must "
                    "be on the cpu or on the same device as the tensor (use idx.cpu())"
                )
            item = backends.to_device(item, device)
        moved.append(item)
    return tuple(moved) if isinstance(index, tuple) else moved[0]


def sequence_as_tuple(index: Any) -> Any:
    """PyTorch's (and old NumPy's) rule: a short list holding a list, tuple, Tensor, slice,
    None or ``...`` is a tuple of indices, so ``x[[[0], [1]]]`` is ``x[[0], [1]]``.

    PyTorch warns that this reading is deprecated (NumPy reads such a list as one index
    array), and so does MiniTorch: writing the tuple says which one is meant.
    """
    if isinstance(index, list) and len(index) < 32:
        if any(isinstance(i, (list, tuple, TensorBase, slice)) or i is None or i is Ellipsis for i in index):
            warn_user(
                "Using a non-tuple sequence for multidimensional indexing is deprecated (as in PyTorch); "
                "use x[tuple(seq)] instead of x[seq] (or x[minitorch.tensor(seq)] for one index array)"
            )
            return tuple(index)
    return index


def index_arrays(index: Any, device: str) -> Any:
    """``index`` as the array library indexes data on ``device``: Tensors and lists become
    arrays there, with getitem's rules (``t[index] = value`` uses it)."""
    index = sequence_as_tuple(index)
    index = tuple(_convert(i) for i in index) if isinstance(index, tuple) else _convert(index)
    return _index_on_device(index, device)


def _convert(item: Any) -> Any:
    """Index parts to what NumPy indexes with: Tensors become their arrays."""
    if isinstance(item, TensorBase):
        data = item.data
        if data.dtype.kind == "f":
            raise IndexError(
                f"index: tensors used as indices must be long (int64) or bool, got {item.dtype}"
            )
        return data
    if isinstance(item, list):
        array = np.asarray([i.item() if isinstance(i, TensorBase) else i for i in item])
        # An empty list selects nothing (PyTorch: x[[]] has shape (0, ...)); NumPy would
        # make it a float array and refuse it as an index.
        return array.astype(np.int64) if array.size == 0 else array
    if isinstance(item, slice) and item.step is not None and item.step <= 0:
        # NumPy reverses with step -1; PyTorch refuses it (use flip).
        raise ValueError(f"index: slice step must be greater than zero, got {item}")
    return item


def getitem(a: T, index: Any) -> T:
    """``a[index]`` as a recorded op."""
    index = sequence_as_tuple(index)
    if a.ndim == 0 and (
        _is_int(index) or isinstance(index, TensorBase) and index.ndim == 0 and index.data.dtype.kind != "b"
    ):
        raise IndexError(
            f"index: invalid index {index!r} of a 0-dim tensor, which has no dimension to index; "
            "use tensor.item() to get its number"
        )
    index = tuple(_convert(i) for i in index) if isinstance(index, tuple) else _convert(index)
    if isinstance(index, tuple) and _mixes_ints_and_arrays(index):
        # NumPy counts an int next to an index array as one more index array, which can move
        # dimensions: for x of shape (2, 3, 2), x[0, :, [1, 0]] is (2, 3) in NumPy but (3, 2)
        # in PyTorch, which first selects with the ints. Do as PyTorch: two steps.
        ints_applied, arrays_left = _split_ints_from_arrays(index)
        return Index.apply(Index.apply(a, ints_applied), arrays_left)
    return Index.apply(a, index)


def _is_int(item: Any) -> bool:
    return isinstance(item, (int, np.integer)) and not isinstance(item, (bool, np.bool_))


def _mixes_ints_and_arrays(index: tuple[Any, ...]) -> bool:
    return any(_is_int(i) for i in index) and any(backends.is_backend_array(i) for i in index)


def _split_ints_from_arrays(index: tuple[Any, ...]) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """``x[index]`` as ``x[ints_applied][arrays_left]``: ints, slices and None first."""
    ints_applied: list[Any] = []
    arrays_left: list[Any] = []
    for item in index:
        if backends.is_backend_array(item):
            # Keep the dims the array will index (a k-d bool mask covers k of them).
            ints_applied.extend([slice(None)] * (item.ndim if item.dtype == bool else 1))
            arrays_left.append(item)
        elif _is_int(item):
            ints_applied.append(item)  # its dimension is gone after the first step
        else:  # a slice, None or Ellipsis: applied first; its dims stay for the second step
            ints_applied.append(item)
            arrays_left.append(Ellipsis if item is Ellipsis else slice(None))
    return tuple(ints_applied), tuple(arrays_left)
