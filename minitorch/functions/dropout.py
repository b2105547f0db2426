"""Dropout: zero random elements while training, and scale the rest to keep the mean."""

from __future__ import annotations

from minitorch import backends
from minitorch.autograd.function import BackwardNode, Function
from minitorch.errors import MiniTorchValueError
from minitorch.functions.arithmetic import mul
from minitorch.hints import Array, Gradients
from minitorch.random import default_generator
from minitorch.random import transforms as random_transforms
from minitorch.tensor_base import T


class Dropout(Function):
    """Zero each element with probability p and scale the rest by 1/(1-p).

    The op draws its own random numbers (as PyTorch's kernel does), so running its forward
    again -- a replay of ``minitorch.compile`` -- draws fresh ones. The boolean mask and
    the scale are saved (as PyTorch's ``native_dropout``): backward multiplies the gradient
    by the same mask. A mask carries no gradient, so the backward is itself differentiable.
    """

    @staticmethod
    def forward(ctx: BackwardNode, x: Array, p: float) -> Array:
        keep = _keep_mask(x, p)
        scale = x.dtype.type(1) / x.dtype.type(1 - p)  # 1 / (1 - p) in x's dtype, as PyTorch's
        ctx.save_for_backward(keep)
        ctx.scale = scale
        return x * (keep.astype(x.dtype) * scale)

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        (keep,) = ctx.saved_tensors
        return grad * keep * ctx.scale, None


def _keep_mask(x: Array, p: float) -> Array:
    """True where an element of the array ``x`` survives (probability 1 - p), on its device.

    On the host as PyTorch's CPU dropout: ``bernoulli_(1 - p)`` drawn in ``x``'s memory
    order, so a seed gives PyTorch's masks. A device draws with its own generator.
    """
    backend = backends.of(x)
    if not backend.is_host:
        return backend.uniform(x.shape, x.dtype) >= p
    keep = random_transforms.bernoulli_scalar(default_generator(), x.size, 1 - p)
    return random_transforms.in_memory_order(keep, x)


def dropout(input: T, p: float = 0.5, training: bool = True, inplace: bool = False) -> T:
    """During training, zero elements with probability ``p`` and scale the rest by 1/(1-p).

    ``inplace`` is accepted for PyTorch's signature, but MiniTorch always returns a new
    tensor (the same values; ``input`` itself is left unchanged): use the result, ``x = dropout(x)``.
    """
    if not 0 <= p <= 1:
        raise MiniTorchValueError(f"dropout: probability p must be between 0 and 1, got {p}")
    if not training or p == 0:
        return input
    if p == 1:
        return mul(input, 0)  # zeros of the input's dtype (NaN stays NaN, as in PyTorch)
    if input.data.dtype.kind != "f":  # as PyTorch: the kept values scaled by 1/(1-p) are not integers
        raise MiniTorchValueError(f"dropout: expected a floating-point input, got {input.dtype} (p={p})")
    return Dropout.apply(input, p)
