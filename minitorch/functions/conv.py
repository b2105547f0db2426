"""Convolution over images (N, C, H, W), and the window helpers the pooling ops share.

- ``Conv2d``: im2col, as lesson 09 builds it: every window of the input becomes a row of
  a matrix, and the whole convolution is one matrix product; ``col2im`` for the backward.
- ``windows``/``col2im``/``pool_geometry``: also used by ``maxpool.py`` and ``pooling.py``.

Every op works on ``ctx.xp`` (NumPy or CuPy), so it runs on either device. Faster ways to
compute the same convolution on the CPU (im2col from a channels-last copy, kh*kw shifted
matrix products) are fast kernels in ``minitorch/kernels/cpu/conv.py``; the switch
``SWITCHES.conv_design`` picks between them.
"""

from __future__ import annotations

from typing import Any

from minitorch import backends, factories
from minitorch.autograd.function import BackwardNode, Function
from minitorch.errors import MiniTorchError, MiniTorchValueError, check_int
from minitorch.functions.autocast_policy import to_low_precision
from minitorch.functions.linalg import product
from minitorch.functions.shape import cat, squeeze, unsqueeze
from minitorch.hints import Array, DTypeLike, Gradients, Shape
from minitorch.tensor_base import T, TensorBase


def pair(value: Any, name: str) -> tuple[int, int]:
    """``(value, value)`` for an int, the two ints of a pair, else an error naming ``name``.

    ``name`` is "op: argument" (``"conv2d: stride"``). A float (2.5, or 2.0) is a TypeError,
    never truncated; a tuple of another length is an error, as in PyTorch.
    """
    op, _, arg = name.rpartition(": ")
    if isinstance(value, (tuple, list)):
        if len(value) != 2:
            raise MiniTorchError(f"{name} must be a single int or a pair of ints, got {value!r}")
        return check_int(op, arg, value[0]), check_int(op, arg, value[1])
    v = check_int(op, arg, value)
    return v, v


def _check_positive(op: str, name: str, value: tuple[int, int], allow_zero: bool = False) -> None:
    """An error naming ``op``, the argument and its value unless both numbers are > 0 (>= 0)."""
    low = 0 if allow_zero else 1
    if value[0] < low or value[1] < low:
        needed = "non-negative" if allow_zero else "greater than zero"
        raise MiniTorchError(f"{op}: {name} must be {needed}, got {name}={value}")


def windows(x: Array, kh: int, kw: int, sh: int, sw: int, xp: Any = None) -> Array:
    """Every (kh, kw) window of ``x`` (N, C, H, W), as an array of shape (N, C, Ho, Wo, kh, kw).

    Element [n, c, i, j, a, b] is x[n, c, i*sh + a, j*sw + b]: window (i, j) starts at row
    i*sh, column j*sw. For each offset (a, b) inside a window, the pixels at that offset of
    every window form one strided slice of the whole batch; the kh*kw slices are stacked.
    (Lesson 09 builds the same array as a strided *view*, without copying; that is one of
    the fast kernels in ``minitorch/kernels/cpu/``.)

    ``xp``: the array library (``ctx.xp`` in a backward, so that it also runs on graph values);
    by default ``x``'s own.
    """
    xp = backends.module_of(x) if xp is None else xp
    n, c, h, w = x.shape
    ho, wo = (h - kh) // sh + 1, (w - kw) // sw + 1
    slices = [x[:, :, a : a + sh * ho : sh, b : b + sw * wo : sw] for a in range(kh) for b in range(kw)]
    return xp.stack(slices, axis=-1).reshape(n, c, ho, wo, kh, kw)


def col2im(grad_windows: Array, shape: Shape, sh: int, sw: int, xp: Any = None) -> Array:
    """The adjoint of ``windows``: add each window's gradient back onto the (N, C, H, W) grid.

    ``windows`` copies a pixel into every window that contains it, so the pixel's gradient
    is the sum of those copies' gradients. Offset (a, b) of window (i, j) is pixel
    (a + i*sh, b + j*sw): spread the window gradients out to every sh-th row and sw-th
    column (zeros between), then, for each of the kh*kw offsets, shift that grid down by a
    rows and right by b columns (zero padding) and add it up. ``xp`` as in ``windows``.
    """
    xp = backends.module_of(grad_windows) if xp is None else xp
    n, c, ho, wo, kh, kw = grad_windows.shape
    h, w = shape[2], shape[3]
    spread = _spread(xp, grad_windows, sh, sw)  # (N, C, Ho*sh, Wo*sw, kh, kw)
    total = xp.zeros(shape, dtype=grad_windows.dtype)
    for a in range(kh):
        for b in range(kw):
            piece = spread[:, :, : h - a, : w - b, a, b]  # rows past the grid's edge hold only zeros
            below, right = h - a - piece.shape[2], w - b - piece.shape[3]
            total = total + xp.pad(piece, ((0, 0), (0, 0), (a, below), (b, right)))
    return total


def _spread(xp: Any, g: Array, sh: int, sw: int) -> Array:
    """``g`` (N, C, Ho, Wo, ...) with sh - 1 zero rows after each row and sw - 1 zero columns
    after each column: (N, C, Ho*sh, Wo*sw, ...), g[:, :, i, j] at [:, :, i*sh, j*sw]."""
    if (sh, sw) == (1, 1):  # nothing to spread
        return g
    n, c, ho, wo = g.shape[:4]
    rest = g.shape[4:]
    rows = xp.stack([g] + [xp.zeros_like(g)] * (sh - 1), axis=3).reshape(n, c, ho * sh, wo, *rest)
    return xp.stack([rows] + [xp.zeros_like(rows)] * (sw - 1), axis=4).reshape(n, c, ho * sh, wo * sw, *rest)


def im2col(x: Array, kh: int, kw: int, sh: int, sw: int, xp: Any = None) -> tuple[Array, int, int]:
    """(cols, Ho, Wo): every window of ``x`` (N, C, H, W) as one row of a matrix.

    ``cols`` is (N*Ho*Wo, C*kh*kw): its rows run over (sample, output row, output column),
    its columns over (channel, kernel row, kernel column), the order of a weight's numbers.
    """
    win = windows(x, kh, kw, sh, sw, xp)  # (N, C, Ho, Wo, kh, kw)
    n, c, ho, wo = win.shape[:4]
    return win.transpose(0, 2, 3, 1, 4, 5).reshape(n * ho * wo, c * kh * kw), ho, wo


def accumulator(dtype: DTypeLike) -> DTypeLike:
    """The dtype to add up in: float32 for float16 (whose 11-bit sums drift), as PyTorch does."""
    return "float32" if dtype == "float16" else dtype


def _pad(xp: Any, x: Array, padding: tuple[int, int]) -> Array:
    """``x`` (N, C, H, W) with ``padding`` rows and columns of zeros on each side."""
    ph, pw = padding
    return xp.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))


class Conv2d(Function):
    """2-D cross-correlation (what deep learning calls convolution), by im2col.

    y[n, o, i, j] = bias[o] + sum over c, a, b of w[o, c, a, b] * xpad[n, c, i*sh + a, j*sw + b]
    where xpad is x with ``padding`` zeros around it.

    Forward: every window of the padded input becomes a row of ``cols`` (N*Ho*Wo, C*kh*kw)
    and every filter a row of ``w2`` (O, C*kh*kw), so the whole convolution is one matrix
    product, Y = cols @ w2.T + b, reshaped to (N, O, Ho, Wo).

    Backward, with g the output gradient as a (N*Ho*Wo, O) matrix (rows as cols's):
    grad_b = g summed over its rows, grad_w2 = g.T @ cols, and grad_cols = g @ w2, a
    gradient for every window, which ``col2im`` adds back onto the pixels (each pixel sat in
    several windows). ``cols`` is not saved: backward rebuilds it from the input.

    The fast kernels (``minitorch/kernels/cpu/conv.py``) compute the same in other ways.
    """

    @staticmethod
    def forward(
        ctx: BackwardNode,
        x: Array,
        weight: Array,
        bias: Array | None,
        stride: tuple[int, int],
        padding: tuple[int, int],
    ) -> Array:
        n = x.shape[0]
        o, c, kh, kw = weight.shape
        cols, ho, wo = im2col(_pad(ctx.xp, x, padding), kh, kw, *stride, ctx.xp)
        w2 = weight.reshape(o, c * kh * kw)
        out = product(cols, w2.T)  # (N*Ho*Wo, O): one matrix product
        if bias is not None:
            out = out + bias
        ctx.save_for_backward(x, weight)
        ctx.stride, ctx.padding = stride, padding
        return out.reshape(n, ho, wo, o).transpose(0, 3, 1, 2)  # (N, O, Ho, Wo)

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        x, weight = ctx.saved_tensors
        (sh, sw), (ph, pw) = ctx.stride, ctx.padding
        n, c, h, w = x.shape
        o, _, kh, kw = weight.shape
        need_x, need_w, need_b = ctx.needs_input_grad[:3]
        g = grad.transpose(0, 2, 3, 1).reshape(-1, o)  # (N*Ho*Wo, O): rows as cols's
        grad_x = grad_w = grad_b = None
        if need_b:
            grad_b = g.sum(axis=0, dtype=accumulator(g.dtype)).astype(g.dtype, copy=False)
        if need_w:
            cols, _, _ = im2col(_pad(ctx.xp, x, ctx.padding), kh, kw, sh, sw, ctx.xp)  # rebuilt, not saved
            grad_w = product(g.T, cols).reshape(weight.shape)
        if need_x:
            ho, wo = grad.shape[2:]
            grad_cols = product(g, weight.reshape(o, c * kh * kw))  # (N*Ho*Wo, C*kh*kw)
            grad_windows = grad_cols.reshape(n, ho, wo, c, kh, kw).transpose(0, 3, 1, 2, 4, 5)
            padded_shape = (n, c, h + 2 * ph, w + 2 * pw)
            grad_x = col2im(grad_windows, padded_shape, sh, sw, ctx.xp)[:, :, ph : ph + h, pw : pw + w]
        return grad_x, grad_w, grad_b, None, None


def check_unsupported(op: str, dilation: Any, groups: Any = 1) -> None:
    """A clear error for PyTorch's ``dilation`` and ``groups`` other than 1 (not implemented here)."""
    if pair(dilation, f"{op}: dilation") != (1, 1) or groups != 1:
        raise MiniTorchError(
            f"{op}: dilation={dilation!r}, groups={groups!r}: MiniTorch supports only dilation=1 and groups=1"
        )


def padding_for(op: str, padding: str, stride: tuple[int, int], kernel: tuple[int, int]) -> tuple[int, int]:
    """The padding on each side that PyTorch's ``padding='valid'`` or ``'same'`` means for this kernel.

    'valid' is no padding. 'same' keeps the output the input's size: k - 1 rows in all, for
    stride 1 only (as in PyTorch), (k - 1) // 2 on each side; an even kernel needs one more
    at the bottom (right), which ``same_extra`` gives.
    """
    if padding == "valid":
        return (0, 0)
    if padding != "same":
        raise MiniTorchValueError(f"{op}: invalid padding string {padding!r}, should be one of 'valid', 'same'")
    if stride != (1, 1):
        raise MiniTorchValueError(f"{op}: padding='same' is not supported for strided convolutions (stride={stride})")
    return ((kernel[0] - 1) // 2, (kernel[1] - 1) // 2)


def _pad_bottom_right(x: T, rows: int, cols: int) -> T:
    """``x`` (N, C, H, W) with ``rows`` zero rows below and ``cols`` zero columns to the right."""
    n, c, h, w = x.shape
    if rows:
        x = cat([x, factories.zeros(n, c, rows, w, dtype=x.dtype, device=x.device)], dim=2)
    if cols:
        x = cat([x, factories.zeros(n, c, h + rows, cols, dtype=x.dtype, device=x.device)], dim=3)
    return x


def conv2d(
    input: T,
    weight: T,
    bias: T | None = None,
    stride: int | tuple[int, int] = 1,
    padding: int | tuple[int, int] | str = 0,
    dilation: int | tuple[int, int] = 1,
    groups: int = 1,
) -> T:
    """2-D convolution of ``input`` (N, C, H, W) with ``weight`` (O, C, kh, kw), as PyTorch's.

    ``padding`` is an int, a pair, or PyTorch's strings ``'valid'`` and ``'same'``.
    ``dilation`` and ``groups`` are there for PyTorch's argument order; only 1 is supported.

    An unbatched ``input`` (C, H, W) gives a (O, Ho, Wo) result, as in PyTorch (and ``nn.Conv2d``).
    """
    check_unsupported("conv2d", dilation, groups)
    if isinstance(input, TensorBase) and input.ndim == 3:  # one unbatched image: PyTorch accepts it too
        return squeeze(conv2d(unsqueeze(input, 0), weight, bias, stride, padding), 0)
    input, weight, bias = to_low_precision(input, weight, bias)  # float16 inside autocast
    stride = pair(stride, "conv2d: stride")
    _check_positive("conv2d", "stride", stride)
    if input.ndim != 4 or weight.ndim != 4:
        raise MiniTorchError(
            f"conv2d: expected input (N, C, H, W) or (C, H, W) and weight (O, C, kh, kw), got shapes "
            f"{tuple(input.shape)} and {tuple(weight.shape)}"
        )
    _check_positive("conv2d", "kernel size", (weight.shape[2], weight.shape[3]))
    if weight.shape[0] == 0:
        raise MiniTorchError(f"conv2d: the weight {tuple(weight.shape)} has no output channels (dim 0 must be >= 1)")
    if isinstance(padding, str):
        kernel = (weight.shape[2], weight.shape[3])
        same = padding == "same"
        padding = padding_for("conv2d", padding, stride, kernel)
        if same:  # an even kernel: PyTorch puts the one extra zero row (column) at the bottom (right)
            input = _pad_bottom_right(input, (kernel[0] - 1) % 2, (kernel[1] - 1) % 2)
    padding = pair(padding, "conv2d: padding")
    _check_positive("conv2d", "padding", padding, allow_zero=True)
    if input.shape[1] != weight.shape[1]:
        raise MiniTorchError(
            f"conv2d: input has {input.shape[1]} channels (shape {tuple(input.shape)}) but the weight "
            f"{tuple(weight.shape)} expects {weight.shape[1]}"
        )
    h, w = input.shape[2] + 2 * padding[0], input.shape[3] + 2 * padding[1]
    if h < weight.shape[2] or w < weight.shape[3]:
        raise MiniTorchError(f"conv2d: kernel {tuple(weight.shape[2:])} is larger than the padded input ({h}, {w})")
    if bias is not None and tuple(bias.shape) != (weight.shape[0],):
        raise MiniTorchError(
            f"conv2d: expected bias of shape ({weight.shape[0]},), one per output channel of the "
            f"weight {tuple(weight.shape)}, got {tuple(bias.shape)}"
        )
    if input.data.dtype != weight.data.dtype or (bias is not None and bias.data.dtype != input.data.dtype):
        shown = "" if bias is None else f" and bias dtype {bias.dtype}"
        raise MiniTorchError(f"conv2d: input dtype {input.dtype}, weight dtype {weight.dtype}{shown} must be the same")
    return Conv2d.apply(input, weight, bias, stride, padding)


def pool_geometry(
    op: str, kernel_size: Any, stride: Any, padding: Any
) -> tuple[tuple[int, int], tuple[int, int], tuple[int, int]]:
    """A pooling op's (kernel, stride, padding) as pairs, checked as PyTorch checks them.

    The stride defaults to the kernel size; padding may be at most half the kernel.
    """
    kernel = pair(kernel_size, f"{op}: kernel_size")
    _check_positive(op, "kernel_size", kernel)
    stride = kernel if stride is None or stride in ((), []) else pair(stride, f"{op}: stride")
    _check_positive(op, "stride", stride)
    padding = pair(padding, f"{op}: padding")
    _check_positive(op, "padding", padding, allow_zero=True)
    if padding[0] > kernel[0] // 2 or padding[1] > kernel[1] // 2:
        raise MiniTorchValueError(
            f"{op}: padding {padding} should be at most half of the kernel size {kernel} (as in PyTorch)"
        )
    return kernel, stride, padding
