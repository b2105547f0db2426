"""``SoftmaxCrossEntropy``'s fast kernel on NumPy: the probabilities made once, updated in place.

The op keeps only the logits and labels, and its backward computes the softmax again (a
max, an exp, a sum and a division over the whole (N, C) array). This kernel keeps the
probabilities from forward instead (``save_for_kernel``), and makes as few (N, C) arrays as
it can: forward divides the exponentials by their sums in place, and backward subtracts the
one-hot labels from a copy of the probabilities and scales it in place: one new array
each way, where the op's expressions make several.

The compiled step writes these same calls out on its buffers (``jit/kernels.py``'s
``cross_entropy``): change one, change the other, or the compiled step stops being
bit-identical.
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
    shifted = logits - logits.max(axis=1, keepdims=True)
    probs = np.exp(shifted)
    total = probs.sum(axis=1, keepdims=True)
    losses = np.log(total[:, 0]) - shifted[np.arange(logits.shape[0]), target]  # -log softmax[target]
    probs /= total  # exp(shifted) / total, in place: the exponentials are not needed again
    ctx.save_for_backward(logits, target)
    ctx.save_for_kernel(probs)
    ctx.reduction, ctx.row_weight = reduction, row_weight
    return reduce_losses(ctx, losses, logits.shape[0])


def softmax_xent_in_place_backward(ctx: BackwardNode, grad: Array) -> Gradients:
    """(probs - onehot(target)) * scale, in one copy of the kept probabilities."""
    (probs,) = ctx.kernel_saved
    _, target = ctx.saved_tensors
    rest = (None,) * (len(ctx.next_nodes) - 1)
    scale = loss_scale(ctx, grad, probs.shape[0])
    grad_logits = probs.copy()
    grad_logits[np.arange(probs.shape[0]), target] -= 1
    if scale.ndim == 0 and scale.dtype == probs.dtype:
        grad_logits *= scale  # in place: no second (N, C) array
        return (grad_logits, *rest)
    return ((grad_logits * scale).astype(probs.dtype, copy=False), *rest)


IN_PLACE = register(
    SoftmaxCrossEntropy,
    applies=_numpy_logits,
    forward=softmax_xent_in_place,
    backward=softmax_xent_in_place_backward,
)
