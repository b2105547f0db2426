"""Reductions: sum, mean, amax/amin (max/min), var, logsumexp, argmax.

A reduction's backward spreads the incoming gradient back over the reduced dimensions:
first put the reduced dimensions back as size 1 (``keepdim``), then broadcast.
"""

from __future__ import annotations

from typing import Any, TypeVar

import numpy as np

from minitorch import backends
from minitorch.autograd.function import BackwardNode, Function
from minitorch.dtypes import default_float, get_dtype, int64
from minitorch.errors import MiniTorchError, MiniTorchIndexError, check_dim
from minitorch.functions.autocast_policy import autocast_inputs
from minitorch.functions.conversion import cast
from minitorch.functions.elementwise_logic import maximum, minimum
from minitorch.hints import Array, DTypeLike, Gradients
from minitorch.return_types import MaxResult, MinResult, ValuesIndices
from minitorch.switches import SWITCHES
from minitorch.tensor_base import T, TensorBase

Pair = TypeVar("Pair", bound=ValuesIndices)  # MaxResult or MinResult

# A dimension, several, or None for all of them.
Dims = int | tuple[int, ...] | None


def normalize_dims(op: str, dim: Dims, ndim: int) -> tuple[int, ...]:
    """``dim`` (None, an int or a tuple, negatives allowed) as a sorted tuple of axes."""
    dims = () if dim is None else tuple(dim) if isinstance(dim, (tuple, list)) else (dim,)
    if not dims:  # None, and (as in PyTorch) an empty tuple, mean every dimension
        return tuple(range(ndim))
    axes = tuple(sorted({check_dim(op, d, ndim) for d in dims}))
    if len(axes) != len(dims):
        raise MiniTorchError(f"{op}: dim {dim} appears multiple times in the list of dims")
    # A 0-d tensor accepts dim 0 or -1 (as PyTorch does) but has no axis to reduce.
    return axes if ndim else ()


def _grad_keepdim(grad: Array, axes: tuple[int, ...], keepdim: bool) -> Array:
    """Reinsert the reduced axes as size 1 so the gradient broadcasts against the input."""
    if keepdim or not axes:
        return grad
    shape = list(grad.shape)
    for axis in axes:
        shape.insert(axis, 1)
    return grad.reshape(shape)


def _drop_reduced(out: Array, axes: tuple[int, ...], keepdim: bool) -> Array:
    """A keepdims=True result with its reduced (size-1) axes removed, unless ``keepdim``;
    the inverse of ``_grad_keepdim``."""
    return out if keepdim else out.reshape([s for i, s in enumerate(out.shape) if i not in axes])


def _kept_shape(shape: tuple[int, ...], axes: tuple[int, ...]) -> tuple[int, ...]:
    """``shape`` after a keepdim reduction over ``axes``."""
    return tuple(1 if i in axes else n for i, n in enumerate(shape))


class Sum(Function):
    """Sum over ``axes``.   Each input element gets the gradient of its sum."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array, axes: tuple[int, ...], keepdim: bool) -> Array:
        ctx.in_shape, ctx.axes, ctx.keepdim = a.shape, axes, keepdim
        if a.dtype == "float16":  # add up in float32, round once (as PyTorch): half sums drift
            return a.sum(axis=axes, keepdims=keepdim, dtype="float32").astype(a.dtype)
        return a.sum(axis=axes, keepdims=keepdim)

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        if grad.ndim:  # a partial sum: put the summed axes back as size 1 first
            grad = _grad_keepdim(grad, ctx.axes, ctx.keepdim)
        return ctx.xp.broadcast_to(grad, ctx.in_shape), None, None


class Mean(Function):
    """Mean over ``axes``.   Each input element gets 1/N of the gradient."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array, axes: tuple[int, ...], keepdim: bool) -> Array:
        ctx.in_shape, ctx.axes, ctx.keepdim = a.shape, axes, keepdim
        count = 1
        for axis in axes:
            count *= a.shape[axis]
        ctx.count = count
        if a.dtype == "float16":  # add up in float32, round once (as PyTorch)
            return a.mean(axis=axes, keepdims=keepdim, dtype="float32").astype(a.dtype)
        return a.mean(axis=axes, keepdims=keepdim)

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        grad = _grad_keepdim(grad, ctx.axes, ctx.keepdim) / ctx.count
        return ctx.xp.broadcast_to(grad, ctx.in_shape), None, None


class Amax(Function):
    """Largest element over ``axes``; tied maxima share the gradient evenly."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array, axes: tuple[int, ...], keepdim: bool) -> Array:
        out = a.max(axis=axes, keepdims=True)
        ctx.save_for_backward(a, out)
        ctx.axes, ctx.keepdim = axes, keepdim
        return _drop_reduced(out, axes, keepdim)

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        a, out = ctx.saved_tensors
        return _extreme_grad(ctx.xp, grad, a, out, ctx.axes, ctx.keepdim), None, None


class Amin(Function):
    """Smallest element over ``axes``; tied minima share the gradient evenly."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array, axes: tuple[int, ...], keepdim: bool) -> Array:
        out = a.min(axis=axes, keepdims=True)
        ctx.save_for_backward(a, out)
        ctx.axes, ctx.keepdim = axes, keepdim
        return _drop_reduced(out, axes, keepdim)

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        a, out = ctx.saved_tensors
        return _extreme_grad(ctx.xp, grad, a, out, ctx.axes, ctx.keepdim), None, None


class MaxAll(Amax):
    """``max()`` with no dim: as Amax, but a NaN result sends its gradient to the NaNs."""

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        a, out = ctx.saved_tensors
        return _extreme_grad(ctx.xp, grad, a, out, ctx.axes, ctx.keepdim, nan_wins=True), None, None


class MinAll(Amin):
    """``min()`` with no dim: as Amin, but a NaN result sends its gradient to the NaNs."""

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        a, out = ctx.saved_tensors
        return _extreme_grad(ctx.xp, grad, a, out, ctx.axes, ctx.keepdim, nan_wins=True), None, None


def _extreme_grad(
    xp: Any, grad: Array, a: Array, out: Array, axes: tuple[int, ...], keepdim: bool, nan_wins: bool = False
) -> Array:
    """Gradient of max/min: to the elements equal to the extreme, split among ties.

    ``nan_wins``: a NaN extreme counts the NaNs as its winners (PyTorch's max()/min() with no
    dim do; amax/amin do not, and give NaN gradients, since NaN == NaN is False). The winners
    are a mask: no gradient flows through which element won, so a second derivative is 0
    there, as PyTorch's.
    """
    winners = a == out
    if nan_wins:
        winners = winners | (xp.isnan(a) & xp.isnan(out))
    count = winners.sum(axis=axes, keepdims=True)
    grad = _grad_keepdim(grad, axes, keepdim)
    return (grad * winners / count).astype(a.dtype, copy=False)


class MaxAlongDim(Function):
    """``max(dim)`` values; the gradient goes to the element ``indices`` picked."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array, axis: int, keepdim: bool, largest: bool) -> Array:
        xp = ctx.xp
        index = (a.argmax if largest else a.argmin)(axis=axis, keepdims=True)
        ctx.save_for_backward(index)
        ctx.axis, ctx.keepdim, ctx.in_shape = axis, keepdim, a.shape
        values = xp.take_along_axis(a, index, axis=axis)
        ctx.index = index if keepdim else xp.squeeze(index, axis=axis)
        return values if keepdim else xp.squeeze(values, axis=axis)

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        (index,) = ctx.saved_tensors
        xp = ctx.xp
        grad = _grad_keepdim(grad, (ctx.axis,), ctx.keepdim)
        positions_shape = [1] * len(ctx.in_shape)
        positions_shape[ctx.axis] = ctx.in_shape[ctx.axis]
        picked = xp.arange(ctx.in_shape[ctx.axis]).reshape(positions_shape) == index
        return (grad * picked).astype(grad.dtype, copy=False), None, None, None


class Var(Function):
    """Variance over ``axes`` with ``correction`` (1: unbiased, dividing by N - 1)."""

    @staticmethod
    def forward(
        ctx: BackwardNode, a: Array, axes: tuple[int, ...] | None, correction: int, keepdim: bool
    ) -> Array:
        return _var_float64(ctx, a, axes, correction, keepdim).astype(a.dtype)

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        (a,) = ctx.saved_tensors
        return _var_grad(ctx, a, grad), None, None, None


def _var_float64(ctx: BackwardNode, a: Array, axes: tuple[int, ...] | None, correction: int, keepdim: bool) -> Array:
    """The variance in float64 (saving what backward needs on ``ctx``).

    Accumulated in float64, as PyTorch's CPU kernel does: float32 squares of 1e30 would
    overflow to inf where PyTorch's std gives the right answer.
    """
    # ``axes`` None: every dim (``var()``), whose gradient PyTorch special-cases, as it does
    # for a 0-d input.
    ctx.all_dims = axes is None or a.ndim == 0
    axes = tuple(range(a.ndim)) if axes is None else axes
    count = 1
    for axis in axes:
        count *= a.shape[axis]
    ctx.save_for_backward(a)
    ctx.axes, ctx.keepdim, ctx.divisor = axes, keepdim, count - correction
    with np.errstate(invalid="ignore", divide="ignore"):
        return a.var(axis=axes, ddof=correction, keepdims=keepdim, dtype=ctx.xp.float64)


def _var_grad(ctx: BackwardNode, a: Array, grad: Array) -> Array:
    """d var / d a = 2 (a - mean) / (N - correction), times the incoming gradient.

    With no degrees of freedom left (N <= correction), PyTorch's ``var()`` over every dim
    gives inf, or NaN where a equals the mean; with a dim it divides by N - correction as is.
    """
    xp = ctx.xp
    grad = _grad_keepdim(grad, ctx.axes, ctx.keepdim)
    mean = a.mean(axis=ctx.axes, keepdims=True)
    if ctx.all_dims and ctx.divisor <= 0:
        return (grad * xp.where(a == mean, xp.nan, xp.inf)).astype(a.dtype, copy=False)
    centred = a - mean
    with np.errstate(divide="ignore", invalid="ignore"):
        return (2 * grad * centred / ctx.divisor).astype(a.dtype, copy=False)


class Std(Function):
    """sqrt(var) over ``axes``.   d/da = d var/da / (2 std), taken as 0 where std is 0."""

    @staticmethod
    def forward(
        ctx: BackwardNode, a: Array, axes: tuple[int, ...] | None, correction: int, keepdim: bool
    ) -> Array:
        out = ctx.xp.sqrt(_var_float64(ctx, a, axes, correction, keepdim)).astype(a.dtype)
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        a, out = ctx.saved_tensors
        # A constant slice has std 0: PyTorch gives it gradient 0 rather than 0 / 0 = nan.
        grad_var = ctx.xp.where(out == 0, 0, grad / (2 * out)).astype(a.dtype, copy=False)
        return _var_grad(ctx, a, grad_var), None, None, None


class LogSumExp(Function):
    """log(sum(exp(a))) over ``axes``, computed stably by factoring out the max."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array, axes: tuple[int, ...], keepdim: bool) -> Array:
        xp = ctx.xp
        # Nothing to reduce (a zero-size dim): shift by 0; the sum is 0 and the result -inf.
        peak = a.max(axis=axes, keepdims=True) if a.size else xp.zeros(_kept_shape(a.shape, axes), a.dtype)
        # An all -inf slice would give -inf - -inf = nan; shifting by 0 there is exact.
        peak = xp.where(xp.isfinite(peak), peak, 0)
        out = xp.log(xp.exp(a - peak).sum(axis=axes, keepdims=True)) + peak
        ctx.save_for_backward(a, out)
        ctx.axes, ctx.keepdim = axes, keepdim
        return _drop_reduced(out, axes, keepdim)

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        a, out = ctx.saved_tensors
        grad = _grad_keepdim(grad, ctx.axes, ctx.keepdim)
        return grad * ctx.xp.exp(a - out), None, None


# ---------------------------------------------------------------------- user functions
def sum(
    a: T,
    dim: Dims = None,
    keepdim: bool = False,
    dtype: DTypeLike | None = None,
    *,
    keepdims: bool | None = None,
) -> T:
    """Sum of all elements, or over ``dim`` (an int or a tuple)."""
    keepdim = keepdim if keepdims is None else keepdims  # NumPy's spelling, which PyTorch accepts
    if SWITCHES.autocast is not None:  # PyTorch's autocast list for the device decides
        (a,) = autocast_inputs("sum", a)
    if dtype is not None:
        a = cast(a, get_dtype(dtype))
    elif a.data.dtype.kind == "b":
        a = cast(a, int64)
    axes = tuple(range(a.data.ndim)) if dim is None else normalize_dims("sum", dim, a.data.ndim)
    return Sum.apply(a, axes, keepdim)


def mean(a: T, dim: Dims = None, keepdim: bool = False, *, keepdims: bool | None = None) -> T:
    """Mean of all elements, or over ``dim``; needs a floating-point tensor, as in PyTorch."""
    keepdim = keepdim if keepdims is None else keepdims  # NumPy's spelling, which PyTorch accepts
    if SWITCHES.autocast is not None:  # PyTorch's autocast list for the device decides
        (a,) = autocast_inputs("mean", a)
    if a.data.dtype.kind != "f":
        raise MiniTorchError(
            f"mean(): could not infer output dtype: input dtype must be floating point, got "
            f"{a.dtype}; convert first with .float()"
        )
    return Mean.apply(a, normalize_dims("mean", dim, a.ndim), keepdim)


def amax(a: T, dim: Dims = None, keepdim: bool = False, *, keepdims: bool | None = None) -> T:
    """Largest value over ``dim`` (all dims when None); ties share the gradient."""
    keepdim = keepdim if keepdims is None else keepdims  # NumPy's spelling, which PyTorch accepts
    _check_not_empty("amax", a, dim)
    return Amax.apply(a, normalize_dims("amax", dim, a.ndim), keepdim)


def amin(a: T, dim: Dims = None, keepdim: bool = False, *, keepdims: bool | None = None) -> T:
    """Smallest value over ``dim`` (all dims when None); ties share the gradient."""
    keepdim = keepdim if keepdims is None else keepdims  # NumPy's spelling, which PyTorch accepts
    _check_not_empty("amin", a, dim)
    return Amin.apply(a, normalize_dims("amin", dim, a.ndim), keepdim)


def max(
    a: T, dim: int | T | None = None, keepdim: bool = False, *, keepdims: bool | None = None
) -> T | MaxResult:
    """``max(a)``: the largest element; ``max(a, dim)``: (values, indices) along ``dim``."""
    keepdim = keepdim if keepdims is None else keepdims  # NumPy's spelling, which PyTorch accepts
    if isinstance(dim, TensorBase):

        return maximum(a, dim)
    if dim is None:
        _check_not_empty("max", a, None)
        return MaxAll.apply(a, normalize_dims("max", None, a.ndim), False)
    return _along_dim("max", a, dim, keepdim, MaxResult)


def min(
    a: T, dim: int | T | None = None, keepdim: bool = False, *, keepdims: bool | None = None
) -> T | MinResult:
    """``min(a)``: the smallest element; ``min(a, dim)``: (values, indices) along ``dim``."""
    keepdim = keepdim if keepdims is None else keepdims  # NumPy's spelling, which PyTorch accepts
    if isinstance(dim, TensorBase):

        return minimum(a, dim)
    if dim is None:
        _check_not_empty("min", a, None)
        return MinAll.apply(a, normalize_dims("min", None, a.ndim), False)
    return _along_dim("min", a, dim, keepdim, MinResult)


def _along_dim(op: str, a: TensorBase, dim: int, keepdim: bool, result: type[Pair]) -> Pair:
    """(values, indices) of the max (``result`` MaxResult) or min (MinResult) along ``dim``."""
    largest = result is MaxResult
    axis = check_dim(op, dim, a.ndim)
    _check_not_empty(op, a, axis)
    if a.ndim == 0:
        return result(a, TensorBase._make(a.data.astype("int64") * 0, None, False))
    values = MaxAlongDim.apply(a, axis, keepdim, largest)
    indices = values.grad_fn.index if values.grad_fn is not None else None
    if indices is None:
        index = (a.data.argmax if largest else a.data.argmin)(axis=axis, keepdims=keepdim)
        indices = index
    return result(values, TensorBase._make(indices.astype("int64", copy=False), None, False))


def _check_not_empty(op: str, a: TensorBase, dim: Dims) -> None:
    """Refuse a max/min over nothing, as PyTorch: an empty tensor is fine when every reduced
    dim has elements (the (2, 0) tensor's max over dim 0 is an empty (0,) result)."""
    if a.data.size != 0:
        return
    if dim is None or dim == ():
        raise MiniTorchError(
            f"{op}(): expected a non-empty tensor, got shape {tuple(a.shape)}; give a dim to reduce over"
        )
    # Each dim on its own: PyTorch reports an empty dim before a repeated one.
    for axis in (check_dim(op, d, a.ndim) for d in (dim if isinstance(dim, (tuple, list)) else (dim,))):
        if a.shape[axis] == 0:  # PyTorch raises IndexError here
            raise MiniTorchIndexError(
                f"{op}(): expected reduction dim {axis} to have non-zero size (input shape {tuple(a.shape)})"
            )


def var(
    a: T, dim: Dims = None, unbiased: bool = True, keepdim: bool = False, correction: int | None = None
, *, keepdims: bool | None = None) -> T:
    """Variance over ``dim``; ``unbiased=True`` divides by N - 1 (``correction`` overrides)."""
    keepdim = keepdim if keepdims is None else keepdims  # NumPy's spelling, which PyTorch accepts
    if a.data.dtype.kind != "f":
        raise MiniTorchError(f"var(): input dtype must be floating point, got {a.dtype}")
    if correction is None:
        correction = 1 if unbiased else 0
    return Var.apply(a, None if dim is None else normalize_dims("var", dim, a.ndim), correction, keepdim)


def std(
    a: T, dim: Dims = None, unbiased: bool = True, keepdim: bool = False, correction: int | None = None
, *, keepdims: bool | None = None) -> T:
    """Standard deviation over ``dim``: the square root of ``var``."""
    keepdim = keepdim if keepdims is None else keepdims  # NumPy's spelling, which PyTorch accepts
    if a.data.dtype.kind != "f":
        raise MiniTorchError(f"std(): input dtype must be floating point, got {a.dtype}")
    if correction is None:
        correction = 1 if unbiased else 0
    return Std.apply(a, None if dim is None else normalize_dims("std", dim, a.ndim), correction, keepdim)


def logsumexp(a: T, dim: Dims, keepdim: bool = False, *, keepdims: bool | None = None) -> T:
    """log(sum(exp(a), dim)) without overflow."""
    keepdim = keepdim if keepdims is None else keepdims  # NumPy's spelling, which PyTorch accepts
    if a.data.dtype.kind != "f":
        a = cast(a, default_float())
    if SWITCHES.autocast is not None:  # PyTorch's autocast list for the device decides
        (a,) = autocast_inputs("logsumexp", a)  # float32 under CUDA autocast
    return LogSumExp.apply(a, normalize_dims("logsumexp", dim, a.ndim), keepdim)


def argmax(a: T, dim: int | None = None, keepdim: bool = False, *, keepdims: bool | None = None) -> T:
    """Index of the largest element (of the flattened tensor when ``dim`` is None)."""
    keepdim = keepdim if keepdims is None else keepdims  # NumPy's spelling, which PyTorch accepts
    return _arg_extreme("argmax", a, dim, keepdim)


def argmin(a: T, dim: int | None = None, keepdim: bool = False, *, keepdims: bool | None = None) -> T:
    """Index of the smallest element (of the flattened tensor when ``dim`` is None)."""
    keepdim = keepdim if keepdims is None else keepdims  # NumPy's spelling, which PyTorch accepts
    return _arg_extreme("argmin", a, dim, keepdim)


def _arg_extreme(op: str, a: T, dim: int | None, keepdim: bool) -> T:
    if a.data.dtype.kind == "b":
        raise MiniTorchError(f"{op}(): does not support bool input (as PyTorch); convert first, e.g. .long()")
    if a.data.size == 0 and (dim is None or a.shape[check_dim(op, dim, a.ndim)] == 0):
        # PyTorch raises IndexError here; a dim with elements gives an empty result.
        raise MiniTorchIndexError(f"{op}(): expected a non-empty tensor, got shape {tuple(a.shape)}")
    data = a.data
    if dim is None:
        index = getattr(data.reshape(-1), op)()
        if keepdim:
            index = index.reshape((1,) * data.ndim)
    else:
        index = getattr(data, op)(axis=check_dim(op, dim, data.ndim), keepdims=keepdim)
    xp_array = type(data)
    if not isinstance(index, xp_array):
        index = backends.module_of(data).asarray(index)
    return TensorBase._make(index.astype("int64", copy=False), None, False)
