"""Convolution over images (N, C, H, W), and the window helpers the pooling ops share.

- ``Conv2d``: im2col (a strided *view* of every kernel window, copied into one matrix)
  and one matrix product; col2im for the backward.
- ``ShiftedConv2d`` (stride 1): kh*kw shifted matrix products, no window copy at all.
  ``conv2d`` picks one of the two (``SWITCHES.conv_design``; measured in bench/train_cnn.py).
- ``windows``/``col2im``/``pool_geometry``: also used by ``maxpool.py`` and ``pooling.py``
  (``windows`` copies every window; ``col2im``, its adjoint, adds up without writing in place).

Every op works on ``ctx.xp`` (NumPy or CuPy), so it runs on either device.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from minitorch import backends, factories
from minitorch.autograd.function import BackwardNode, Function
from minitorch.errors import MiniTorchError, MiniTorchValueError, check_int
from minitorch.functions.autocast_policy import to_low_precision
from minitorch.functions.linalg import product
from minitorch.functions.shape import cat
from minitorch.hints import Array, DTypeLike, Gradients, Shape
from minitorch.switches import SWITCHES
from minitorch.tensor_base import TensorBase

if TYPE_CHECKING:  # the face, for annotations only: never imported at run time (no cycle)
    from minitorch.tensor import Tensor


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


def windows(x: Array, kh: int, kw: int, sh: int, sw: int) -> Array:
    """Every (kh, kw) window of ``x`` (N, C, H, W), as an array of shape (N, C, Ho, Wo, kh, kw).

    Element [n, c, i, j, a, b] is x[n, c, i*sh + a, j*sw + b]: window (i, j) starts at row
    i*sh, column j*sw. For each offset (a, b) inside a window, the pixels at that offset of
    every window form one strided slice of the whole batch; the kh*kw slices are stacked.
    (Lesson 09 builds the same array as a strided *view*, without copying; that is one of
    the fast kernels in ``minitorch/kernels/cpu/``.)
    """
    xp = backends.module_of(x)
    n, c, h, w = x.shape
    ho, wo = (h - kh) // sh + 1, (w - kw) // sw + 1
    slices = [x[:, :, a : a + sh * ho : sh, b : b + sw * wo : sw] for a in range(kh) for b in range(kw)]
    return xp.stack(slices, axis=-1).reshape(n, c, ho, wo, kh, kw)


def col2im(grad_windows: Array, shape: Shape, sh: int, sw: int) -> Array:
    """The adjoint of ``windows``: add each window's gradient back onto the (N, C, H, W) grid.

    ``windows`` copies a pixel into every window that contains it, so the pixel's gradient
    is the sum of those copies' gradients. Offset (a, b) of window (i, j) is pixel
    (a + i*sh, b + j*sw): spread the window gradients out to every sh-th row and sw-th
    column (zeros between), then, for each of the kh*kw offsets, shift that grid down by a
    rows and right by b columns (zero padding) and add it up.
    """
    xp = backends.module_of(grad_windows)
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


def accumulator(dtype: DTypeLike) -> DTypeLike:
    """The dtype to add up in: float32 for float16 (whose 11-bit sums drift), as PyTorch does."""
    return "float32" if dtype == "float16" else dtype


def windows_last(x: Array, kh: int, kw: int, sh: int, sw: int) -> Array:
    """Like ``windows`` for a channels-last array (N, H, W, C): a (N, Ho, Wo, kh, kw, C) view.

    With channels last, one window row (kw pixels x C channels) is contiguous in memory, so
    copying the windows into a matrix moves long runs instead of 3 numbers at a time.
    """
    n, h, w, c = x.shape
    ho, wo = (h - kh) // sh + 1, (w - kw) // sw + 1
    s_n, s_h, s_w, s_c = x.strides
    as_strided = backends.module_of(x).lib.stride_tricks.as_strided
    return as_strided(x, (n, ho, wo, kh, kw, c), (s_n, s_h * sh, s_w * sw, s_h, s_w, s_c))


def _use_shifted(stride: tuple[int, int], x_shape: Shape, kernel: tuple[int, int], padding: tuple[int, int]) -> bool:
    """Take the shifted design? Only for stride 1; "auto" follows the measurements in docs/benchmarks.md.

    The shifted design computes on the whole padded grid (Hp x Wp) and drops the rest, and
    its products have only C columns. It wins (0.6-0.8x the time of im2col for 16x16 and
    32x32 images, 16-64 channels) when that grid wastes little and C is not tiny; it loses
    on the digits CNN's 8x8 and 4x4 images (1.5-3.6x), where im2col's copy is small anyway.
    """
    design = SWITCHES.conv_design  # "auto", "im2col" or "shifted"
    if stride != (1, 1) or design == "im2col":
        return False
    if design == "shifted":
        return True
    _, c, h, w = x_shape
    hp, wp = h + 2 * padding[0], w + 2 * padding[1]
    ho, wo = hp - kernel[0] + 1, wp - kernel[1] + 1
    return c >= 8 and hp * wp <= 1.3 * ho * wo


def _frame_rows(x: Array, ph: int, pw: int, kh: int, kw: int) -> Array:
    """``x`` (N, C, H, W) copied channels-last into a zero-padded frame, as one row per pixel.

    Shape (N*Hp*Wp + extra, C): row n*Hp*Wp + i*Wp + j is padded pixel (i, j) of sample n.
    The ``extra`` zero rows at the end let every shifted slice below have the same length.
    """
    n, c, h, w = x.shape
    hp, wp = h + 2 * ph, w + 2 * pw
    rows = backends.module_of(x).zeros((n * hp * wp + (kh - 1) * wp + kw - 1, c), dtype=x.dtype)
    rows[: n * hp * wp].reshape(n, hp, wp, c)[:, ph : ph + h, pw : pw + w, :] = x.transpose(0, 2, 3, 1)
    return rows


class ShiftedConv2d(Function):
    """2-D convolution with stride 1 as kh*kw shifted matrix products: no im2col copy.

    Lay the padded image out as rows (one per pixel, C columns). Output pixel (i, j) needs
    input pixel (i + a, j + b) for each kernel offset (a, b), which is the row ``a*Wp + b``
    further on. So for each offset: one matrix product of the rows shifted by that much
    with the (C, O) slice of the weight, added into the output. The output is computed on
    the whole padded grid (Hp x Wp); the rows past the valid (Ho x Wo) corner mix pixels of
    the next row or sample and are dropped. Backward uses the same shifted slices: the
    gradient of each offset's slice is a product too, added at the same shift (no col2im
    scatter), and each offset's weight gradient is (shifted rows).T @ grad.
    """

    @staticmethod
    def forward(ctx: BackwardNode, x: Array, weight: Array, bias: Array | None, padding: tuple[int, int]) -> Array:
        xp = ctx.xp
        (ph, pw), (n, c, h, w), (o, _, kh, kw) = padding, x.shape, weight.shape
        hp, wp = h + 2 * ph, w + 2 * pw
        ho, wo, count = hp - kh + 1, wp - kw + 1, n * hp * wp
        rows = _frame_rows(x, ph, pw, kh, kw)
        w_ab = xp.ascontiguousarray(weight.transpose(2, 3, 1, 0))  # (kh, kw, C, O): one (C, O) per offset
        full = product(rows[:count], w_ab[0, 0])
        for a in range(kh):
            for b in range(kw):
                if a or b:
                    shift = a * wp + b
                    full += product(rows[shift : shift + count], w_ab[a, b])
        out = full.reshape(n, hp, wp, o)[:, :ho, :wo, :]  # drop the rows past the valid corner
        out = out + bias if bias is not None else xp.ascontiguousarray(out)
        ctx.save_for_backward(rows, w_ab)
        ctx.meta = (n, c, h, w, ph, pw, ho, wo)
        return out.transpose(0, 3, 1, 2)  # an NCHW view

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        rows, w_ab = ctx.saved_tensors
        n, c, h, w, ph, pw, ho, wo = ctx.meta
        kh, kw, _, o = w_ab.shape
        xp = ctx.xp
        hp, wp = h + 2 * ph, w + 2 * pw
        count = n * hp * wp
        need_x, need_w, need_b = ctx.needs_input_grad[:3]
        g = xp.zeros((count, o), dtype=grad.dtype)  # the gradient on the whole grid: 0 where dropped
        g.reshape(n, hp, wp, o)[:, :ho, :wo, :] = grad.transpose(0, 2, 3, 1)
        grad_x = grad_w = grad_b = None
        if need_w:
            gw = xp.empty(w_ab.shape, dtype=grad.dtype)
            for a in range(kh):
                for b in range(kw):
                    shift = a * wp + b
                    gw[a, b] = product(rows[shift : shift + count].T, g)
            grad_w = xp.ascontiguousarray(gw.transpose(3, 2, 0, 1))
        if need_b:
            grad_b = grad.sum(axis=(0, 2, 3))
        if need_x:
            grad_rows = xp.zeros(rows.shape, dtype=grad.dtype)
            for a in range(kh):
                for b in range(kw):
                    shift = a * wp + b
                    grad_rows[shift : shift + count] += product(g, w_ab[a, b].T)
            framed = grad_rows[:count].reshape(n, hp, wp, c)[:, ph : ph + h, pw : pw + w, :]
            grad_x = xp.ascontiguousarray(framed.transpose(0, 3, 1, 2))
        return grad_x, grad_w, grad_b, None


def _rows_as_windows(cols: Array, n: int, ho: int, wo: int, kh: int, kw: int, c: int) -> Array:
    """The first kh*kw*C columns of ``cols`` (one row per output pixel) as a writable
    (N, Ho, Wo, kh, kw, C) view, the shape of ``windows_last``: copying the windows into it is im2col."""
    s_row, s_col = cols.strides
    as_strided = backends.module_of(cols).lib.stride_tricks.as_strided
    strides = (ho * wo * s_row, wo * s_row, s_row, kw * c * s_col, c * s_col, s_col)
    return as_strided(cols, (n, ho, wo, kh, kw, c), strides)


class Conv2d(Function):
    """2-D cross-correlation (what deep learning calls convolution), by im2col.

    Forward: copy the input channels-last into a zero-padded frame, take the strided view
    of all windows, copy it into a matrix ``cols`` with one row per output pixel
    (N*Ho*Wo, kh*kw*C), and multiply by the weight reshaped to (O, kh*kw*C): the whole
    convolution is one matrix product. The bias is the weight of one more column of ones
    in ``cols``, so the product adds it too. Backward: grad_W = g.T @ cols (its last column
    is the bias gradient, the sum of g over the pixels), and for the input one product per
    kernel offset (g @ that offset's (O, C) weight, a contiguous slab) added back onto the
    image at that offset (col2im).
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
        xp = ctx.xp
        (sh, sw), (ph, pw) = stride, padding
        n, c, h, w = x.shape
        o, _, kh, kw = weight.shape
        framed = xp.zeros((n, h + 2 * ph, w + 2 * pw, c), dtype=x.dtype)  # channels last, padded
        framed[:, ph : ph + h, pw : pw + w, :] = x.transpose(0, 2, 3, 1)
        win = windows_last(framed, kh, kw, sh, sw)  # (N, Ho, Wo, kh, kw, C), a view
        ho, wo, k = win.shape[1], win.shape[2], kh * kw * c
        cols = xp.empty((n * ho * wo, k + (bias is not None)), dtype=x.dtype)
        _rows_as_windows(cols, n, ho, wo, kh, kw, c)[...] = win  # the im2col copy
        w2 = weight.transpose(0, 2, 3, 1).reshape(o, k)  # rows in (kh, kw, C) order too
        if bias is not None:
            cols[:, k] = 1
            out = product(cols, xp.concatenate([w2, bias[:, None]], axis=1).T)  # (N*Ho*Wo, O)
        else:
            out = product(cols, w2.T)
        ctx.save_for_backward(cols, w2)
        ctx.meta = (framed.shape, n, c, h, w, ho, wo, kh, kw, sh, sw, ph, pw, o)
        return out.reshape(n, ho, wo, o).transpose(0, 3, 1, 2)  # NCHW view of the result

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        cols, w2 = ctx.saved_tensors
        framed_shape, n, c, h, w, ho, wo, kh, kw, sh, sw, ph, pw, o = ctx.meta
        xp = ctx.xp
        need_x, need_w, need_b = ctx.needs_input_grad[:3]
        g2 = grad.transpose(0, 2, 3, 1).reshape(n * ho * wo, o)  # no copy for a channels-last grad
        k = kh * kw * c
        grad_x = grad_w = grad_b = None
        if need_w or need_b:
            full = product(g2.T, cols)  # (O, kh*kw*C [+ 1 for the bias's column of ones])
            if need_w:
                grad_w = xp.ascontiguousarray(full[:, :k].reshape(o, kh, kw, c).transpose(0, 3, 1, 2))
            if need_b:
                grad_b = full[:, k].copy()
        if need_x:
            # (kh*kw, N*Ho*Wo, C): slab j is g @ offset j's (O, C) weight, contiguous
            slabs = product(g2, w2.reshape(o, kh * kw, c).transpose(1, 0, 2))
            framed = xp.zeros(framed_shape, dtype=grad.dtype)
            for j in range(kh * kw):  # col2im: each kernel offset (a, b) adds one slab; 9 for 3x3
                a, b = divmod(j, kw)
                framed[:, a : a + sh * ho : sh, b : b + sw * wo : sw, :] += slabs[j].reshape(n, ho, wo, c)
            # an NCHW view of the channels-last frame, laid out as the forward's input usually is
            # (a pool's output after a conv): the ops before it then walk memory in order
            grad_x = framed[:, ph : ph + h, pw : pw + w, :].transpose(0, 3, 1, 2)
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


def _pad_bottom_right(x: TensorBase, rows: int, cols: int) -> Tensor:
    """``x`` (N, C, H, W) with ``rows`` zero rows below and ``cols`` zero columns to the right."""
    n, c, h, w = x.shape
    if rows:
        x = cat([x, factories.zeros(n, c, rows, w, dtype=x.dtype, device=x.device)], dim=2)
    if cols:
        x = cat([x, factories.zeros(n, c, h + rows, cols, dtype=x.dtype, device=x.device)], dim=3)
    return x


def conv2d(
    input: TensorBase,
    weight: TensorBase,
    bias: TensorBase | None = None,
    stride: int | tuple[int, int] = 1,
    padding: int | tuple[int, int] | str = 0,
    dilation: int | tuple[int, int] = 1,
    groups: int = 1,
) -> Tensor:
    """2-D convolution of ``input`` (N, C, H, W) with ``weight`` (O, C, kh, kw), as PyTorch's.

    ``padding`` is an int, a pair, or PyTorch's strings ``'valid'`` and ``'same'``.
    ``dilation`` and ``groups`` are there for PyTorch's argument order; only 1 is supported.

    An unbatched ``input`` (C, H, W) gives a (O, Ho, Wo) result, as in PyTorch (and ``nn.Conv2d``).
    """
    check_unsupported("conv2d", dilation, groups)
    if isinstance(input, TensorBase) and input.ndim == 3:  # one unbatched image: PyTorch accepts it too
        return conv2d(input.unsqueeze(0), weight, bias, stride, padding).squeeze(0)
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
    if _use_shifted(stride, tuple(input.shape), (weight.shape[2], weight.shape[3]), padding):
        return ShiftedConv2d.apply(input, weight, bias, padding)
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
