"""``SoftmaxCrossEntropy`` on a GPU: forward in one hand-written CUDA kernel, backward in another.

Why it is faster: the op's forward is about ten launches (max, subtract, exp, sum, log,
gather, ...) and checks the labels on the host, which makes Python wait for the GPU every
step. The forward kernel (``sources.SOFTMAX_XENT_FORWARD``, one thread per row) computes each
row's softmax, loss, count and a bad-label flag in one launch; the flag is checked on the
device and raised at the next sync point, as PyTorch's device-side asserts are. The backward
kernel computes ``(softmax - onehot(target)) * scale`` in one launch from the probabilities
forward kept, where the op computes the softmax again (five or so launches).

The forward kernel takes float32 and float64 logits with up to
``sources.SOFTMAX_XENT_MAX_CLASSES`` classes (a thread loops over its row's classes), outside
``set_debug(True)`` (which checks the labels on the host at once). Other GPU logits run the
op's forward and only the backward kernel.

The kernel's node keeps the logits and the labels as given (no mask array, no host check)
and ``ctx.ignore_index``, by which the op's own backward masks the ignored rows itself
(``fused.ignored_rows_scale``): gradients of gradients are right through it too.
"""

from __future__ import annotations

from minitorch import backends
from minitorch.autograd.function import BackwardNode
from minitorch.functions.bounds import label_range_error
from minitorch.functions.fused import SoftmaxCrossEntropy, loss_scale, softmax_rows
from minitorch.hints import Array, Gradients
from minitorch.kernels.cuda import sources
from minitorch.kernels.registry import register
from minitorch.switches import SWITCHES

DEFAULT_IGNORE_INDEX = -100  # PyTorch's, and the op's when none is given (fused.host_labels)


def fits_forward_kernel(
    logits: Array, target: Array, reduction: str, row_weight: Array | None = None, ignore_index: int | None = None
) -> bool:
    """float32/float64 logits with 1..SOFTMAX_XENT_MAX_CLASSES classes and no row weights given,
    outside set_debug(True)."""
    return (
        not SWITCHES.debug
        and row_weight is None
        and logits.dtype.kind == "f"
        and logits.dtype.itemsize >= 4
        and 0 < logits.shape[1] <= sources.SOFTMAX_XENT_MAX_CLASSES
    )


def softmax_xent_forward(
    ctx: BackwardNode,
    logits: Array,
    target: Array,
    reduction: str,
    row_weight: Array | None = None,
    ignore_index: int | None = None,
) -> Array:
    """The op's forward in one kernel, the labels checked on the device; the probabilities kept."""
    n, c = logits.shape
    ignore = DEFAULT_IGNORE_INDEX if ignore_index is None else ignore_index
    losses, probs, counts, bad = sources.softmax_xent_forward(logits, target, ignore)
    backends.of(logits).check_on_device(bad.any(), label_range_error(c, ignore))
    ctx.save_for_backward(logits, target)
    ctx.save_for_kernel(probs)
    ctx.reduction, ctx.ignore_index, ctx.row_weight = reduction, ignore, None
    if reduction == "mean":
        ctx.total = counts.sum()  # 0/0 = nan when every row is ignored, as PyTorch
        return losses.sum() / ctx.total
    return losses.sum() if reduction == "sum" else losses


def softmax_xent_backward(ctx: BackwardNode, grad: Array) -> Gradients:
    """(probs - onehot(target)) * scale in one kernel, ignored rows 0."""
    logits, target = ctx.saved_tensors
    (probs,) = ctx.kernel_saved
    n = logits.shape[0]
    if ctx.reduction == "mean":  # every row ignored: inf, but the kernel skips every row
        scale = grad / ctx.total
    else:
        scale = grad if ctx.reduction == "sum" else grad.reshape(n, 1)
    rest = (None,) * (len(ctx.next_nodes) - 1)
    return (sources.softmax_xent_backward(probs, target, scale, ctx.ignore_index), *rest)


def is_float(logits: Array, *rest: object) -> bool:
    """Any floating-point GPU logits: the op's forward, the backward kernel."""
    return logits.dtype.kind == "f"


def softmax_xent_backward_from_logits(ctx: BackwardNode, grad: Array) -> Gradients:
    """The op's backward after the op's own forward: the softmax again, then one kernel for
    ``(softmax - onehot) * scale`` (the op's expressions for an unweighted 'none')."""
    logits, target = ctx.saved_tensors
    scale = loss_scale(ctx, grad, logits.shape[0])
    if ctx.row_weight is None and scale.ndim != 0:
        return SoftmaxCrossEntropy.backward(ctx, grad)
    rest = (None,) * (len(ctx.next_nodes) - 1)
    return (sources.softmax_xent_backward(softmax_rows(ctx.xp, logits), target, scale), *rest)


ONE_KERNEL_EACH_WAY = register(
    SoftmaxCrossEntropy,
    device="cuda",
    applies=fits_forward_kernel,
    forward=softmax_xent_forward,
    backward=softmax_xent_backward,
)
BACKWARD_KERNEL = register(
    SoftmaxCrossEntropy, device="cuda", applies=is_float, backward=softmax_xent_backward_from_logits
)
