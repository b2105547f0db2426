"""Selection ops: gather, index_select, scatter, masked_select, nonzero, unique and
count_nonzero.

Picking elements is indexing, so the backward of every selection op is a scatter: the
incoming gradient goes back to the positions the values came from, a zero gradient
everywhere else, and an element picked twice gets both gradients added (``index_add``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from minitorch import backends
from minitorch.autograd.function import BackwardNode, Function
from minitorch.errors import MiniTorchError, MiniTorchIndexError, check_dim
from minitorch.functions.arithmetic import unbroadcast
from minitorch.functions.bounds import check_index_range
from minitorch.functions.indexing import getitem, scatter_into, scatter_into_zeros
from minitorch.functions.ordering import Gather, along_axis
from minitorch.functions.reductions import normalize_dims
from minitorch.functions.shape import reshape
from minitorch.hints import Array, Gradients
from minitorch.size import broadcast_shape
from minitorch.tensor_base import T, TensorBase


# ---------------------------------------------------------------------- index checks
def _check_index(op: str, index: T) -> T:
    """``index`` must be an integer (int64) tensor: NumPy would read a bool one as a mask."""
    if not isinstance(index, TensorBase):
        raise TypeError(f"{op}(): argument 'index' must be Tensor, not {type(index).__name__}")
    if index.data.dtype.kind not in "iu":
        raise MiniTorchError(f"{op}(): expected dtype int64 for index, got {index.dtype}")
    return index


def _check_fits(op: str, index: TensorBase, axis: int, limits: Sequence[tuple[str, TensorBase, bool]]) -> None:
    """gather/scatter: index has the input's rank and is no larger than each limit (apart from ``axis``)."""
    for name, t, skip_axis in limits:
        if index.ndim != t.ndim:
            raise MiniTorchError(
                f"{op}: index tensor must have the same number of dimensions as {name} tensor: index "
                f"{tuple(index.shape)}, {name} {tuple(t.shape)}"
            )
        for d in range(index.ndim):
            if index.shape[d] > t.shape[d] and not (skip_axis and d == axis):
                raise MiniTorchError(
                    f"{op}: size does not match at dimension {d}: index {tuple(index.shape)} must be no "
                    f"larger than {name} {tuple(t.shape)}" + (f" apart from dimension {axis}" if skip_axis else "")
                )


# ---------------------------------------------------------------------- gather, index_select, scatter
def gather(input: T, dim: int, index: T, *, sparse_grad: bool = False) -> T:
    """out[i][j] = a[i][index[i][j]] for dim 1 (likewise for every dim): values picked along ``dim``."""
    index = _check_index("gather", index)
    axis = check_dim("gather", dim, input.ndim)
    if input.ndim <= 1 and index.ndim <= 1 and 0 in (input.ndim, index.ndim):  # PyTorch takes 0-d as 1-d here
        return reshape(gather(reshape(input, -1), 0, reshape(index, -1)), index.shape)
    if index.data.size == 0:  # nothing picked: PyTorch skips the shape checks and returns index's shape
        return reshape(getitem(reshape(input, -1), slice(0, 0)), tuple(index.shape))
    _check_fits("gather", index, axis, [("input", input, True)])
    return Gather.apply(input, index, axis)  # the Tensor: an in-place change before backward is caught


class IndexSelect(Function):
    """Slices ``index`` of ``a`` along ``axis``.   Backward adds each slice's gradient back, repeats summed."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array, index: Array, axis: int) -> Array:
        check_index_range("index_select", index, a.shape[axis], axis)
        ctx.save_for_backward(index)
        ctx.in_shape, ctx.axis = a.shape, axis
        return ctx.xp.take(a, index, axis=axis)

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        (index,) = ctx.saved_tensors
        where_from = (slice(None),) * ctx.axis + (index,)  # a slice picked twice gets both gradients
        return scatter_into_zeros(ctx.xp, ctx.in_shape, grad.dtype, where_from, grad, accumulate=True), None, None


def index_select(input: T, dim: int, index: T) -> T:
    """The slices of ``input`` along ``dim`` at the positions of the 1-D ``index`` (repeats allowed)."""
    index = _check_index("index_select", index)
    if index.ndim > 1:
        raise MiniTorchIndexError(f"index_select(): index is supposed to be a vector, got shape {tuple(index.shape)}")
    axis = check_dim("index_select", dim, input.ndim)
    if input.ndim == 0:
        if index.data.size != 1:
            raise MiniTorchError(f"index_select(): index to a 0-d tensor can have only 1 value, got {index.data.size}")
        return reshape(index_select(reshape(input, 1), 0, index), ())
    return IndexSelect.apply(input, reshape(index, -1), axis)


class Scatter(Function):
    """A copy of ``a`` with out[i][index[i][j]] = src[i][j] (for axis 1).

    grad_a: the incoming gradient, zero where a value was overwritten. grad_src: the
    gradient at the position each src value was written to (a gather).
    """

    @staticmethod
    def forward(ctx: BackwardNode, a: Array, index: Array, src: Array, axis: int) -> Array:
        check_index_range("scatter", index, a.shape[axis], axis)
        coords = along_axis(ctx.xp, index, axis)
        ctx.save_for_backward(index)
        ctx.axis = axis
        ctx.src_shape = src.shape
        out = a.copy()
        out[coords] = src[tuple(slice(0, n) for n in index.shape)]  # src may be larger than index
        return out

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        (index,) = ctx.saved_tensors
        xp = ctx.xp
        coords = along_axis(xp, index, ctx.axis)
        grad_a = scatter_into(grad, coords, 0)  # the overwritten elements of a no longer count
        used = tuple(slice(0, n) for n in index.shape)  # the part of src that was written
        grad_src = scatter_into_zeros(xp, ctx.src_shape, grad.dtype, used, grad[coords])
        return grad_a, None, grad_src, None


class ScatterReduce(Function):
    """``scatter(..., reduce="add" | "multiply")``: src values added to (multiplied into) ``a`` at ``index``.

    Repeated indices combine: each src value counts. PyTorch has no derivative for this form
    (it points to ``scatter_reduce``), so backward refuses, as there.
    """

    @staticmethod
    def forward(ctx: BackwardNode, a: Array, index: Array, src: Array, axis: int, reduce: str) -> Array:
        check_index_range("scatter", index, a.shape[axis], axis)
        coords = along_axis(ctx.xp, index, axis)
        values = src[tuple(slice(0, n) for n in index.shape)]  # src may be larger than index
        out = a.copy()
        if reduce == "add":
            backends.of(out).index_add(out, coords, values)
        elif backends.of(out).is_host:
            ctx.xp.multiply.at(out, coords, values)
        else:  # CuPy has no multiply.at (NotImplementedError)
            _multiply_at_by_slices(out, coords, values, axis)
        ctx.reduce = reduce
        return out

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        raise MiniTorchError(
            f"scatter(..., reduce={ctx.reduce!r}): the derivative is not implemented (as in PyTorch); for a "
            "gradient use scatter of the plain form, or index_add / a one-hot matmul for sums"
        )


def _multiply_at_by_slices(out: Array, coords: tuple[Array, ...], values: Array, axis: int) -> None:
    """``multiply.at(out, coords, values)`` without ``multiply.at``: one slice of the index along ``axis`` at a time.

    Two positions of the same slice differ in another coordinate, so their targets differ:
    within a slice a plain gather, multiply and scatter is exact. Repeated targets come from
    different slices and are multiplied in turn, slice 0 first, in NumPy's order.
    """
    for k in range(values.shape[axis]):
        part = (slice(None),) * axis + (slice(k, k + 1),)
        at = tuple(c[part] if c.shape[axis] != 1 else c for c in coords)  # the other coordinates broadcast
        out[at] = out[at] * values[part]


def scatter(
    input: T, dim: int, index: T, src: Any = None, *, value: Any = None, reduce: str | None = None
) -> T:
    """A copy of ``input`` with the values of ``src`` (a tensor or a number) written at ``index`` along ``dim``.

    ``reduce="add"`` or ``"multiply"`` combines them with ``input``'s values instead of
    overwriting (forward only: no gradient, as in PyTorch).
    """
    if reduce is not None and reduce not in ("add", "multiply"):
        raise MiniTorchError(f"scatter(): reduce argument must be either 'add' or 'multiply', got {reduce!r}")
    index = _check_index("scatter", index)
    src = value if src is None else src
    if src is None:
        raise TypeError("scatter(): expected a src tensor or a value")
    if not isinstance(src, TensorBase):
        src = TensorBase._make(
            backends.module_of(input.data).full(index.shape, src, dtype=input.data.dtype), None, False
        )
    if src.data.dtype != input.data.dtype:
        raise MiniTorchError(
            f"scatter(): expected self.dtype to be equal to src.dtype, got {input.dtype} and {src.dtype}"
        )
    axis = check_dim("scatter", dim, input.ndim)
    if input.ndim <= 1 and index.ndim <= 1 and 0 in (input.ndim, index.ndim):  # PyTorch takes 0-d as 1-d here
        flat = scatter(reshape(input, -1), 0, reshape(index, -1), reshape(src, -1), reduce=reduce)
        return reshape(flat, input.shape)
    _check_fits("scatter", index, axis, [("self", input, True), ("src", src, False)])
    if reduce is not None:
        return ScatterReduce.apply(input, index, src, axis, reduce)
    return Scatter.apply(input, index, src, axis)


# ---------------------------------------------------------------------- masks and nonzero
class MaskedSelect(Function):
    """The elements of ``a`` where ``mask`` is True, in order, as a 1-D array."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array, mask: Array, shape: tuple[int, ...]) -> Array:
        xp = ctx.xp
        mask = xp.broadcast_to(mask, shape)
        ctx.save_for_backward(mask)
        ctx.in_shape = a.shape
        return xp.broadcast_to(a, shape)[mask]

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        (mask,) = ctx.saved_tensors
        full = scatter_into_zeros(ctx.xp, mask.shape, grad.dtype, mask, grad)
        return unbroadcast(full, ctx.in_shape), None, None


def masked_select(input: T, mask: T) -> T:
    """The elements of ``input`` where the bool ``mask`` is True (both broadcast), as a 1-D tensor."""
    if not isinstance(mask, TensorBase) or mask.data.dtype.kind != "b":
        shown = mask.dtype if isinstance(mask, TensorBase) else type(mask).__name__
        raise MiniTorchError(f"masked_select: expected a bool tensor for mask, got {shown}")
    shape = broadcast_shape(tuple(input.shape), tuple(mask.shape), op="masked_select")
    return MaskedSelect.apply(input, mask, shape)


def nonzero(input: T, *, as_tuple: bool = False) -> T | tuple[T, ...]:
    """The indices of the non-zero elements: one row each (n, ndim), or one 1-D tensor per dim."""
    xp = backends.module_of(input.data)
    if as_tuple:
        found = xp.nonzero(input.data.reshape(1) if input.ndim == 0 else input.data)
        return tuple(TensorBase._make(i.astype("int64"), None, False) for i in found)
    # argwhere, not nonzero: a 0-d input gives (n, 0) rows, as PyTorch
    return TensorBase._make(xp.argwhere(input.data).astype("int64"), None, False)


def count_nonzero(input: T, dim: int | tuple[int, ...] | None = None) -> T:
    """How many elements are not zero, in all of ``input`` or over ``dim``."""
    axes = normalize_dims("count_nonzero", dim, input.ndim)
    count = (input.data != 0).sum(axis=axes)
    return TensorBase._make(backends.module_of(input.data).asarray(count, dtype="int64"), None, False)


def unique(
    input: T,
    sorted: bool = True,
    return_inverse: bool = False,
    return_counts: bool = False,
    dim: int | None = None,
) -> T | tuple[T, ...]:
    """The distinct values of ``input`` in increasing order (always sorted), or the distinct slices
    along ``dim``; optionally, for each element (slice) the position of its value in the result
    (``return_inverse``) and how often each value occurs (``return_counts``)."""
    xp = backends.module_of(input.data)
    axis = None if dim is None else check_dim("unique", dim, input.ndim)
    if axis is not None and input.ndim == 0:
        raise IndexError(f"unique: dimension {dim} is out of range for a 0-d tensor")
    if axis is not None and 0 in input.shape and (input.shape.count(0) > 1 or input.shape[axis] != 0):
        # PyTorch's rule: the slices along dim are compared, so an empty dim may only be dim itself.
        raise MiniTorchError(
            f"unique: shape {tuple(input.shape)} along dim {dim}: only dim itself may have size 0 "
            "(the slices compared must not be empty)"
        )
    if axis is None or input.ndim == 1:  # single values: the library's unique (a 1-D slice is one value)
        values, inverse, counts = xp.unique(input.data, return_inverse=True, return_counts=True)
    else:
        values, inverse, counts = _unique_slices(xp, input.data, axis)
    out = [TensorBase._make(values, None, False)]  # no gradient: which copy would it go to?
    if return_inverse:  # where each element's value (each slice along dim) is in ``values``
        shape = input.shape if axis is None else (input.shape[axis],)
        out.append(TensorBase._make(inverse.reshape(shape).astype("int64"), None, False))
    if return_counts:
        out.append(TensorBase._make(counts.astype("int64"), None, False))
    return out[0] if len(out) == 1 else tuple(out)


def _unique_slices(xp: Any, data: Array, axis: int) -> tuple[Array, Array, Array]:
    """``xp.unique(data, axis=axis, return_inverse=True, return_counts=True)``, on any device.

    Not CuPy's own: it sorts the slices in a Python loop that reads a value back to the
    host for every comparison (and refuses bools). Here each slice is flattened into a row,
    and the rows are put in order by one stable argsort per column, the last column first
    (so the first column decides, ties broken by the next: a radix sort). Equal rows are then
    neighbours; the first row of each run is a distinct value.
    """
    rows = xp.moveaxis(data, axis, 0)
    n = rows.shape[0]
    flat = rows.reshape(n, math.prod(rows.shape[1:]))
    order = xp.arange(n)
    for j in reversed(range(flat.shape[1])):
        order = order[xp.argsort(flat[order, j], kind="stable")]
    ranked = flat[order]
    first = xp.ones(n, dtype=bool)  # does a new run of equal rows start here?
    first[1:] = (ranked[1:] != ranked[:-1]).any(axis=1)
    inverse = xp.empty(n, dtype="int64")
    inverse[order] = xp.cumsum(first) - 1  # each row's run number, back in the input's order
    starts = xp.nonzero(first)[0]  # the one host sync: how many distinct slices there are
    counts = xp.diff(starts, append=n)
    return xp.moveaxis(rows[order[starts]], 0, axis), inverse, counts
