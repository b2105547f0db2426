"""Fused ops: several small ops done as one node, with one hand-written backward.

A fused op is faster (fewer graph nodes, fewer temporaries, on a GPU fewer kernel
launches) and a lesson in itself: its backward is the chain rule done by hand.

- ``Linear``: ``x @ W.T + b`` in one node.
- ``SoftmaxCrossEntropy``: the loss of a classifier in one node. Forward computes the
  stable log-softmax and picks the target entries; backward is the famous
  ``(softmax - onehot(target)) / N``, on a GPU ONE kernel instead of the five or so that
  LogSoftmax's and NLLLoss's backwards launch together.
- ``BiasReLU``: ``relu(x + b)`` in one node (on a GPU one kernel each way; lesson 10 builds it).

Each is written here as plain array math, the same on NumPy and CuPy, keeping for backward
only its inputs (the softmax is computed again from the logits). The CPU's faster ways to
compute ``Linear`` and ``SoftmaxCrossEntropy`` (one BLAS product for a batch of sequences,
the probabilities kept from forward and updated in place) are fast kernels in
``minitorch/kernels/cpu/`` (``linear.py``, ``cross_entropy.py``), and the GPU's hand-written
CUDA kernels for ``SoftmaxCrossEntropy`` and ``BiasReLU`` in ``minitorch/kernels/cuda/``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minitorch import backends
from minitorch.autograd.function import BackwardNode, Function
from minitorch.autograd.graph_arrays import GraphArray, wrap
from minitorch.errors import MiniTorchError
from minitorch.functions.activations import Softmax
from minitorch.functions.autocast_policy import to_low_precision
from minitorch.functions.bounds import label_rows
from minitorch.functions.linalg import product
from minitorch.functions.unary import relu_grad
from minitorch.hints import Array, Gradients
from minitorch.switches import SWITCHES
from minitorch.tensor_base import T


class Linear(Function):
    """y = x @ W^T + b with W of shape (out, in), as PyTorch stores it.

    Every leading dim of x (a batch, a batch of sequences) is more rows of the same layer, so
    with g the gradient of y, seen as a matrix of rows like x:
    grad_x = g @ W,  grad_W = g^T @ x (summed over all rows by the product),  grad_b = sum of g's rows.
    """

    @staticmethod
    def forward(ctx: BackwardNode, x: Array, weight: Array, bias: Array | None) -> Array:
        ctx.save_for_backward(x, weight)
        out = product(x, weight.T)
        return out if bias is None else out + bias

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        x, weight = ctx.saved_tensors
        need_x, need_w, need_b = ctx.needs_input_grad
        g_rows = _rows(grad)
        grad_x = product(grad, weight) if need_x else None
        grad_w = product(g_rows.T, _rows(x)) if need_w else None
        grad_b = g_rows.sum(axis=0) if need_b else None
        return grad_x, grad_w, grad_b


def _rows(a: Array) -> Array:
    """``a`` as a matrix of rows of its last dim: (..., m) -> (rows, m)."""
    return a.reshape(math.prod(a.shape[:-1]), a.shape[-1])


def linear(input: T, weight: T, bias: T | None = None) -> T:
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
    if bias is not None and bias.data.dtype != input.data.dtype:  # PyTorch refuses too
        raise MiniTorchError(
            f"linear: bias dtype {bias.dtype} and input dtype {input.dtype} differ; convert with "
            "bias.to(input.dtype) (or model.double())"
        )
    return Linear.apply(input, weight, bias)


class SoftmaxCrossEntropy(Function):
    """The loss of a classifier, for logits x (N, C) and class labels t (N,): per row

        loss_n = logsumexp(x_n) - x_n[t_n]  (= -log softmax(x_n)[t_n])

    averaged over the rows ('mean'), summed ('sum') or kept ('none'). Backward is the famous

        grad_x_n = (softmax(x_n) - onehot(t_n)) * g   (g over N for 'mean')

    ``row_weight`` (optional): each row's weight (class weights, 0 for ignored rows), for
    PyTorch's weighted mean, which divides by the weights' sum. ``ignore_index`` (optional):
    rows with that label count for nothing; any other label outside [0, C) raises. (The GPU's
    forward kernel, ``kernels/cuda/cross_entropy.py``, keeps the labels as given and sets
    ``ctx.ignore_index``: backward then masks those rows itself, ``ignored_rows_scale``.)

    Under create_graph=True the backward's lines run on graph values: the rows that count
    after ``ignore_index`` are a bool mask, which it may read. A float ``row_weight`` passed
    in is kept on ``ctx`` and refused there with a DoubleBackwardError (``cross_entropy``'s
    class weights take the log_softmax + NLLLoss path, which differentiates twice).
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
        ctx.ignore_index = None  # the labels are masked here (the GPU kernel sets it, see above)
        if row_weight is None:  # labels in range, ignore_index ones masked, any other refused
            target, row_weight = host_labels(target, logits, ignore_index)
        shifted = logits - logits.max(axis=1, keepdims=True)  # exp() <= 1: no overflow
        losses = xp.log(xp.exp(shifted).sum(axis=1)) - shifted[xp.arange(logits.shape[0]), target]
        ctx.save_for_backward(logits, target)
        ctx.reduction, ctx.row_weight = reduction, row_weight
        return reduce_losses(ctx, losses, logits.shape[0])

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        logits, target = ctx.saved_tensors
        xp = ctx.xp
        rest = (None,) * (len(ctx.next_nodes) - 1)  # target, reduction and the optional settings
        if ctx.ignore_index is not None:
            # The GPU's forward kernel kept the raw labels and skipped the ignored rows itself;
            # on its node (a backward under create_graph=True, or fast kernels switched off
            # since), those rows are masked here and the rows that count are counted again.
            scale = ignored_rows_scale(xp, ctx, grad, target, logits.dtype)
        else:
            scale = loss_scale(ctx, grad, logits.shape[0])
        # The one-hot labels as numbers (not a bool mask): float - bool is NumPy's mixed loop,
        # slower than the cast, and a MiniTorch error on graph values (create_graph=True).
        onehot = (xp.arange(logits.shape[1]) == target[:, None]).astype(logits.dtype)
        grad_logits = (softmax_rows(xp, logits) - onehot) * scale
        return (grad_logits.astype(logits.dtype, copy=False), *rest)


def softmax_rows(xp: Any, logits: Array) -> Array:
    """softmax of each row of ``logits`` (N, C): exp(x - max) / sum(exp(x - max)).

    On a graph value (a backward under create_graph=True) the same numbers come from the
    differentiable ``Softmax`` op: one recorded node instead of the five below (max, -, exp,
    sum, /), and a second backward through one formula instead of five.
    """
    if isinstance(logits, GraphArray):
        return wrap(Softmax.apply(logits.tensor, 1))
    e = xp.exp(logits - logits.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def reduce_losses(ctx: BackwardNode, losses: Array, n: int) -> Array:
    """The rows' losses times ``ctx.row_weight`` (if any), then reduced as ``ctx.reduction`` says.

    A weighted 'mean' divides by the weights' sum, as PyTorch's weighted mean does: nan when
    every row is ignored.
    """
    if ctx.row_weight is not None:  # class weights / ignored rows (weight 0)
        losses = losses * ctx.row_weight
        if ctx.reduction == "mean":
            with np.errstate(invalid="ignore", divide="ignore"):  # every row ignored: 0/0 = nan, as PyTorch
                return losses.sum() / row_total(ctx.row_weight, losses.dtype)
    if ctx.reduction == "mean":
        return losses.sum() / n  # as .mean(), without its Python wrapper
    if ctx.reduction == "sum":
        return losses.sum()
    return losses


def loss_scale(ctx: BackwardNode, grad: Array, n: int) -> Array:
    """What multiplies each row's softmax - onehot: the loss's gradient over the count for
    'mean', times each row's weight; a 0-d array when every row gets the same, else (N, 1)."""
    if ctx.row_weight is not None:
        if ctx.reduction == "mean":  # every row ignored: zero gradients (PyTorch's), not 0 * nan
            total = row_total(ctx.row_weight, grad.dtype)  # again: a float kept on ctx would not do under create_graph
            grad = grad / ctx.xp.where(total == 0, 1, total)
        return (ctx.row_weight * grad).reshape(n, 1)
    if ctx.reduction == "mean":
        return grad / n
    return grad if ctx.reduction == "sum" else grad.reshape(n, 1)


def row_total(row_weight: Array, dtype: Any) -> Array:
    """The rows' summed weight as a 0-d array of ``dtype``; of a bool mask, its count (NumPy
    sums a mask as floats through a slow casting loop; count_nonzero counts directly)."""
    if row_weight.dtype != bool:
        return row_weight.sum()
    xp = backends.module_of(row_weight)
    return xp.asarray(xp.count_nonzero(row_weight), dtype=dtype)


def ignored_rows_scale(xp: Any, ctx: BackwardNode, grad: Array, target: Array, dtype: Any) -> Array:
    """``loss_scale`` for labels that still hold ``ctx.ignore_index`` (the GPU forward kernel's):
    (N, 1), 0 on the ignored rows, over the count of the others for 'mean' (0 rows: zeros)."""
    keep = target != ctx.ignore_index
    if ctx.reduction == "mean":
        total = row_total(keep, dtype)
        grad = grad / xp.where(total == 0, 1, total)
    return (keep * grad).reshape(target.shape[0], 1)


class BiasReLU(Function):
    """relu(x + b) with b broadcast over the last dimension of x."""

    @staticmethod
    def forward(ctx: BackwardNode, x: Array, b: Array) -> Array:
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


def bias_relu(x: T, b: T) -> T:
    """``relu(x + b)`` as one op (one CUDA kernel forward, one backward on a GPU)."""
    return BiasReLU.apply(x, b)


def host_labels(target: Array, logits: Array, ignore_index: int | None) -> tuple[Array, Array | None]:
    """``(safe labels, row weights or None)``: the check every forward (and so every replay) makes.

    One ``max()`` when every label is a class (and ``ignore_index`` is not one); otherwise
    ``ignore_index`` rows get weight 0 and any other label outside [0, C) raises, naming it.
    """
    # (softmax_cross_entropy(logits, target) without ignore_index: PyTorch's default, -100)
    # The weights are a bool mask (True: the row counts): a value without a gradient, which
    # the backward may read under create_graph=True (a float array kept on ctx it may not).
    return label_rows(target, logits.shape[1], None, -100 if ignore_index is None else ignore_index, bool)


def softmax_cross_entropy(logits: T, target: T, reduction: str = "mean") -> T:
    """Cross-entropy of (N, C) ``logits`` and int64 class ``target`` (N,) as one op."""
    return SoftmaxCrossEntropy.apply(logits, target, reduction)
