"""Max-pooling over images (N, C, H, W): the maximum of each window, the gradient to its winner.

``MaxPool2d`` takes every window (``windows``), keeps its maximum, and remembers which
element won as a one-hot mask over the window; backward routes each output's gradient to
that element (``col2im`` adds it back onto the image, summing where windows overlap).
PyTorch's rules decide the winner: on a tie the first maximum (common after a ReLU's
zeros), a NaN propagates and the last NaN of the window wins, and with padding (a border
of -inf) a real pixel always beats the border.

Faster CPU kernels (windows that tile the image, the offset walk) are in
``minitorch/kernels/cpu/pooling.py``. Every op works on ``ctx.xp`` (NumPy or CuPy).
"""

from __future__ import annotations

from typing import Any

from minitorch.autograd.function import BackwardNode, Function
from minitorch.errors import MiniTorchError
from minitorch.functions.conv import check_unsupported, col2im, pool_geometry, windows
from minitorch.functions.shape import squeeze, unsqueeze
from minitorch.hints import Array, Gradients
from minitorch.tensor_base import T, TensorBase


def winner_mask(xp: Any, flat: Array, best: Array, real: Array) -> Array:
    """Which element of each window wins, as a one-hot mask over the window (PyTorch's rules).

    ``flat`` (N, C, Ho, Wo, k) holds the windows, ``best`` (N, C, Ho, Wo) their maxima,
    ``real`` (1, 1, Ho, Wo, k) says which elements are the input's own pixels (not padding).
    The winner is the first real element equal to the maximum; when the maximum is NaN, the
    last NaN (PyTorch's kernel takes a NaN whenever it meets one).
    """
    k = flat.shape[-1]
    is_nan = flat != flat
    first_max = xp.argmax((flat == best[..., None]) & real, axis=-1)  # argmax of booleans: the first True
    last_nan = k - 1 - xp.argmax(is_nan[..., ::-1], axis=-1)
    winner = xp.where(is_nan.any(axis=-1), last_nan, first_max)  # (N, C, Ho, Wo): an index into the window
    return winner[..., None] == xp.arange(k)


class MaxPool2d(Function):
    """The maximum of each (kh, kw) window.   d/dx: the window's gradient to its winner, 0 elsewhere.

    ``padding`` (float inputs only) puts a border of -inf around the image: it never wins
    over a real pixel, even one that is -inf itself.
    """

    @staticmethod
    def forward(
        ctx: BackwardNode, x: Array, kernel: tuple[int, int], stride: tuple[int, int], padding: tuple[int, int] = (0, 0)
    ) -> Array:
        xp = ctx.xp
        (kh, kw), (sh, sw), (ph, pw) = kernel, stride, padding
        real = xp.ones((1, 1, *x.shape[2:]), dtype=bool)  # True on the input's own pixels
        if padding != (0, 0):  # a border of -inf (only float tensors have it), never a real pixel
            x = xp.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)), constant_values=-xp.inf)
            real = xp.pad(real, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
        win = windows(x, kh, kw, sh, sw)  # (N, C, Ho, Wo, kh, kw)
        flat = win.reshape(*win.shape[:4], kh * kw)  # one row per window
        best = flat.max(axis=-1)  # a NaN propagates
        is_real = windows(real, kh, kw, sh, sw).reshape(1, 1, *win.shape[2:4], kh * kw)
        ctx.save_for_backward(winner_mask(xp, flat, best, is_real))  # (N, C, Ho, Wo, kh*kw) one-hot
        ctx.padded_shape, ctx.kernel_size, ctx.stride, ctx.padding = x.shape, kernel, stride, padding
        return best

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        (winner,) = ctx.saved_tensors
        shape, (kh, kw), (sh, sw), (ph, pw) = ctx.padded_shape, ctx.kernel_size, ctx.stride, ctx.padding
        # where, not a product: 0 * an infinite gradient would put NaN on the losers
        grad_flat = ctx.xp.where(winner, grad[..., None], grad.dtype.type(0))  # (N, C, Ho, Wo, kh*kw)
        grad_x = col2im(grad_flat.reshape(*grad.shape, kh, kw), shape, sh, sw, ctx.xp)
        nones = (None,) * (len(ctx.next_nodes) - 1)  # for the kernel, stride (and padding)
        return (grad_x[:, :, ph : shape[2] - ph, pw : shape[3] - pw], *nones)


def max_pool2d(
    input: T,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> T:
    """Maximum over each window of ``input`` (N, C, H, W), or of one unbatched ``input`` (C, H, W) as in
    PyTorch; ``stride`` defaults to the kernel size (also when given as None or an empty tuple).
    ``padding`` adds a border of -inf (at most half the kernel, as PyTorch requires).
    PyTorch's ``dilation``, ``ceil_mode`` and ``return_indices`` work at their defaults only."""
    check_unsupported("max_pool2d", dilation)
    if ceil_mode or return_indices:
        raise MiniTorchError(
            f"max_pool2d: ceil_mode={ceil_mode!r}, return_indices={return_indices!r}: "
            "MiniTorch supports only ceil_mode=False and return_indices=False"
        )
    if isinstance(input, TensorBase) and input.ndim == 3:  # one unbatched image: PyTorch accepts it too
        return squeeze(max_pool2d(unsqueeze(input, 0), kernel_size, stride, padding), 0)
    kernel, stride, padding = pool_geometry("max_pool2d", kernel_size, stride, padding)
    if input.ndim != 4 or 0 in input.shape[1:]:
        raise MiniTorchError(
            "max_pool2d: expected input (N, C, H, W) or (C, H, W) with non-zero C, H and W, got shape "
            f"{tuple(input.shape)}"
        )
    if input.data.dtype.kind != "f" and padding != (0, 0):
        raise MiniTorchError(
            f"max_pool2d: padding needs a floating-point input (the border is -inf), got {input.dtype}"
        )
    h, w = input.shape[2] + 2 * padding[0], input.shape[3] + 2 * padding[1]
    if h < kernel[0] or w < kernel[1]:
        raise MiniTorchError(f"max_pool2d: kernel {kernel} is larger than the (padded) input {(h, w)}")
    if padding == (0, 0):
        return MaxPool2d.apply(input, kernel, stride)  # as the lessons' graphs show it
    return MaxPool2d.apply(input, kernel, stride, padding)
