"""Ordering ops: sort, argsort, topk, flip, roll, the running cumsum/cumprod, prod and norm.

``sort`` and ``topk`` are two steps: find the order (``argsort``, no gradient: an index
is a constant), then ``gather`` the values in that order. The gradient of a gathered
value goes back to the element it came from, so ``Gather`` is the only op here whose
backward has to scatter. The products (``cumprod``, ``prod``) divide by the input in
backward, which breaks at zeros: their backward treats zeros separately, as PyTorch does.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from minitorch import backends
from minitorch.autograd.function import BackwardNode, Function
from minitorch.dtypes import get_dtype
from minitorch.errors import MiniTorchError, check_dim, check_int
from minitorch.functions.autocast_policy import autocast_inputs
from minitorch.functions.reductions import Dims, _drop_reduced, _grad_keepdim, normalize_dims
from minitorch.hints import Array, DTypeLike, Gradients
from minitorch.return_types import SortResult, TopKResult
from minitorch.switches import SWITCHES
from minitorch.tensor_base import TensorBase

if TYPE_CHECKING:  # the face, for annotations only: never imported at run time (no cycle)
    from minitorch.tensor import Tensor


def along_axis(xp: Any, index: Array, axis: int) -> tuple[Array, ...]:
    """The advanced index that reads ``a[..., index[i, j, k], ...]`` at each position (i, j, k).

    ``index`` replaces the coordinate along ``axis``; every other coordinate is the
    position's own (an ``arange`` shaped to broadcast). ``a[coords]`` is ``gather``, and
    ``index_add(full, coords, grad)`` is its backward.
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
        ctx.save_for_backward(index)
        ctx.in_shape, ctx.axis = a.shape, axis
        return a[along_axis(ctx.xp, index, axis)]

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        (index,) = ctx.saved_tensors
        full = ctx.xp.zeros(ctx.in_shape, dtype=grad.dtype)
        # add, not assign: gather may read one element several times (index [0, 0])
        backends.of(full).index_add(full, along_axis(ctx.xp, index, ctx.axis), grad)
        return full, None, None


def sort_order(xp: Any, a: Array, axis: int, descending: bool) -> Array:
    """The int64 positions that sort ``a`` along ``axis``; equal values keep their order (stable)."""
    if not descending:
        return xp.argsort(a, axis=axis, kind="stable").astype("int64", copy=False)
    # Not argsort(-a): that fails for bool and unsigned data. Sort the reversed array and
    # reverse the result; ties then keep their order and NaN comes first, as in PyTorch.
    order = xp.argsort(xp.flip(a, axis), axis=axis, kind="stable")
    return xp.flip(a.shape[axis] - 1 - order, axis).astype("int64", copy=False)


def _as_1d(op: str, a: TensorBase, dim: int) -> tuple[Tensor, int]:
    """A 0-d tensor seen as 1-d (PyTorch treats it as one element); ``dim`` checked."""
    axis = check_dim(op, dim, a.ndim)
    return (a.reshape(1), 0) if a.ndim == 0 else (a, axis)


def _back_to_0d(a: TensorBase, *outs: TensorBase) -> tuple[Tensor, ...]:
    """Undo ``_as_1d`` on results: 0-d input, 0-d outputs."""
    return tuple(o.reshape(()) if a.ndim == 0 else o for o in outs)


def _constant(array: Array) -> Tensor:
    """An index result: a tensor that is not part of the graph."""
    return TensorBase._make(array, None, False)


def sort(input: TensorBase, dim: int = -1, descending: bool = False, stable: bool = False) -> SortResult:
    """(values, indices) of ``input`` sorted along ``dim``; the gradient follows each value home.

    The sort is always stable (``stable`` is accepted for PyTorch's signature).
    """
    x, axis = _as_1d("sort", input, dim)
    index = sort_order(backends.module_of(x.data), x.data, axis, descending)
    values = Gather.apply(x, index, axis)
    return SortResult(*_back_to_0d(input, values, _constant(index)))


def argsort(input: TensorBase, dim: int = -1, descending: bool = False, stable: bool = False) -> Tensor:
    """The indices that sort ``input`` along ``dim`` (``sort(a, dim).indices``)."""
    x, axis = _as_1d("argsort", input, dim)
    index = sort_order(backends.module_of(x.data), x.data, axis, descending)
    return _back_to_0d(input, _constant(index))[0]


def topk(input: TensorBase, k: int, dim: int = -1, largest: bool = True, sorted: bool = True) -> TopKResult:
    """The ``k`` largest (or smallest) elements along ``dim`` and their indices, best first.

    The result is always sorted (PyTorch leaves the order open when ``sorted=False``).
    """
    k = check_int("topk", "k", k)
    x, axis = _as_1d("topk", input, dim)  # a bad dim is an IndexError first, as in PyTorch
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


# ---------------------------------------------------------------------- running sums and products
def _reverse_cumsum(xp: Any, g: Array, axis: int) -> Array:
    """sum of g[j] for j >= i, at each i (a cumsum run from the end)."""
    return xp.flip(xp.cumsum(xp.flip(g, axis), axis=axis), axis)


class CumSum(Function):
    """out[i] = a[0] + ... + a[i].   a[j] counts in every out[i >= j]: grad = reversed cumsum of grad."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array, axis: int) -> Array:
        ctx.axis = axis
        if a.dtype == "float16":  # add up in float32, round once (as PyTorch)
            return a.cumsum(axis=axis, dtype="float32").astype(a.dtype)
        return a.cumsum(axis=axis)

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        return _reverse_cumsum(ctx.xp, grad, ctx.axis), None


class CumProd(Function):
    """out[i] = a[0] * ... * a[i].

    Without zeros, d out[i] / d a[k] = out[i] / a[k], so grad[k] = sum over i >= k of
    grad_out[i] * out[i], divided by a[k]. At zeros that division fails; only the first
    zero of a slice has a non-zero gradient (every later product holds that zero), and it
    is computed without dividing: (product before it) * sum over i >= z of grad_out[i] *
    (product of a[z+1..i]). Products past the second zero are taken as exactly 0, even with
    an inf or NaN beside them, as PyTorch does.
    """

    @staticmethod
    def forward(ctx: BackwardNode, a: Array, axis: int) -> Array:
        if a.dtype == "float16":  # multiply in float32, round once
            out = a.cumprod(axis=axis, dtype="float32").astype(a.dtype)
        else:
            out = a.cumprod(axis=axis)
        ctx.save_for_backward(a, out)
        ctx.axis = axis
        return out

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        a, out = ctx.saved_tensors
        xp, axis = ctx.xp, ctx.axis
        if a.size == 0 or a.shape[axis] == 1:  # out = a: the gradient passes (for inf and NaN too)
            return grad, None
        shape = [1] * a.ndim
        shape[axis] = a.shape[axis]
        pos = xp.arange(a.shape[axis]).reshape(shape)  # each element's position along axis
        is_zero = a == 0
        zeros_so_far = is_zero.cumsum(axis=axis)  # how many zeros among a[0..i]
        before_zero = zeros_so_far == 0
        first = xp.where(is_zero.any(axis=axis, keepdims=True), is_zero.argmax(axis=axis, keepdims=True), a.shape[axis])
        # Before the first zero (everywhere when there is none): the division formula, over the
        # products before the zero only (the later ones hold it: exactly 0).
        safe = xp.where(before_zero, a, 1)  # 1 from the first zero on: nothing to divide by 0
        result = xp.where(before_zero, _reverse_cumsum(xp, xp.where(before_zero, grad * out, 0), axis) / safe, 0)
        # At the first zero: no division, summed up to the second zero (PyTorch stops there too).
        # After it: 0, as set above.
        before = safe.prod(axis=axis, keepdims=True)  # a[0] * ... * a[z-1]
        after = xp.where(pos > first, a, 1).cumprod(axis=axis)  # a[z+1] * ... * a[i]
        up_to_second = (zeros_so_far >= 1) & (zeros_so_far - is_zero <= 1)  # first zero <= i <= second zero
        at_zero = before * xp.where(up_to_second, grad * after, 0).sum(axis=axis, keepdims=True)
        result = xp.where(pos == first, at_zero, result)
        return result.astype(a.dtype, copy=False), None


def _running(op: str, fn: type[Function], a: TensorBase, dim: int, dtype: DTypeLike | None) -> Tensor:
    """cumsum/cumprod: ``dtype`` first (bool and int inputs count in int64, as PyTorch)."""
    check_dim(op, dim, a.ndim)  # a bad dim is reported before a bad dtype, as in PyTorch
    if dtype is not None:
        a = _to_dtype(op, a, dtype)
    elif a.data.dtype.kind in "biu":
        a = a.long()
    x, axis = _as_1d(op, a, dim)
    return _back_to_0d(a, fn.apply(x, axis))[0]


def _to_dtype(op: str, a: TensorBase, dtype: DTypeLike) -> Tensor:
    """``a`` converted to the ``dtype=`` argument; PyTorch refuses an integer one when ``a`` needs a gradient."""
    target = get_dtype(dtype)
    if not target.is_floating_point and a.requires_grad and SWITCHES.grad_enabled:
        raise MiniTorchError(
            f"{op}: autograd does not support dtype {target} (the {a.dtype} input requires grad); "
            "use a floating dtype, or detach the input first"
        )
    return a.to(target)


def cumsum(input: TensorBase, dim: int, dtype: DTypeLike | None = None) -> Tensor:
    """Running sum along ``dim``: out[i] = a[0] + ... + a[i]."""
    if dtype is None:  # an explicit dtype is not autocast (PyTorch's rule)
        (input,) = autocast_inputs("cumsum", input)
    return _running("cumsum", CumSum, input, dim, dtype)


def cumprod(input: TensorBase, dim: int, dtype: DTypeLike | None = None) -> Tensor:
    """Running product along ``dim``: out[i] = a[0] * ... * a[i] (gradient exact at zeros)."""
    if dtype is None:
        (input,) = autocast_inputs("cumprod", input)
    return _running("cumprod", CumProd, input, dim, dtype)


def _others_product(xp: Any, a: Array, axis: int) -> Array:
    """At each i, the product of every a[j] with j != i along ``axis``, without dividing:
    (a[0] * ... * a[i-1]) * (a[i+1] * ... * a[n-1]), exact at zeros."""
    n = a.shape[axis]

    def part(start: int, stop: int) -> Array:
        return a[(slice(None),) * axis + (slice(start, stop),)]

    ones = xp.ones_like(part(0, 1))
    left = xp.concatenate([ones, xp.cumprod(part(0, n - 1), axis=axis)], axis=axis)
    right = xp.concatenate([ones, xp.cumprod(xp.flip(part(1, n), axis), axis=axis)], axis=axis)
    return left * xp.flip(right, axis)


class Prod(Function):
    """Product over ``axes``.   d/da[k] = product of the others: out / a[k] if no zero, else see backward.

    As PyTorch: along one dim, once any element is 0 every slice takes the product of the
    others without dividing; over all elements, one zero gets the product of the others and
    two or more zeros give 0 everywhere (inf and NaN then follow PyTorch too).
    """

    @staticmethod
    def forward(ctx: BackwardNode, a: Array, axes: tuple[int, ...], keepdim: bool, whole: bool) -> Array:
        out = a.prod(axis=axes, keepdims=True)
        ctx.save_for_backward(a, out)
        ctx.axes, ctx.keepdim, ctx.whole = axes, keepdim, whole
        return _drop_reduced(out, axes, keepdim)

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        a, out = ctx.saved_tensors
        xp, axes = ctx.xp, ctx.axes
        grad = _grad_keepdim(grad, axes, ctx.keepdim)
        if a.ndim == 0 or a.size == 0:  # out = a (0-d): the gradient passes, for inf and NaN too
            return grad * xp.ones_like(a), None, None, None
        is_zero = a == 0
        divided = out / xp.where(is_zero, 1, a)  # no zero: out / a
        if ctx.whole:  # one zero: the product of the others; two or more: every product holds a 0
            zeros = is_zero.sum()
            others = _others_product(xp, a.reshape(-1), 0).reshape(a.shape)
            local = xp.where(zeros == 0, divided, xp.where(zeros == 1, others, 0))
        else:
            local = xp.where(is_zero.any(), _others_product(xp, a, axes[0]), divided)
        return (grad * local).astype(a.dtype, copy=False), None, None, None


def prod(
    input: TensorBase, dim: int | None = None, keepdim: bool = False, dtype: DTypeLike | None = None
) -> Tensor:
    """Product of all elements, or along ``dim`` (one int, as in PyTorch); bool and int give int64."""
    if dim is not None:  # a bad dim is reported before a bad dtype, as in PyTorch
        check_dim("prod", dim, input.ndim)
    if dtype is not None:
        input = _to_dtype("prod", input, dtype)
    else:  # an explicit dtype is not autocast (PyTorch's rule); float32 under autocast
        (input,) = autocast_inputs("prod", input)
    if dtype is None and input.data.dtype.kind in "biu":
        input = input.long()
    if dim is not None:
        dim = check_int("prod", "dim", dim)
    elif keepdim:
        raise TypeError("prod(): keepdim=True needs a dim (PyTorch has no prod(keepdim=True) of all elements)")
    return Prod.apply(input, normalize_dims("prod", dim, input.ndim), keepdim, dim is None)


# ---------------------------------------------------------------------- norm
class Norm2(Function):
    """sqrt(sum(a ** 2)) over ``axes``.   d/da = a / norm, taken as 0 where the norm is 0 (as PyTorch)."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array, axes: tuple[int, ...], keepdim: bool) -> Array:
        wide = a.astype("float32") if a.dtype == "float16" else a  # square and add in float32
        out = ctx.xp.sqrt((wide * wide).sum(axis=axes, keepdims=True)).astype(a.dtype, copy=False)
        ctx.save_for_backward(a, out)
        ctx.axes, ctx.keepdim = axes, keepdim
        return _drop_reduced(out, axes, keepdim)

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        a, out = ctx.saved_tensors
        grad = _grad_keepdim(grad, ctx.axes, ctx.keepdim)
        scale = ctx.xp.where(out == 0, 0, grad / ctx.xp.where(out == 0, 1, out))
        return (a * scale).astype(a.dtype, copy=False), None, None


class NormInf(Function):
    """The largest |a| (p = inf) or the smallest (p = -inf) over ``axes``.

    d/da = sign(a) at the elements that reach it (ties share the gradient), 0 elsewhere; a NaN
    result matches no element, so every gradient is 0 (as PyTorch, where amax would give NaN).
    """

    @staticmethod
    def forward(ctx: BackwardNode, a: Array, smallest: bool, axes: tuple[int, ...], keepdim: bool) -> Array:
        magnitude = ctx.xp.abs(a)
        out = magnitude.min(axis=axes, keepdims=True) if smallest else magnitude.max(axis=axes, keepdims=True)
        ctx.save_for_backward(a, out)
        ctx.axes, ctx.keepdim = axes, keepdim
        return _drop_reduced(out, axes, keepdim)

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        a, out = ctx.saved_tensors
        xp = ctx.xp
        grad = _grad_keepdim(grad, ctx.axes, ctx.keepdim)
        hit = xp.abs(a) == out
        share = grad / xp.maximum(hit.sum(axis=ctx.axes, keepdims=True), 1)  # split among ties
        return xp.where(hit, xp.sign(a) * share, 0).astype(a.dtype, copy=False), None, None, None


class NormP(Function):
    """(sum of |a| ** p) ** (1/p) over ``axes``, for a finite p other than 1 and 2; p = 0 counts
    the non-zero elements (no gradient). Zeros get gradient 0, as in PyTorch."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array, p: float, axes: tuple[int, ...], keepdim: bool) -> Array:
        magnitude = ctx.xp.abs(a.astype("float32") if a.dtype == "float16" else a)
        if p == 0:
            out = (magnitude != 0).sum(axis=axes, keepdims=True).astype(magnitude.dtype)
        else:
            out = (magnitude**p).sum(axis=axes, keepdims=True) ** (1 / p)
        out = out.astype(a.dtype, copy=False)
        ctx.save_for_backward(a, out)
        ctx.p, ctx.axes, ctx.keepdim = p, axes, keepdim
        return _drop_reduced(out, axes, keepdim)

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        a, out = ctx.saved_tensors
        xp, p = ctx.xp, ctx.p
        if p == 0:  # a count: flat almost everywhere
            return xp.zeros_like(a), None, None, None
        grad = _grad_keepdim(grad, ctx.axes, ctx.keepdim)
        # d/da = sign(a) |a|^(p-1) / norm^(p-1); |a|^(p-1) is infinite at 0 when p < 1: taken as 0
        safe = xp.where(a == 0, 1, xp.abs(a))
        slope = xp.where(a == 0, 0, xp.sign(a) * safe ** (p - 1))
        if p < 1:
            result = slope * grad * out ** (1 - p)
        else:
            result = slope * xp.where(out == 0, 0, grad / xp.where(out == 0, 1, out) ** (p - 1))
        return result.astype(a.dtype, copy=False), None, None, None


def norm(
    input: TensorBase, p: float | str = "fro", dim: Dims = None, keepdim: bool = False, dtype: DTypeLike | None = None
) -> Tensor:
    """The vector norm (sum of |a| ** p) ** (1/p) over ``dim`` (all elements when None).

    p = 2 or 'fro' (the default), any other number, inf (the largest |a|) or -inf (the
    smallest). Matrix norms ('nuc') are not here.
    """
    if input.data.dtype.kind != "f":
        raise MiniTorchError(
            f"norm: expected a floating point tensor as input, got {input.dtype}; convert with .float()"
        )
    if isinstance(p, TensorBase) and p.ndim == 0:
        p = p.item()
    if isinstance(p, str) and p != "fro":
        raise MiniTorchError(f"norm: p={p!r} is not supported: p is a number or 'fro' (MiniTorch has no matrix norms)")
    if not isinstance(p, (str, int, float)):
        raise TypeError(f"norm(): argument 'p' must be a number or 'fro', not {type(p).__name__}")
    if dtype is not None:
        target = get_dtype(dtype)
        if not target.is_floating_point or target.itemsize < input.dtype.itemsize:  # PyTorch never narrows here
            raise MiniTorchError(
                f"norm: the dtype of the input ({input.dtype}) should be convertible without narrowing to "
                f"the specified dtype ({target})"
            )
        input = input.to(target)
    else:
        (input,) = autocast_inputs("norm", input)  # float32 under CUDA autocast
    axes = normalize_dims("norm", dim, input.ndim)
    if not isinstance(p, str) and (p < 0 or p == math.inf) and any(input.shape[i] == 0 for i in axes):
        # The largest or smallest |a|, or a sum of 1/|a|**|p|, over nothing has no value (as PyTorch).
        raise MiniTorchError(
            f"norm: cannot compute the {p} norm over an empty dimension of shape {tuple(input.shape)} (dim {dim}): "
            "the max, min or a negative power of nothing has no value"
        )
    if p == "fro" or p == 2:
        return Norm2.apply(input, axes, keepdim)
    if p == 1:
        return input.abs().sum(axes, keepdim)
    if p in (math.inf, -math.inf):
        return NormInf.apply(input, p < 0, axes, keepdim)
    return NormP.apply(input, float(p), axes, keepdim)


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


def flip(input: TensorBase, *dims_given: Any, dims: Sequence[int] | None = None) -> Tensor:
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


def roll(input: TensorBase, shifts: int | Sequence[int], dims: int | Sequence[int] | None = None) -> Tensor:
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
        return input.clone()
    axes = tuple(check_dim("roll", d, input.ndim) for d in dim_list)
    return Roll.apply(input, shift_list, axes)
