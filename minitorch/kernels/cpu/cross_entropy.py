"""``SoftmaxCrossEntropy``'s fast kernel on NumPy: the probabilities made once, updated in place.

The op keeps only the logits and labels, and its backward computes the softmax again (a
max, an exp, a sum and a division over the whole (N, C) array). This kernel keeps the
probabilities from forward instead (``save_for_kernel``), and makes as few (N, C) arrays as
it can: forward divides the exponentials by their sums in place, and backward subtracts the
one-hot labels from a copy of the probabilities and scales it in place: one new array
each way, where the op's expressions make several.

The two halves, ``softmax_xent_rows`` and ``softmax_xent_grad``, take the arrays to write
into (``out=``...): eager calls them without (new arrays), a compiled step
(``minitorch.compile``, ``jit/kernels.py``) with the buffers it made once. The very same
calls, so the compiled step gives eager's bits.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitorch.autograd.function import BackwardNode
from minitorch.functions.fused import SoftmaxCrossEntropy, host_labels, loss_scale, reduce_losses
from minitorch.hints import Array, Gradients
from minitorch.kernels.registry import register


def _numpy_logits(logits: Array, *rest: Any) -> bool:
    """Float logits in a NumPy array (a GPU's have their own kernels)."""
    return type(logits) is np.ndarray and logits.dtype.kind == "f"


def softmax_xent_rows(
    logits: Array,
    target: Array,
    rows: Array,
    *,
    top: Array | None = None,
    shifted: Array | None = None,
    probs: Array | None = None,
    total: Array | None = None,
    log_total: Array | None = None,
    losses: Array | None = None,
) -> tuple[Array, Array]:
    """(each row's loss -log softmax[target], the probabilities), for labels all in [0, C).

    ``rows`` is ``arange(N)``; the keyword arrays, if given, receive the row maxima (N, 1),
    the shifted logits (N, C), the probabilities (N, C), their row sums (N, 1), the logs of
    those (N,) and the losses (N,).
    """
    shifted = np.subtract(logits, logits.max(axis=1, keepdims=True, out=top), out=shifted)
    probs = np.exp(shifted, out=probs)
    total = probs.sum(axis=1, keepdims=True, out=total)
    losses = np.subtract(np.log(total[:, 0], out=log_total), shifted[rows, target], out=losses)
    np.divide(probs, total, out=probs)  # exp(shifted) / total, in place: the exponentials are not needed again
    return losses, probs


def softmax_xent_grad(probs: Array, target: Array, rows: Array, scale: Array, out: Array | None = None) -> Array:
    """(probs - onehot(target)) * scale, in one array: ``out`` (a copy of probs written into it) or a new one.

    ``scale`` (``fused.loss_scale``): the loss's gradient over N for 'mean', per row with weights.
    """
    grad_logits = probs.copy() if out is None else out
    if out is not None:
        np.copyto(out, probs)
    grad_logits[rows, target] -= 1
    if scale.ndim == 0 and scale.dtype == probs.dtype:
        grad_logits *= scale  # in place: no second (N, C) array
        return grad_logits
    return (grad_logits * scale).astype(probs.dtype, copy=False)


def softmax_xent_in_place(
    ctx: BackwardNode,
    logits: Array,
    target: Array,
    reduction: str,
    row_weight: Array | None = None,
    ignore_index: int | None = None,
) -> Array:
    """The op's forward, with the probabilities computed once and kept for backward."""
    ctx.ignore_index = None
    if row_weight is None:  # labels in range, ignore_index ones masked, any other refused
        target, row_weight = host_labels(target, logits, ignore_index)
    losses, probs = softmax_xent_rows(logits, target, np.arange(logits.shape[0]))
    ctx.save_for_backward(logits, target)
    ctx.save_for_kernel(probs)
    ctx.reduction, ctx.row_weight = reduction, row_weight
    return reduce_losses(ctx, losses, logits.shape[0])


def softmax_xent_in_place_backward(ctx: BackwardNode, grad: Array) -> Gradients:
    """(probs - onehot(target)) * scale, in one copy of the kept probabilities."""
    (probs,) = ctx.kernel_saved
    _, target = ctx.saved_tensors
    rest = (None,) * (len(ctx.next_nodes) - 1)
    n = probs.shape[0]
    return (softmax_xent_grad(probs, target, np.arange(n), loss_scale(ctx, grad, n)), *rest)


IN_PLACE = register(
    SoftmaxCrossEntropy,
    applies=_numpy_logits,
    forward=softmax_xent_in_place,
    backward=softmax_xent_in_place_backward,
)
