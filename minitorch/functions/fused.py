"""Fused ops: several small ops done as one node, with one hand-written backward.

A fused op is faster (fewer graph nodes, fewer temporaries, on a GPU fewer kernel
launches) and a lesson in itself: its backward is the chain rule done by hand.

- ``Linear``: ``x @ W.T + b`` in one node.
- ``SoftmaxCrossEntropy``: the loss of a classifier in one node. Forward computes the
  stable log-softmax and picks the target entries; backward is the famous
  ``(softmax - onehot(target)) / N``, on a GPU ONE kernel instead of the five or so that
  LogSoftmax's and NLLLoss's backwards launch together.
- ``BiasReLU``: ``relu(x + b)`` in one kernel each way on a GPU (lesson 10 builds it).

Each runs on NumPy too; where the array's backend has hand-written kernels
(``backends.kernels_for``), the GPU path uses them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from minitorch import backends
from minitorch.autograd.function import BackwardNode, Function
from minitorch.errors import MiniTorchError
from minitorch.functions.autocast_policy import to_low_precision
from minitorch.functions.bounds import label_range_error, label_rows
from minitorch.functions.linalg import product, sum_leading
from minitorch.functions.unary import relu_grad
from minitorch.hints import Array, Gradients
from minitorch.switches import SWITCHES
from minitorch.tensor_base import TensorBase

if TYPE_CHECKING:  # the face, for annotations only: never imported at run time (no cycle)
    from minitorch.tensor import Tensor


class Linear(Function):
    """y = x @ W.T + b with W of shape (out, in), as PyTorch stores it.

    Backward: grad_x = g @ W, grad_W = g.T @ x (over all leading dims), grad_b = sum(g).
    """

    @staticmethod
    def forward(ctx: BackwardNode, x: Array, weight: Array, bias: Array | None) -> Array:
        ctx.save_for_backward(x, weight)
        out = product(x, weight.T)
        if bias is not None:
            out += bias  # ``out`` is a fresh array: adding in place saves a temporary
        return out

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        x, weight = ctx.saved_tensors
        need_x, need_w, need_b = ctx.needs_input_grad
        grad_x = grad_w = grad_b = None
        if need_x:
            grad_x = product(grad, weight)
        if need_w or need_b:
            # Leading dims (a batch of sequences, say) count as more rows; a 2-D batch as it is.
            g2 = grad if grad.ndim == 2 else grad.reshape(-1, grad.shape[-1])
            if need_w:
                x2 = x if x.ndim == 2 else x.reshape(-1, x.shape[-1])
                grad_w = product(g2.T, x2)
            if need_b:
                grad_b = sum_leading(g2)  # ones @ g2: faster than NumPy's column sums
        return grad_x, grad_w, grad_b


def linear(input: TensorBase, weight: TensorBase, bias: TensorBase | None = None) -> Tensor:
    """``input @ weight.T + bias``: a fully connected layer with weight of shape (out, in)."""
    if SWITCHES.autocast is not None:  # float16 inside autocast
        input, weight, bias = to_low_precision(input, weight, bias)
    # The checks read the arrays' shape tuples: cheaper than Tensor.shape on this hot path.
    x_shape, w_shape = input.data.shape, weight.data.shape
    if x_shape[-1:] != w_shape[-1:] or len(w_shape) != 2:
        raise MiniTorchError(
            f"linear: input of shape {x_shape} needs a weight of shape (out, {x_shape[-1] if x_shape else '?'}), "
            f"got {w_shape}"
        )
    if bias is not None and bias.data.shape != w_shape[:1]:
        raise MiniTorchError(f"linear: bias must have shape ({w_shape[0]},), got {bias.data.shape}")
    if input.data.dtype != weight.data.dtype:
        raise MiniTorchError(
            f"linear: input dtype {input.dtype} and weight dtype {weight.dtype} differ; convert with "
            "x.float() (or model.double())"
        )
    return Linear.apply(input, weight, bias)


class SoftmaxCrossEntropy(Function):
    """mean (or sum) over rows of ``logsumexp(x) - x[target]`` for logits (N, C).

    ``row_weight`` (optional): each row's weight (class weights, 0 for ignored rows), for
    PyTorch's weighted mean. ``ignore_index`` (optional, GPU kernel path only): labels not
    checked on the host; the kernel skips rows equal to it (loss 0, not counted, no
    gradient) and flags other out-of-range labels for the device-side check, so the
    default GPU step needs no mask arrays and no sync.
    """

    @staticmethod
    def forward(
        ctx: BackwardNode,
        logits: Array,
        target: Array,
        reduction: str,
        row_weight: Array | None = None,
        ignore_index: int | None = None,
    ) -> Array:
        xp = ctx.xp
        ctx.ignore_index = None
        kernels = backends.kernels_for(logits)  # None on the CPU
        if kernels is not None and not SWITCHES.debug and _fits_forward_kernel(kernels, logits):
            # One launch for all of it: softmax, per-row loss, counts and the range flags.
            # (set_debug(True) checks the labels on the host at once instead, below.)
            skip = -100 if ignore_index is None else ignore_index
            losses, probs, counts, bad = kernels.softmax_xent_forward(logits, target, skip)
            if ignore_index is not None:
                ctx.ignore_index = ignore_index
                backends.of(logits).check_on_device(bad.any(), label_range_error(logits.shape[1], ignore_index))
        else:
            if row_weight is None:  # labels in range, ignore_index ones masked, any other refused
                target, row_weight = _host_labels(target, logits, ignore_index)
            shifted = logits - logits.max(axis=1, keepdims=True)
            probs = xp.exp(shifted)
            total = probs.sum(axis=1, keepdims=True)
            rows = xp.arange(logits.shape[0])
            losses = xp.log(total[:, 0]) - shifted[rows, target]  # -log softmax[target], per row
            probs /= total  # exp(shifted) / total, in place: the exponentials are not needed again
        ctx.save_for_backward(probs, target)
        ctx.reduction = reduction
        ctx.row_weight = row_weight
        if row_weight is not None:  # class weights / ignored rows (weight 0): PyTorch's weighted mean
            losses = losses * row_weight
            if reduction == "mean":
                ctx.total = row_weight.sum()
                with np.errstate(invalid="ignore", divide="ignore"):  # every row ignored: 0/0 = nan, as PyTorch
                    return losses.sum() / ctx.total
        if ctx.ignore_index is not None and reduction == "mean":
            ctx.total = counts.sum()  # the rows that count; 0/0 = nan when all are ignored, as PyTorch
            return losses.sum() / ctx.total
        if reduction == "mean":
            return losses.sum() / logits.shape[0]  # as .mean(), without its Python wrapper
        if reduction == "sum":
            return losses.sum()
        return losses

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        probs, target = ctx.saved_tensors
        n = probs.shape[0]
        rest = (None,) * (len(ctx.next_nodes) - 1)  # target, reduction and the optional settings
        if ctx.row_weight is not None:
            return (_weighted_backward(ctx, probs, target, grad), *rest)
        if ctx.reduction == "mean":
            # The kernel path divides by the rows that count (all ignored: inf, but every row
            # is then skipped by the kernel).
            scale = grad / (n if ctx.ignore_index is None else ctx.total)
        else:
            scale = grad if ctx.reduction == "sum" else grad.reshape(n, 1)
        kernels = backends.kernels_for(probs)  # None on the CPU
        if ctx.ignore_index is not None:  # the GPU kernel path: ignored rows get no gradient
            return (kernels.softmax_xent_backward(probs, target, scale, ctx.ignore_index), *rest)
        if kernels is not None and scale.ndim == 0:
            return (kernels.softmax_xent_backward(probs, target, scale), *rest)
        xp = ctx.xp
        grad_logits = probs.copy()
        grad_logits[xp.arange(n), target] -= 1
        if scale.ndim == 0 and scale.dtype == probs.dtype:
            grad_logits *= scale  # in place: no second (N, C) array
            return (grad_logits, *rest)
        return ((grad_logits * scale).astype(probs.dtype, copy=False), *rest)


def _weighted_backward(ctx: BackwardNode, probs: Array, target: Array, grad: Array) -> Array:
    """(softmax - onehot(target)) times each row's weight (over the weights' sum for 'mean')."""
    xp = ctx.xp
    if ctx.reduction == "mean":  # every row ignored: zero gradients (PyTorch's), not 0 * nan
        grad = grad / xp.where(ctx.total == 0, 1, ctx.total)
    scale = ctx.row_weight * grad
    kernels = backends.kernels_for(probs)  # None on the CPU
    if kernels is not None:  # the kernel broadcasts a (N, 1) scale: still one launch
        return kernels.softmax_xent_backward(probs, target, scale.reshape(-1, 1))
    grad_logits = probs.copy()
    grad_logits[xp.arange(probs.shape[0]), target] -= 1
    return (grad_logits * scale.reshape(-1, 1)).astype(probs.dtype, copy=False)


def _fits_forward_kernel(kernels: Any, logits: Array) -> bool:
    """The one-thread-per-row forward kernel: float32/float64 logits with not too many classes."""
    return logits.dtype.itemsize >= 4 and 0 < logits.shape[1] <= kernels.SOFTMAX_XENT_MAX_CLASSES


class BiasReLU(Function):
    """relu(x + b) with b broadcast over the last dimension of x."""

    @staticmethod
    def forward(ctx: BackwardNode, x: Array, b: Array) -> Array:
        kernels = backends.kernels_for(x)  # None on the CPU
        if kernels is not None:
            out = kernels.bias_relu_forward(x, b)
        else:
            out = ctx.xp.maximum(x + b, 0)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        (out,) = ctx.saved_tensors
        grad_x = relu_grad(out, grad)
        need_x, need_b = ctx.needs_input_grad
        grad_b = grad_x.reshape(-1, grad_x.shape[-1]).sum(axis=0) if need_b else None
        return (grad_x if need_x else None), grad_b


def bias_relu(x: TensorBase, b: TensorBase) -> Tensor:
    """``relu(x + b)`` as one op (one CUDA kernel forward, one backward on a GPU)."""
    return BiasReLU.apply(x, b)


def _host_labels(target: Array, logits: Array, ignore_index: int | None) -> tuple[Array, Array | None]:
    """``(safe labels, row weights or None)``: the check every forward (and so every replay) makes.

    One ``max()`` when every label is a class (and ``ignore_index`` is not one); otherwise
    ``ignore_index`` rows get weight 0 and any other label outside [0, C) raises, naming it.
    """
    # (softmax_cross_entropy(logits, target) without ignore_index: PyTorch's default, -100)
    return label_rows(target, logits.shape[1], None, -100 if ignore_index is None else ignore_index, logits.dtype)


def softmax_cross_entropy(logits: TensorBase, target: TensorBase, reduction: str = "mean") -> Tensor:
    """Cross-entropy of (N, C) ``logits`` and int64 class ``target`` (N,) as one op."""
    return SoftmaxCrossEntropy.apply(logits, target, reduction)
