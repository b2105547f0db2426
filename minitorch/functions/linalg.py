"""Linear algebra: matrix products (matmul, mm, mv, bmm, addmm) and vector norms (norm).

Matrix multiplication follows NumPy's rules: 1-D vectors, 2-D matrices, batches of them.
For C = A @ B the chain rule gives dA = dC @ B^T and dB = A^T @ dC. A 1-D operand is
treated as a one-row (or one-column) matrix, and batch dimensions that were broadcast are
summed back with ``unbroadcast``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minitorch.autograd.function import BackwardNode, Function
from minitorch.dtypes import get_dtype
from minitorch.errors import MiniTorchError, MiniTorchNotImplementedError
from minitorch.functions import reductions, unary
from minitorch.functions.arithmetic import add, mul, unbroadcast
from minitorch.functions.autocast_policy import autocast_inputs
from minitorch.functions.conversion import cast
from minitorch.functions.out import write_out
from minitorch.functions.reductions import Dims, _drop_reduced, _grad_keepdim, normalize_dims
from minitorch.hints import Array, DTypeLike, Gradients, Shape
from minitorch.size import broadcast_shape
from minitorch.switches import SWITCHES
from minitorch.tensor_base import T, TensorBase


def product(a: Array, b: Array) -> Array:
    """``a @ b`` on arrays, with PyTorch's rule for float16 on the CPU: the products add up
    in float32 and the result is rounded to float16 once. NumPy's own float16 matmul adds in
    half precision, so NumPy operands are widened first; on a GPU the product is cuBLAS's,
    as PyTorch's is there."""
    if a.dtype == np.float16 and type(a) is np.ndarray:
        return (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16)
    return a @ b


class MatMul(Function):
    """c = a @ b.   Backward: grad_a = g @ b^T, grad_b = a^T @ g, each summed over the batch
    dims its operand was broadcast along (a vector operand is a one-row or one-column matrix)."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array, b: Array) -> Array:
        ctx.save_for_backward(a, b)
        return product(a, b)

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        # Work with matrices: a vector a becomes (1, k), a vector b becomes (k, 1).
        a2 = a[None, :] if a.ndim == 1 else a
        b2 = b[:, None] if b.ndim == 1 else b
        g2 = grad
        if b.ndim == 1:
            g2 = g2[..., None]
        if a.ndim == 1:
            g2 = g2[..., None, :]
        grad_a = grad_b = None
        if need_a:
            grad_a = unbroadcast(product(g2, b2.swapaxes(-1, -2)), a2.shape).reshape(a.shape)
        if need_b:
            grad_b = unbroadcast(product(a2.swapaxes(-1, -2), g2), b2.shape).reshape(b.shape)
        return grad_a, grad_b


def check_matmul_shapes(a_shape: Shape, b_shape: Shape) -> None:
    """Raise a clear error when ``a_shape @ b_shape`` is not defined."""
    if len(a_shape) == 0 or len(b_shape) == 0:
        raise MiniTorchError(
            f"matmul: both arguments need at least 1 dimension, got shapes {tuple(a_shape)} and "
            f"{tuple(b_shape)}"
        )
    k_a = a_shape[-1]
    k_b = b_shape[0] if len(b_shape) == 1 else b_shape[-2]
    if k_a != k_b:
        raise MiniTorchError(
            f"matmul: inner dimensions do not match: {tuple(a_shape)} @ {tuple(b_shape)} "
            f"({k_a} != {k_b}); the last dim of the first must equal the "
            f"{'only' if len(b_shape) == 1 else 'second-to-last'} dim of the second"
        )
    if len(a_shape) > 2 or len(b_shape) > 2:
        broadcast_shape(a_shape[:-2], b_shape[:-2], op="matmul (batch dimensions)")


def matmul(a: T, b: T, *, out: T | None = None) -> T:
    """Matrix product with broadcasting of batch dimensions, as ``numpy.matmul``."""
    if out is not None:
        return write_out(out, matmul(a, b), "matmul")
    if SWITCHES.autocast is not None:  # PyTorch's autocast list for the device decides
        a, b = autocast_inputs("matmul", a, b)  # float16 under autocast
    return _matmul(a, b)


def _matmul(a: T, b: T) -> T:
    """``matmul`` after autocast: the checks, then the op."""
    if not isinstance(a, TensorBase) or not isinstance(b, TensorBase):
        raise TypeError(
            f"matmul: expected two Tensors, got {type(a).__name__} and {type(b).__name__}"
        )
    check_matmul_shapes(a.shape, b.shape)
    if a.data.dtype.kind == "b":  # PyTorch has no bool matmul kernel; NumPy would give bool
        raise MiniTorchNotImplementedError(
            f"matmul: not implemented for bool tensors ({tuple(a.shape)} @ {tuple(b.shape)})"
        )
    if a.data.dtype != b.data.dtype:
        # PyTorch refuses too: a silent float64 upcast would double the cost of every layer.
        raise MiniTorchError(
            f"matmul: both operands must have the same dtype, got {a.dtype} {tuple(a.shape)} @ "
            f"{b.dtype} {tuple(b.shape)}; convert one first (.float(), .double())"
        )
    return MatMul.apply(a, b)


def _require_dims(op: str, name: str, t: Any, ndim: int) -> None:
    if not isinstance(t, TensorBase):
        raise TypeError(f"{op}(): argument '{name}' must be Tensor, not {type(t).__name__}")
    if t.ndim != ndim:
        raise MiniTorchError(
            f"{op}: {name} must be a {ndim}-D tensor, got shape {tuple(t.shape)}; use matmul (@) for other shapes"
        )


def mm(a: T, b: T, *, out: T | None = None) -> T:
    """Product of two matrices (2-D only, as ``torch.mm``)."""
    _require_dims("mm", "input", a, 2)
    _require_dims("mm", "mat2", b, 2)
    return matmul(a, b, out=out)


def mv(a: T, v: T, *, out: T | None = None) -> T:
    """Matrix (2-D) times vector (1-D), as ``torch.mv``."""
    _require_dims("mv", "input", a, 2)
    _require_dims("mv", "vec", v, 1)
    if out is not None:
        return write_out(out, mv(a, v), "mv")
    if SWITCHES.autocast is not None:  # PyTorch's autocast list for the device decides
        a, v = autocast_inputs("mv", a, v)  # float16 on CUDA's autocast list, not on the CPU's
    return _matmul(a, v)


def bmm(a: T, b: T, *, out: T | None = None) -> T:
    """Batches of matrix products: (B, n, k) @ (B, k, m), same B (no broadcasting), as ``torch.bmm``."""
    _require_dims("bmm", "input", a, 3)
    _require_dims("bmm", "mat2", b, 3)
    if a.shape[0] != b.shape[0]:
        raise MiniTorchError(f"bmm: batch sizes differ: {tuple(a.shape)} and {tuple(b.shape)} (bmm does not broadcast)")
    return matmul(a, b, out=out)


def addmm(
    input: T, a: T, b: T, *, beta: float = 1, alpha: float = 1, out: T | None = None
) -> T:
    """``beta * input + alpha * (a @ b)`` for matrices a and b, as ``torch.addmm``."""
    if SWITCHES.autocast is not None:  # PyTorch's autocast list for the device decides
        input, a, b = autocast_inputs("addmm", input, a, b)  # all three in float16 under autocast
    product = mm(a, b)
    if alpha != 1:
        product = mul(product, alpha)
    result = add(product, input if beta == 1 else mul(input, beta))
    return result if out is None else write_out(out, result, "addmm")


# ---------------------------------------------------------------------- vector norms
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
    input: T, p: float | str = "fro", dim: Dims = None, keepdim: bool = False, dtype: DTypeLike | None = None
) -> T:
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
        input = cast(input, target)
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
        return reductions.sum(unary.abs(input), axes, keepdim)
    if p in (math.inf, -math.inf):
        return NormInf.apply(input, p < 0, axes, keepdim)
    return NormP.apply(input, float(p), axes, keepdim)
