"""Fused ops for the GPU: several small ops done as one, with a hand-written kernel.

- ``SoftmaxCrossEntropy``: the loss of a classifier in one node. Forward computes the
  stable log-softmax and picks the target entries; backward is the famous
  ``(softmax - onehot(target)) / N`` as ONE kernel (``cuda_kernels.SOFTMAX_XENT_BACKWARD``)
  instead of the five or so that LogSoftmax's and NLLLoss's backwards launch together.
  ``F.cross_entropy`` uses it for (N, C) logits on a GPU.
- ``BiasReLU``: ``relu(x + b)`` in one kernel each way (lesson 10 builds it).

Both work on NumPy too (with NumPy expressions), so their gradients are checked on the CPU
with gradcheck and on the GPU against the CPU.
"""

from minitorch import cuda_kernels
from minitorch.autograd.function import Function


class SoftmaxCrossEntropy(Function):
    """mean (or sum) over rows of ``logsumexp(x) - x[target]`` for logits (N, C)."""

    @staticmethod
    def forward(ctx, logits, target, reduction):
        xp = ctx.xp
        shifted = logits - logits.max(axis=1, keepdims=True)
        exp = xp.exp(shifted)
        total = exp.sum(axis=1, keepdims=True)
        rows = xp.arange(logits.shape[0])
        losses = xp.log(total[:, 0]) - shifted[rows, target]  # -log softmax[target], per row
        ctx.save_for_backward(exp / total, target)
        ctx.reduction = reduction
        if reduction == "mean":
            return losses.sum() / logits.shape[0]  # as .mean(), without its Python wrapper
        if reduction == "sum":
            return losses.sum()
        return losses

    @staticmethod
    def backward(ctx, grad):
        probs, target = ctx.saved_tensors
        n = probs.shape[0]
        if ctx.reduction == "mean":
            scale = grad / n
        else:
            scale = grad if ctx.reduction == "sum" else grad.reshape(n, 1)
        if cuda_kernels.should_use(probs) and scale.ndim == 0:
            return cuda_kernels.softmax_xent_backward(probs, target, scale), None, None
        xp = ctx.xp
        grad_logits = probs.copy()
        grad_logits[xp.arange(n), target] -= 1
        return (grad_logits * scale).astype(probs.dtype, copy=False), None, None


class BiasReLU(Function):
    """relu(x + b) with b broadcast over the last dimension of x."""

    @staticmethod
    def forward(ctx, x, b):
        if cuda_kernels.should_use(x):
            out = cuda_kernels.bias_relu_forward(x, b)
        else:
            out = ctx.xp.maximum(x + b, 0)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        if cuda_kernels.should_use(grad) and grad.dtype == out.dtype:
            grad_x = cuda_kernels.relu_backward(out, grad)
        else:
            grad_x = grad * (out > 0)
        need_x, need_b = ctx.needs_input_grad
        grad_b = grad_x.reshape(-1, grad_x.shape[-1]).sum(axis=0) if need_b else None
        return (grad_x if need_x else None), grad_b


def bias_relu(x, b):
    """``relu(x + b)`` as one op (one CUDA kernel forward, one backward on a GPU)."""
    return BiasReLU.apply(x, b)


def softmax_cross_entropy(logits, target, reduction="mean"):
    """Cross-entropy of (N, C) ``logits`` and int64 class ``target`` (N,) as one op."""
    return SoftmaxCrossEntropy.apply(logits, target, reduction)
