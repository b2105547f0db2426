"""Ordering ops: sort, argsort, topk, flip, roll.

``sort`` and ``topk`` are two steps: find the order (``argsort``, no gradient: an index
is a constant), then ``gather`` the values in that order. The gradient of a gathered
value goes back to the element it came from, so ``Gather`` is the only op here whose
backward has to scatter.
(The running ``cumsum``/``cumprod`` and ``prod`` are in ``cumulative.py``; ``norm`` in ``linalg.py``.)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from minitorch import backends
from minitorch.autograd.function import BackwardNode, Function
from minitorch.errors import MiniTorchError, check_dim, check_int
from minitorch.functions.bounds import check_index_range
from minitorch.functions.conversion import Clone
from minitorch.functions.indexing import scatter_into_zeros
from minitorch.functions.shape import reshape
from minitorch.hints import Array, Gradients
from minitorch.return_types import SortResult, TopKResult
from minitorch.tensor_base import T, TensorBase


def along_axis(xp: Any, index: Array, axis: int) -> tuple[Array, ...]:
    """The advanced index that reads ``a[..., index[i, j, k], ...]`` at each position (i, j, k).

    ``index`` replaces the coordinate along ``axis``; every other coordinate is the
    position's own (an ``arange`` shaped to broadcast). ``a[coords]`` is ``gather``, and
    ``scatter_into_zeros(..., coords, grad, accumulate=True)`` is its backward.
    """
    coords = []
    for d, n in enumerate(index.shape):
        if d == axis:
            coords.append(index)
        else:
            shape = [1] * index.ndim
            shape[d] = n
            coords.append(xp.arange(n).reshape(shape))
    return tuple(coords)


class Gather(Function):
    """out[i][j] = a[i][index[i][j]] (for axis 1).   The gradient is added back where each value came from."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array, index: Array, axis: int) -> Array:
        # Checked here, in the op, so that a replay of a compiled step checks its indices too.
        check_index_range("gather", index, a.shape[axis], axis)
        ctx.save_for_backward(index)
        ctx.in_shape, ctx.axis = a.shape, axis
        return a[along_axis(ctx.xp, index, axis)]

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        (index,) = ctx.saved_tensors
        # add, not assign: gather may read one element several times (index [0, 0])
        coords = along_axis(ctx.xp, index, ctx.axis)
        return scatter_into_zeros(ctx.xp, ctx.in_shape, grad.dtype, coords, grad, accumulate=True), None, None


def sort_order(xp: Any, a: Array, axis: int, descending: bool) -> Array:
    """The int64 positions that sort ``a`` along ``axis``; equal values keep their order (stable)."""
    if not descending:
        return xp.argsort(a, axis=axis, kind="stable").astype("int64", copy=False)
    # Not argsort(-a): that fails for bool and unsigned data. Sort the reversed array and
    # reverse the result; ties then keep their order and NaN comes first, as in PyTorch.
    order = xp.argsort(xp.flip(a, axis), axis=axis, kind="stable")
    return xp.flip(a.shape[axis] - 1 - order, axis).astype("int64", copy=False)


def as_1d(op: str, a: T, dim: int) -> tuple[T, int]:
    """A 0-d tensor seen as 1-d (PyTorch treats it as one element); ``dim`` checked."""
    axis = check_dim(op, dim, a.ndim)
    return (reshape(a, 1), 0) if a.ndim == 0 else (a, axis)


def back_to_0d(a: T, *outs: T) -> tuple[T, ...]:
    """Undo ``as_1d`` on results: 0-d input, 0-d outputs."""
    return tuple(reshape(o, ()) if a.ndim == 0 else o for o in outs)


def _constant(array: Array) -> Any:
    """An index result: a tensor that is not part of the graph."""
    return TensorBase._make(array, None, False)


def sort(input: TensorBase, dim: int = -1, descending: bool = False, stable: bool = False) -> SortResult:
    """(values, indices) of ``input`` sorted along ``dim``; the gradient follows each value home.

    The sort is always stable (``stable`` is accepted for PyTorch's signature).
    """
    x, axis = as_1d("sort", input, dim)
    index = sort_order(backends.module_of(x.data), x.data, axis, descending)
    values = Gather.apply(x, index, axis)
    return SortResult(*back_to_0d(input, values, _constant(index)))


def argsort(input: T, dim: int = -1, descending: bool = False, stable: bool = False) -> T:
    """The indices that sort ``input`` along ``dim`` (``sort(a, dim).indices``)."""
    x, axis = as_1d("argsort", input, dim)
    index = sort_order(backends.module_of(x.data), x.data, axis, descending)
    return back_to_0d(input, _constant(index))[0]


def topk(input: TensorBase, k: int, dim: int = -1, largest: bool = True, sorted: bool = True) -> TopKResult:
    """The ``k`` largest (or smallest) elements along ``dim`` and their indices, best first.

    The result is always sorted (PyTorch leaves the order open when ``sorted=False``).
    """
    k = check_int("topk", "k", k)
    x, axis = as_1d("topk", input, dim)  # a bad dim is an IndexError first, as in PyTorch
    if input.data.dtype.kind == "b":
        raise MiniTorchError("topk: does not support bool tensors (as PyTorch); convert first, e.g. .long()")
    n = x.shape[axis]
    if input.ndim == 0 and k in (0, 1):  # PyTorch gives the element itself for k=0 too
        return TopKResult(*sort(input))
    if not 0 <= k <= n:
        raise MiniTorchError(
            f"topk: selected index k out of range: k={k} but dimension {axis} of shape {tuple(input.shape)} "
            f"has {n} elements"
        )
    order = sort_order(backends.module_of(x.data), x.data, axis, descending=largest)
    index = order[(slice(None),) * axis + (slice(0, k),)]
    return TopKResult(Gather.apply(x, index, axis), _constant(index))


# ---------------------------------------------------------------------- flip and roll
class Flip(Function):
    """The elements in reverse order along ``axes``.   Backward reverses the gradient the same way."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array, axes: tuple[int, ...]) -> Array:
        ctx.axes = axes
        return ctx.xp.flip(a, axes).copy()  # a copy, as PyTorch (NumPy's flip is a view)

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        return ctx.xp.flip(grad, ctx.axes), None


def flip(input: T, *dims_given: Any, dims: Sequence[int] | None = None) -> T:
    """A copy reversed along each of ``dims``: ``flip(x, 0, 1)``, ``flip(x, [0, 1])``, ``flip(x, dims=[0])``."""
    if dims is not None:
        dims_given = (dims,)
    one = len(dims_given) == 1 and isinstance(dims_given[0], (tuple, list))
    listed = tuple(dims_given[0]) if one else dims_given
    axes = tuple(check_dim("flip", d, input.ndim) for d in listed)
    if len(set(axes)) != len(axes):
        raise MiniTorchError(f"flip: dims {listed}: a dim appears multiple times in the list of dims")
    return Flip.apply(input, axes if input.ndim else ())


class Roll(Function):
    """Elements shifted by ``shifts`` along ``axes``, those pushed off the end coming back at the start.
    Backward rolls the gradient back. ``axes`` None: over the flattened tensor."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array, shifts: Any, axes: Any) -> Array:
        ctx.shifts, ctx.axes = shifts, axes
        return ctx.xp.roll(a, shifts, axes)

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        back = -ctx.shifts if ctx.axes is None else tuple(-s for s in ctx.shifts)
        return ctx.xp.roll(grad, back, ctx.axes), None, None


def roll(input: T, shifts: int | Sequence[int], dims: int | Sequence[int] | None = None) -> T:
    """``input`` shifted cyclically by ``shifts`` along ``dims`` (over all elements when dims is None)."""
    shift_list = tuple(shifts) if isinstance(shifts, (tuple, list)) else (shifts,)
    shift_list = tuple(check_int("roll", "shifts", s) for s in shift_list)
    if not shift_list:
        raise MiniTorchError("roll: `shifts` required (got an empty list)")
    if dims is None:
        if len(shift_list) != 1:
            raise MiniTorchError(f"roll: shifts {shift_list} need dims (one shift per dim); without dims give one int")
        return Roll.apply(input, shift_list[0], None)
    dim_list = tuple(dims) if isinstance(dims, (tuple, list)) else (dims,)
    if len(shift_list) != len(dim_list):
        raise MiniTorchError(
            f"roll: shifts and dimensions must align: shifts {shift_list} ({len(shift_list)}), dims "
            f"{dim_list} ({len(dim_list)})"
        )
    if input.ndim == 0:
        raise IndexError(f"roll: dimension specified as {dim_list[0]} but tensor has no dimensions")
    if input.data.size == 0:  # nothing to move: PyTorch returns a copy without checking dims
        return Clone.apply(input)
    axes = tuple(check_dim("roll", d, input.ndim) for d in dim_list)
    return Roll.apply(input, shift_list, axes)
