"""Batch normalisation (each channel by its batch or running statistics) and layer
normalisation (each sample over its last dims, the transformer's normalisation)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from minitorch import backends
from minitorch.autograd.function import BackwardNode, Function
from minitorch.dtypes import float16, float32
from minitorch.errors import MiniTorchError
from minitorch.functions.autocast_policy import autocast_inputs
from minitorch.functions.linalg import sum_leading, sum_rows
from minitorch.hints import Array, Gradients
from minitorch.tensor_base import TensorBase

if TYPE_CHECKING:  # the face, for annotations only: never imported at run time (no cycle)
    from minitorch.tensor import Tensor


def _check_dtype(op: str, x: TensorBase, name: str, t: TensorBase) -> None:
    """As PyTorch: a parameter (or statistic) has the input's dtype, or float32 for a float16 input."""
    if t.dtype != x.dtype and not (x.dtype == float16 and t.dtype == float32):
        raise MiniTorchError(
            f"{op}: input is {x.dtype} but {name} is {t.dtype}; convert one of them "
            "(e.g. model.double() for a float64 input)"
        )


class BatchNorm(Function):
    """y = (x - mean) * invstd * weight + bias, with per-channel ``mean``/``invstd`` given.

    In training the statistics are those of the batch, so they depend on x too; the
    backward then includes their derivative:
    grad_x = invstd / M * (M * gh - sum(gh) - xhat * sum(gh * xhat)), gh = g * weight.
    In evaluation they are running averages (constants): grad_x = g * weight * invstd.
    """

    @staticmethod
    def forward(
        ctx: BackwardNode,
        x: Array,
        weight: Array | None,
        bias: Array | None,
        mean: Array,
        invstd: Array,
        axes: tuple[int, ...],
        batch_stats: bool,
    ) -> Array:
        xhat = (x - mean) * invstd
        out = xhat if weight is None else xhat * weight
        if bias is not None:
            out = out + bias
        ctx.axes, ctx.batch_stats = axes, batch_stats
        ctx.has_weight = weight is not None
        ctx.bias_dtype = None if bias is None else bias.dtype
        ctx.save_for_backward(xhat, weight, invstd)
        return out.astype(x.dtype, copy=False)  # a float16 input with float32 parameters gives float16

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        xhat, weight, invstd = ctx.saved_tensors
        axes = ctx.axes
        need_x, need_w, need_b = ctx.needs_input_grad[:3]
        # weight and bias arrive shaped (1, C, 1, ...), so their gradients keep those dims
        # (and their dtypes: float32 parameters of a float16 input get float32 gradients).
        grad_w = (grad * xhat).sum(axis=axes, keepdims=True, dtype=weight.dtype) if need_w else None
        grad_b = grad.sum(axis=axes, keepdims=True, dtype=ctx.bias_dtype) if need_b else None
        grad_x = None
        if need_x and grad.size == 0:  # an empty batch
            grad_x = grad.copy()
        elif need_x:
            gh = grad if weight is None else grad * weight
            if ctx.batch_stats:
                m = grad.size // invstd.size
                sum_gh = gh.sum(axis=axes, keepdims=True)
                sum_ghx = (gh * xhat).sum(axis=axes, keepdims=True)
                grad_x = (invstd / m) * (m * gh - sum_gh - xhat * sum_ghx)
            else:
                grad_x = gh * invstd
            grad_x = grad_x.astype(grad.dtype, copy=False)
        return grad_x, grad_w, grad_b, None, None, None, None


def batch_norm(
    input: TensorBase,
    running_mean: TensorBase | None,
    running_var: TensorBase | None,
    weight: TensorBase | None = None,
    bias: TensorBase | None = None,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """Normalise each channel (dim 1) of ``input`` (N, C) or (N, C, H, W), as ``torch.nn.functional.batch_norm``.

    In training the batch statistics are used and the running ones (if given) are updated
    in place: running = (1 - momentum) * running + momentum * batch, with the unbiased
    batch variance. In evaluation the running statistics are used.
    """
    if input.ndim < 2:
        raise MiniTorchError(f"batch_norm: expected at least (N, C), got shape {tuple(input.shape)}")
    if input.data.dtype.kind != "f":
        raise MiniTorchError(
            f"batch_norm: expected a floating-point input, got {input.dtype} (shape {tuple(input.shape)})"
        )
    xp = backends.module_of(input.data)
    c = input.shape[1]
    for name, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight), ("bias", bias)):
        if t is None:
            continue
        if t.data.size != c:
            raise MiniTorchError(
                f"batch_norm: {name} should contain {c} elements (one per channel of input "
                f"{tuple(input.shape)}), not {t.data.size} (shape {tuple(t.shape)})"
            )
        _check_dtype("batch_norm", input, name, t)
    axes = (0,) + tuple(range(2, input.ndim))
    stat_shape = (1, c) + (1,) * (input.ndim - 2)
    if training and input.data.size == 0:  # an empty batch: nothing to normalise, the statistics stay (as PyTorch)
        mean, var = xp.zeros(stat_shape, input.data.dtype), xp.ones(stat_shape, input.data.dtype)
    elif training:
        m = input.data.size // c
        if m == 1:
            raise MiniTorchError(
                "batch_norm: expected more than 1 value per channel when training, got input of shape "
                f"{tuple(input.shape)}"
            )
        mean = input.data.mean(axis=axes, keepdims=True)
        var = ((input.data - mean) ** 2).mean(axis=axes, keepdims=True)
        if running_mean is not None:
            running_mean.data *= 1 - momentum
            running_mean.data += momentum * mean.reshape(c)
        if running_var is not None:
            running_var.data *= 1 - momentum
            running_var.data += momentum * var.reshape(c) * (m / (m - 1))
    else:
        if running_mean is None or running_var is None:
            raise MiniTorchError("batch_norm: evaluation mode needs running_mean and running_var")
        mean = running_mean.data.reshape(stat_shape)
        var = running_var.data.reshape(stat_shape)
    invstd = (1 / xp.sqrt(var + eps)).astype(input.data.dtype, copy=False)
    mean = mean.astype(input.data.dtype, copy=False)
    w = weight.reshape(stat_shape) if weight is not None else None
    b = bias.reshape(stat_shape) if bias is not None else None
    return BatchNorm.apply(input, w, b, mean, invstd, axes, training)


class LayerNorm(Function):
    """y = (x - mean) * invstd * weight + bias over the last ``k`` dims of each sample.

    The statistics belong to each sample (a row), so they depend on x: with M elements
    per row, xhat = (x - mean) * invstd and gh = g * weight, the backward is the same as
    batch norm's, along the row: grad_x = invstd / M * (M * gh - sum(gh) - xhat * sum(gh * xhat)).
    weight and bias are shared by all rows: their gradients sum over the leading dims.
    """

    @staticmethod
    def forward(ctx: BackwardNode, x: Array, weight: Array | None, bias: Array | None, k: int, eps: float) -> Array:
        xp = ctx.xp
        axes = tuple(range(x.ndim - k, x.ndim))
        m = math.prod(x.shape[x.ndim - k :])  # M: elements per row
        if x.dtype.kind == "f" and x.dtype.itemsize >= 4:  # row sums as BLAS products (linalg.sum_rows)
            mean = sum_rows(x, k) / x.dtype.type(m)
            centered = x - mean
            var = sum_rows(centered * centered, k) / x.dtype.type(m)  # biased, as PyTorch
        else:  # float16: NumPy's mean adds in float32 and rounds once
            mean = x.mean(axis=axes, keepdims=True)
            centered = x - mean
            var = (centered * centered).mean(axis=axes, keepdims=True)
        invstd = 1 / xp.sqrt(var + eps)
        one_dtype = all(a is None or a.dtype == x.dtype for a in (invstd, weight, bias))
        if one_dtype:  # the same operations in the same order, into arrays made here (not fresh ones)
            xhat = xp.multiply(centered, invstd, out=centered)
            out = xhat if weight is None else xhat * weight
            if bias is not None:
                out = out + bias if weight is None else xp.add(out, bias, out=out)
        else:  # mixed dtypes (float16 input, float32 parameters): each result in its promoted dtype
            xhat = centered * invstd
            out = xhat if weight is None else xhat * weight
            if bias is not None:
                out = out + bias
        ctx.axes, ctx.m = axes, m
        ctx.bias_dtype = None if bias is None else bias.dtype
        ctx.save_for_backward(xhat, weight, invstd)
        return out.astype(x.dtype, copy=False)  # a float16 input with float32 parameters gives float16

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        xhat, weight, invstd = ctx.saved_tensors
        axes, m, xp = ctx.axes, ctx.m, ctx.xp
        need_x, need_w, need_b = ctx.needs_input_grad[:3]
        lead = tuple(range(grad.ndim - len(axes)))  # the dims the parameters are shared over
        k = len(axes)
        grad_w = grad_b = grad_x = gx = None
        if need_w:  # (as BLAS products where the dtypes agree: linalg.sum_leading)
            gx = grad * xhat
            grad_w = sum_leading(gx, k) if gx.dtype == weight.dtype else gx.sum(axis=lead, dtype=weight.dtype)
        if need_b:
            same = grad.dtype == ctx.bias_dtype
            grad_b = sum_leading(grad, k) if same else grad.sum(axis=lead, dtype=ctx.bias_dtype)
        if need_x:
            gh = grad if weight is None else grad * weight
            one_dtype = gh.dtype == xhat.dtype == invstd.dtype and (weight is None or weight.dtype == gh.dtype)
            if one_dtype and gh.dtype.itemsize >= 4 and weight is not None:
                # Each row's sums of gh = g * w and of gh * xhat are products with the weight vector:
                # sum_j g w = g @ w and sum_j g w xhat = (g xhat) @ w (no pass to make gh * xhat).
                w = weight.reshape(m)
                sum_gh = (grad.reshape(-1, m) @ w).reshape(invstd.shape)
                gx = grad * xhat if gx is None else gx
                sum_ghx = (gx.reshape(-1, m) @ w).reshape(invstd.shape)
            else:
                sum_gh = sum_rows(gh, k)
                sum_ghx = sum_rows(gh * xhat, k)
            if one_dtype:  # invstd * (gh - (sum_gh + xhat * sum_ghx) / m), in one fresh array
                total = xp.multiply(xhat, sum_ghx / m)
                total += sum_gh / m
                xp.subtract(gh, total, out=total)
                total *= invstd
            else:
                total = (invstd / m) * (m * gh - sum_gh - xhat * sum_ghx)
            grad_x = total.astype(grad.dtype, copy=False)
        return grad_x, grad_w, grad_b, None, None


def layer_norm(
    input: TensorBase,
    normalized_shape: int | list[int] | tuple[int, ...],
    weight: TensorBase | None = None,
    bias: TensorBase | None = None,
    eps: float = 1e-5,
) -> Tensor:
    """Normalise each sample over its last dims ``normalized_shape``, as ``torch.nn.functional.layer_norm``."""
    if input.data.dtype.kind != "f":
        raise MiniTorchError(
            f"layer_norm: expected a floating-point input, got {input.dtype} (shape {tuple(input.shape)})"
        )
    # float32 under CUDA autocast; on the CPU's list it is not (a float16 input stays float16)
    input, weight, bias = autocast_inputs("layer_norm", input, weight, bias)
    shape = tuple(normalized_shape) if isinstance(normalized_shape, (list, tuple)) else (normalized_shape,)
    k = len(shape)
    if k == 0 or tuple(input.shape[input.ndim - k :]) != shape or input.ndim < k:
        raise MiniTorchError(
            f"layer_norm: normalized_shape {list(shape)} must be the last dims of the input, got input of "
            f"shape {tuple(input.shape)}"
        )
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and tuple(t.shape) != shape:
            raise MiniTorchError(f"layer_norm: {name} must have shape {shape}, got {tuple(t.shape)}")
        if t is not None:
            _check_dtype("layer_norm", input, name, t)
    return LayerNorm.apply(input, weight, bias, k, eps)
