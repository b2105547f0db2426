"""Batch normalisation (each channel by its batch or running statistics) and layer
normalisation (each sample over its last dims, the transformer's normalisation).

Both normalise, xhat = (x - mean) * invstd with invstd = 1 / sqrt(var + eps), then scale and
shift: y = xhat * weight + bias. They differ in what the statistics are taken over (the
batch, per channel; or each sample's own features), and so in the backward. Both keep only
x (and the weight; batch norm in evaluation its running statistics too, constants) for
backward, which computes xhat again from x: what gradients of gradients need, as the
backward's lines then record how xhat depends on x. (The CPU's fast kernels,
``minitorch/kernels/cpu/normalization.py``, keep xhat and invstd for the first order.)
"""

from __future__ import annotations

import math
from typing import Any

from minitorch.autograd.function import BackwardNode, Function
from minitorch.dtypes import float16, float32
from minitorch.errors import MiniTorchError
from minitorch.functions.autocast_policy import autocast_inputs
from minitorch.functions.shape import reshape
from minitorch.hints import Array, Gradients
from minitorch.tensor_base import T, TensorBase


def _check_dtype(op: str, x: TensorBase, name: str, t: TensorBase) -> None:
    """As PyTorch: a parameter (or statistic) has the input's dtype, or float32 for a float16 input."""
    if t.dtype != x.dtype and not (x.dtype == float16 and t.dtype == float32):
        raise MiniTorchError(
            f"{op}: input is {x.dtype} but {name} is {t.dtype}; convert one of them "
            "(e.g. model.double() for a float64 input)"
        )


def batch_statistics(xp: Any, x: Array, axes: tuple[int, ...]) -> tuple[Array, Array]:
    """(mean, biased variance) of each channel of ``x`` over ``axes``, dims kept; an empty
    batch has none: then (0, 1), which leave it as it is."""
    if x.size == 0:
        shape = tuple(1 if i in axes else n for i, n in enumerate(x.shape))
        return xp.zeros(shape, x.dtype), xp.ones(shape, x.dtype)
    mean = x.mean(axis=axes, keepdims=True)
    return mean, ((x - mean) ** 2).mean(axis=axes, keepdims=True)


class BatchNorm(Function):
    """y = (x - mean) * invstd * weight + bias, each channel (dim 1) by its own statistics.

    In training the statistics are the batch's, over every dim but the channel's (M values
    per channel), and the running ones (if given) move towards them; in evaluation they are
    the running statistics, constants. With xhat = (x - mean) * invstd and gh = g * weight:
    grad_weight = sum(g * xhat), grad_bias = sum(g) (over the M values of each channel), and

        training:    grad_x = invstd / M * (M * gh - sum(gh) - xhat * sum(gh * xhat))
                     (the batch's mean and variance depend on x too: the two sums are theirs)
        evaluation:  grad_x = gh * invstd
    """

    @staticmethod
    def forward(
        ctx: BackwardNode,
        x: Array,
        weight: Array | None,
        bias: Array | None,
        running_mean: Array | None,
        running_var: Array | None,
        training: bool,
        momentum: float,
        eps: float,
    ) -> Array:
        out, _, _ = batch_norm_forward(ctx, x, weight, bias, running_mean, running_var, training, momentum, eps)
        return out

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        x, weight, *running = ctx.saved_tensors
        xp, axes = ctx.xp, ctx.axes
        if ctx.training:
            mean, var = batch_statistics(xp, x, axes)
        else:  # (C,) each: the arrays handed to apply, which gradients of gradients know as constants
            shape = (1, x.shape[1]) + (1,) * (x.ndim - 2)
            mean, var = running[0].reshape(shape), running[1].reshape(shape)
        mean, invstd = mean_and_invstd(xp, x, mean, var, ctx.eps)
        return batch_norm_gradients(ctx, grad, weight, (x - mean) * invstd, invstd)


def batch_norm_forward(
    ctx: BackwardNode,
    x: Array,
    weight: Array | None,
    bias: Array | None,
    running_mean: Array | None,
    running_var: Array | None,
    training: bool,
    momentum: float,
    eps: float,
) -> tuple[Array, Array, Array]:
    """BatchNorm's forward: (out, xhat, invstd). The op returns out; its fast kernel also keeps
    xhat and invstd for its backward (``kernels/cpu/normalization.py``)."""
    xp = ctx.xp
    c = x.shape[1]
    axes = (0,) + tuple(range(2, x.ndim))
    shape = (1, c) + (1,) * (x.ndim - 2)  # the statistics broadcast along the channel dim
    if training:
        mean, var = batch_statistics(xp, x, axes)
        if x.size:
            update_running_statistics(running_mean, running_var, mean, var, momentum, x.size // c)
    else:  # constants: no gradient flows through them
        assert running_mean is not None and running_var is not None  # (batch_norm checks it)
        mean, var = running_mean.reshape(shape), running_var.reshape(shape)
    mean, invstd = mean_and_invstd(xp, x, mean, var, eps)
    xhat = (x - mean) * invstd
    out = xhat if weight is None else xhat * weight
    if bias is not None:
        out = out + bias
    ctx.axes, ctx.training, ctx.eps = axes, training, eps
    ctx.bias_dtype = None if bias is None else bias.dtype
    if training:
        ctx.save_for_backward(x, weight)  # the batch's statistics are computed again from x
    else:  # the running statistics as they came in (constants), not their views: see backward
        ctx.save_for_backward(x, weight, running_mean, running_var)
    # a float16 input with float32 parameters gives float16
    return out.astype(x.dtype, copy=False), xhat, invstd


def batch_norm_gradients(ctx: BackwardNode, grad: Array, weight: Array | None, xhat: Array, invstd: Array) -> Gradients:
    """BatchNorm's gradients from xhat = (x - mean) * invstd: the op's backward and its kernel's."""
    axes = ctx.axes
    need_x, need_w, need_b = ctx.needs_input_grad[:3]
    # weight and bias arrive shaped (1, C, 1, ...), so their gradients keep those dims
    # (and their dtypes: float32 parameters of a float16 input get float32 gradients).
    grad_w = (grad * xhat).sum(axis=axes, keepdims=True, dtype=weight.dtype) if need_w and weight is not None else None
    grad_b = grad.sum(axis=axes, keepdims=True, dtype=ctx.bias_dtype) if need_b else None
    grad_x = None
    if need_x and grad.size == 0:  # an empty batch
        grad_x = grad.copy()
    elif need_x:
        gh = grad if weight is None else grad * weight
        if ctx.training:
            m = grad.size // invstd.size
            sum_gh = gh.sum(axis=axes, keepdims=True)
            sum_ghx = (gh * xhat).sum(axis=axes, keepdims=True)
            grad_x = (invstd / m) * (m * gh - sum_gh - xhat * sum_ghx)
        else:
            grad_x = gh * invstd
        grad_x = grad_x.astype(grad.dtype, copy=False)
    return grad_x, grad_w, grad_b, None, None, None, None, None


def mean_and_invstd(xp: Any, x: Array, mean: Array, var: Array, eps: float) -> tuple[Array, Array]:
    """(mean, 1 / sqrt(var + eps)) in x's dtype (float32 statistics of a float16 input: float16)."""
    return mean.astype(x.dtype, copy=False), (1 / xp.sqrt(var + eps)).astype(x.dtype, copy=False)


def update_running_statistics(
    running_mean: Array | None, running_var: Array | None, mean: Array, var: Array, momentum: float, m: int
) -> None:
    """running = (1 - momentum) * running + momentum * batch, with the unbiased batch variance
    (var * M / (M - 1)). The running statistics are buffers the op updates in place, as
    PyTorch's does: the module holds on to them."""
    c = mean.size
    if running_mean is not None:
        running_mean[...] = running_mean * (1 - momentum) + momentum * mean.reshape(c)
    if running_var is not None:
        running_var[...] = running_var * (1 - momentum) + momentum * var.reshape(c) * (m / (m - 1))


def batch_norm(
    input: T,
    running_mean: T | None,
    running_var: T | None,
    weight: T | None = None,
    bias: T | None = None,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> T:
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
    if training and input.data.size and input.data.size // c == 1:
        raise MiniTorchError(
            "batch_norm: expected more than 1 value per channel when training, got input of shape "
            f"{tuple(input.shape)}"
        )
    if not training and (running_mean is None or running_var is None):
        raise MiniTorchError("batch_norm: evaluation mode needs running_mean and running_var")
    stat_shape = (1, c) + (1,) * (input.ndim - 2)
    w = reshape(weight, stat_shape) if weight is not None else None
    b = reshape(bias, stat_shape) if bias is not None else None
    # The running statistics go in as arrays, not tensors: buffers the op updates in place, no
    # part of the graph. (So minitorch.compile runs a step with them eagerly, as an array
    # argument is a graph break there: the module's batch counter, bumped outside any op,
    # could not be replayed.)
    running = [None if t is None else t.data for t in (running_mean, running_var)]
    return BatchNorm.apply(input, w, b, *running, training, momentum, eps)


class LayerNorm(Function):
    """y = (x - mean) * invstd * weight + bias over the last ``k`` dims of each sample.

    The statistics belong to each sample (a row of M elements), so they depend on x: with
    xhat = (x - mean) * invstd and gh = g * weight, the backward is batch norm's, along the row:

        grad_x = invstd / M * (M * gh - sum(gh) - xhat * sum(gh * xhat))

    weight and bias are shared by all rows: their gradients, sum(g * xhat) and sum(g), add
    up over the leading dims.
    """

    @staticmethod
    def forward(ctx: BackwardNode, x: Array, weight: Array | None, bias: Array | None, k: int, eps: float) -> Array:
        axes = tuple(range(x.ndim - k, x.ndim))
        xhat, _ = normalize_rows(ctx.xp, x, axes, eps)
        out = xhat if weight is None else xhat * weight
        if bias is not None:
            out = out + bias
        ctx.axes, ctx.m, ctx.eps = axes, math.prod(x.shape[x.ndim - k :]), eps
        ctx.bias_dtype = None if bias is None else bias.dtype
        ctx.save_for_backward(x, weight)
        return out.astype(x.dtype, copy=False)  # a float16 input with float32 parameters gives float16

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        x, weight = ctx.saved_tensors
        axes, m = ctx.axes, ctx.m
        xhat, invstd = normalize_rows(ctx.xp, x, axes, ctx.eps)
        need_x, need_w, need_b = ctx.needs_input_grad[:3]
        lead = tuple(range(grad.ndim - len(axes)))  # the dims the parameters are shared over
        # (a float32 weight of a float16 input gets a float32 gradient)
        grad_w = (grad * xhat).sum(axis=lead, dtype=weight.dtype) if need_w else None
        grad_b = grad.sum(axis=lead, dtype=ctx.bias_dtype) if need_b else None
        grad_x = None
        if need_x:
            gh = grad if weight is None else grad * weight
            sum_gh = gh.sum(axis=axes, keepdims=True)
            sum_ghx = (gh * xhat).sum(axis=axes, keepdims=True)
            grad_x = ((invstd / m) * (m * gh - sum_gh - xhat * sum_ghx)).astype(grad.dtype, copy=False)
        return grad_x, grad_w, grad_b, None, None


def normalize_rows(xp: Any, x: Array, axes: tuple[int, ...], eps: float) -> tuple[Array, Array]:
    """(xhat, invstd) of each row of ``x`` over ``axes``: xhat = (x - mean) * invstd, invstd =
    1 / sqrt(var + eps), with the biased variance (as PyTorch); invstd keeps the reduced dims."""
    mean = x.mean(axis=axes, keepdims=True)
    centered = x - mean
    invstd = 1 / xp.sqrt((centered * centered).mean(axis=axes, keepdims=True) + eps)
    return centered * invstd, invstd


def layer_norm(
    input: T,
    normalized_shape: int | list[int] | tuple[int, ...],
    weight: T | None = None,
    bias: T | None = None,
    eps: float = 1e-5,
) -> T:
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
