"""Running sums and products, and the product: ``cumsum``, ``cumprod``, ``prod``.

``cumsum``'s backward is a cumsum running the other way. The products divide by the input
in backward, which breaks at zeros: their backward treats zeros separately, as PyTorch
does (``prod`` takes the product of the others, without dividing, once an element is 0).
"""

from __future__ import annotations

from typing import Any

from minitorch.autograd.function import BackwardNode, Function
from minitorch.autograd.graph_arrays import GraphArray
from minitorch.dtypes import get_dtype, int64
from minitorch.errors import MiniTorchError, check_dim, check_int
from minitorch.functions.autocast_policy import autocast_inputs
from minitorch.functions.conversion import cast
from minitorch.functions.ordering import as_1d, back_to_0d
from minitorch.functions.reductions import _drop_reduced, _grad_keepdim, normalize_dims
from minitorch.hints import Array, DTypeLike, Gradients
from minitorch.switches import SWITCHES
from minitorch.tensor_base import T


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

    That O(n) form drops the terms that hold a zero, so its own derivative at a zero is
    wrong: a gradient that will be differentiated again (create_graph=True) takes the exact
    polynomial instead (``_cumprod_grad_polynomial``), as PyTorch does under GradMode.
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
        if recorded(grad, a) and is_zero.any():
            return _cumprod_grad_polynomial(xp, a, grad, axis).astype(a.dtype, copy=False), None
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
        after = xp.cumprod(xp.where(pos > first, a, 1), axis=axis)  # a[z+1] * ... * a[i]
        up_to_second = (zeros_so_far >= 1) & (zeros_so_far - is_zero <= 1)  # first zero <= i <= second zero
        at_zero = before * xp.where(up_to_second, grad * after, 0).sum(axis=axis, keepdims=True)
        result = xp.where(pos == first, at_zero, result)
        return result.astype(a.dtype, copy=False), None


def recorded(*values: Any) -> bool:
    """True when a backward runs under create_graph=True (some value is a graph value): its
    result will be differentiated again (PyTorch asks ``GradMode::is_enabled()`` here)."""
    for value in values:
        if isinstance(value, GraphArray):
            return True
    return False


def _cumprod_grad_polynomial(xp: Any, a: Array, grad: Array, axis: int) -> Array:
    """grad[k] = sum over i >= k of grad_out[i] * (product of a[j], j <= i, j != k): cumprod's
    gradient as a polynomial in ``a``, without dividing, so exact at zeros to every order.

    O(n^2) along ``axis``: row k of an (n, n) array is ``a`` with a[k] replaced by 1; its
    running product, kept where i >= k, weighs grad_out.
    """
    a_last, g_last = xp.moveaxis(a, axis, -1), xp.moveaxis(grad, axis, -1)
    n = a_last.shape[-1]
    k, i = xp.arange(n).reshape(n, 1), xp.arange(n)
    rows = xp.where(k == i, 1, a_last[..., None, :])  # (..., k, j)
    running = xp.cumprod(rows, axis=-1)  # (..., k, i): product of a[j], j <= i, j != k
    result = (xp.where(i >= k, running, 0) * g_last[..., None, :]).sum(axis=-1)
    return xp.moveaxis(result, -1, axis)


def _running(op: str, fn: type[Function], a: T, dim: int, dtype: DTypeLike | None) -> T:
    """cumsum/cumprod: ``dtype`` first (bool and int inputs count in int64, as PyTorch)."""
    check_dim(op, dim, a.ndim)  # a bad dim is reported before a bad dtype, as in PyTorch
    if dtype is not None:
        a = _to_dtype(op, a, dtype)
    elif a.data.dtype.kind in "biu":
        a = cast(a, int64)
    x, axis = as_1d(op, a, dim)
    return back_to_0d(a, fn.apply(x, axis))[0]


def _to_dtype(op: str, a: T, dtype: DTypeLike) -> T:
    """``a`` converted to the ``dtype=`` argument; PyTorch refuses an integer one when ``a`` needs a gradient."""
    target = get_dtype(dtype)
    if not target.is_floating_point and a.requires_grad and SWITCHES.grad_enabled:
        raise MiniTorchError(
            f"{op}: autograd does not support dtype {target} (the {a.dtype} input requires grad); "
            "use a floating dtype, or detach the input first"
        )
    return cast(a, target)


def cumsum(input: T, dim: int, dtype: DTypeLike | None = None) -> T:
    """Running sum along ``dim``: out[i] = a[0] + ... + a[i]."""
    if dtype is None:  # an explicit dtype is not autocast (PyTorch's rule)
        (input,) = autocast_inputs("cumsum", input)
    return _running("cumsum", CumSum, input, dim, dtype)


def cumprod(input: T, dim: int, dtype: DTypeLike | None = None) -> T:
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
            # ... exactly 0, as PyTorch; differentiated again (create_graph), the product of the
            # others, whose derivative is not 0 (PyTorch too, under GradMode)
            several = others if recorded(grad, a) else 0
            local = xp.where(zeros == 0, divided, xp.where(zeros == 1, others, several))
        else:
            local = xp.where(is_zero.any(), _others_product(xp, a, axes[0]), divided)
        return (grad * local).astype(a.dtype, copy=False), None, None, None


def prod(
    input: T, dim: int | None = None, keepdim: bool = False, dtype: DTypeLike | None = None
, *, keepdims: bool | None = None) -> T:
    """Product of all elements, or along ``dim`` (one int, as in PyTorch); bool and int give int64."""
    keepdim = keepdim if keepdims is None else keepdims  # NumPy's spelling, which PyTorch accepts
    if dim is not None:  # a bad dim is reported before a bad dtype, as in PyTorch
        check_dim("prod", dim, input.ndim)
    if dtype is not None:
        input = _to_dtype("prod", input, dtype)
    else:  # an explicit dtype is not autocast (PyTorch's rule); float32 under autocast
        (input,) = autocast_inputs("prod", input)
    if dtype is None and input.data.dtype.kind in "biu":
        input = cast(input, int64)
    if dim is not None:
        dim = check_int("prod", "dim", dim)
    elif keepdim:
        raise TypeError("prod(): keepdim=True needs a dim (PyTorch has no prod(keepdim=True) of all elements)")
    return Prod.apply(input, normalize_dims("prod", dim, input.ndim), keepdim, dim is None)


