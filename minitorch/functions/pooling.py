"""Average pooling over images (N, C, H, W) or one unbatched image (C, H, W).

- ``AvgPool2d``: the mean of each (kh, kw) window, zero padding counted in the divisor
  (PyTorch's default ``count_include_pad=True``). Forward sums every window (``windows``);
  backward spreads each output's gradient evenly over its window (``col2im``). A faster
  CPU kernel sums a strided view instead (``minitorch/kernels/cpu/pooling.py``).
- ``AdaptiveAvgPool2d``: the output size is given and the windows follow from it. Output row
  i averages input rows [floor(i*H/oh), ceil((i+1)*H/oh)), so windows may overlap and differ
  in size by one. Averaging rows is a matrix product with a (oh, H) matrix whose row i holds
  1/size over window i (and the same for columns), so out = P_h @ x @ P_w^T for every image at
  once, and the backward is the transposed products P_h^T @ g @ P_w.
"""

from __future__ import annotations

from typing import Any

from minitorch.autograd.function import BackwardNode, Function
from minitorch.errors import MiniTorchError, MiniTorchValueError, check_int
from minitorch.functions.conv import accumulator, col2im, pool_geometry, windows
from minitorch.functions.shape import squeeze, unsqueeze
from minitorch.hints import Array, Gradients
from minitorch.tensor_base import T, TensorBase


class AvgPool2d(Function):
    """The mean of each (kh, kw) window (padding zeros included).   d/dx: grad / (kh*kw) to each
    pixel of the window, summed where windows overlap."""

    @staticmethod
    def forward(
        ctx: BackwardNode, x: Array, kernel: tuple[int, int], stride: tuple[int, int], padding: tuple[int, int]
    ) -> Array:
        (kh, kw), (sh, sw), (ph, pw) = kernel, stride, padding
        padded = ctx.xp.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))  # zeros, counted in the mean
        ctx.padded_shape, ctx.kernel_size, ctx.stride, ctx.padding = padded.shape, kernel, stride, padding
        total = windows(padded, kh, kw, sh, sw).sum(axis=(4, 5), dtype=accumulator(x.dtype))
        if x.dtype.kind in "iu":  # PyTorch divides integers rounding toward zero
            return ctx.xp.sign(total) * (ctx.xp.abs(total) // (kh * kw))
        return (total / (kh * kw)).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        shape, (kh, kw), (sh, sw), (ph, pw) = ctx.padded_shape, ctx.kernel_size, ctx.stride, ctx.padding
        n, c, ho, wo = grad.shape
        # Every pixel of a window gets an equal share of the window's gradient.
        share = ctx.xp.broadcast_to((grad / (kh * kw))[..., None, None], (n, c, ho, wo, kh, kw))
        out = col2im(share, shape, sh, sw, ctx.xp)
        return out[:, :, ph : shape[2] - ph, pw : shape[3] - pw], None, None, None


def avg_pool2d(
    input: T,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
) -> T:
    """Mean over each window of ``input`` (N, C, H, W) or (C, H, W); ``stride`` defaults to the kernel.

    ``padding`` adds zeros, counted in every window's divisor (at most half the kernel, as
    PyTorch requires). PyTorch's ``ceil_mode``, ``count_include_pad`` and ``divisor_override``
    work at their defaults only.
    """
    if ceil_mode or not count_include_pad or divisor_override is not None:
        raise MiniTorchError(
            f"avg_pool2d: ceil_mode={ceil_mode!r}, count_include_pad={count_include_pad!r}, "
            f"divisor_override={divisor_override!r}: MiniTorch supports only ceil_mode=False, "
            "count_include_pad=True and divisor_override=None"
        )
    _check_image("avg_pool2d", input)
    if input.ndim == 3:  # one unbatched image, as PyTorch accepts
        return squeeze(avg_pool2d(unsqueeze(input, 0), kernel_size, stride, padding), 0)
    kernel, stride, padding = pool_geometry("avg_pool2d", kernel_size, stride, padding)
    h, w = input.shape[2] + 2 * padding[0], input.shape[3] + 2 * padding[1]
    if h < kernel[0] or w < kernel[1]:
        raise MiniTorchError(
            f"avg_pool2d: kernel {kernel} is larger than the (padded) input {(h, w)} of shape {tuple(input.shape)}"
        )
    return AvgPool2d.apply(input, kernel, stride, padding)


def _check_image(op: str, input: Any) -> None:
    """A float or integer (not bool) tensor of shape (N, C, H, W) or (C, H, W) with C, H, W > 0."""
    if not isinstance(input, TensorBase):
        raise TypeError(f"{op}(): argument 'input' must be Tensor, not {type(input).__name__}")
    if input.ndim not in (3, 4) or 0 in input.shape[-3:]:
        raise MiniTorchError(
            f"{op}: expected input (N, C, H, W) or (C, H, W) with non-zero C, H and W, got shape {tuple(input.shape)}"
        )
    if input.data.dtype.kind == "b":
        raise NotImplementedError(f"{op}: not implemented for bool tensors (shape {tuple(input.shape)})")


def averaging_matrix(xp: Any, size: int, out: int, dtype: Any) -> Array:
    """The (out, size) matrix whose row i is 1/len over PyTorch's window i,
    [floor(i*size/out), ceil((i+1)*size/out))."""
    i = xp.arange(out)
    start = (i * size) // out
    end = -((-(i + 1) * size) // out)  # ceil of a division, in integers
    pos = xp.arange(size)
    inside = (pos >= start[:, None]) & (pos < end[:, None])
    return (inside / (end - start)[:, None]).astype(dtype)


class AdaptiveAvgPool2d(Function):
    """out = P_h @ x @ P_w^T (see ``averaging_matrix``).   d/dx = P_h^T @ grad @ P_w.

    The two small matrices are rebuilt in backward from the shapes rather than saved: a
    saved value that is neither an input nor the output could not be told apart from one
    that depends on the input when the backward is differentiated again.
    """

    @staticmethod
    def forward(ctx: BackwardNode, x: Array, output_size: tuple[int, int]) -> Array:
        xp = ctx.xp
        ctx.in_size = x.shape[2:]
        rows, cols = averaging_matrices(xp, x.shape[2:], output_size, accumulator(x.dtype))
        return xp.matmul(xp.matmul(rows, x.astype(rows.dtype, copy=False)), cols.T).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        xp = ctx.xp
        rows, cols = averaging_matrices(xp, ctx.in_size, grad.shape[2:], accumulator(grad.dtype))
        out = xp.matmul(xp.matmul(rows.T, grad.astype(rows.dtype, copy=False)), cols)
        return out.astype(grad.dtype, copy=False), None


def averaging_matrices(xp: Any, in_size: Any, out_size: Any, dtype: Any) -> tuple[Array, Array]:
    """P_h (oh, H) and P_w (ow, W) for images of ``in_size`` (H, W) pooled to ``out_size`` (oh, ow)."""
    (h, w), (oh, ow) = in_size, out_size
    return averaging_matrix(xp, h, oh, dtype), averaging_matrix(xp, w, ow, dtype)


def adaptive_avg_pool2d(input: T, output_size: Any) -> T:
    """Average ``input`` (N, C, H, W) or (C, H, W) down (or up) to ``output_size`` (an int or a
    pair; None in the pair keeps that input size). Windows as PyTorch's: see ``AdaptiveAvgPool2d``."""
    sizes = (output_size, output_size) if not isinstance(output_size, (tuple, list)) else tuple(output_size)
    if len(sizes) != 2:
        raise MiniTorchError(f"adaptive_avg_pool2d: output_size must be an int or a pair, got {output_size!r}")
    _check_image("adaptive_avg_pool2d", input)
    if input.data.dtype.kind != "f":
        raise NotImplementedError(
            f"adaptive_avg_pool2d: not implemented for {input.dtype} tensors (shape {tuple(input.shape)}); "
            "convert with .float()"
        )
    target = tuple(
        input.shape[-2 + k] if s is None else check_int("adaptive_avg_pool2d", "output_size", s)
        for k, s in enumerate(sizes)
    )
    if min(target) < 0:
        raise MiniTorchValueError(f"adaptive_avg_pool2d: output_size must be >= 0, got {output_size!r}")
    if input.ndim == 3:
        return squeeze(AdaptiveAvgPool2d.apply(unsqueeze(input, 0), target), 0)
    return AdaptiveAvgPool2d.apply(input, target)
