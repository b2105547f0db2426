"""Two faster ways to compute ``Conv2d`` on the CPU: im2col from a channels-last copy, and shifted products.

The op (``functions/conv.py``) builds ``cols`` by stacking kh*kw slices of the NCHW input,
multiplies once, and in backward rebuilds ``cols`` and adds the window gradients back with
out-of-place sums. Both kernels here keep what the op saves (the input and the weight) and
compute the same numbers with less memory traffic:

- ``conv2d_channels_last`` (any stride): copies the input once into a zero-padded
  channels-last frame, where one window row (kw pixels x C channels) is contiguous, and
  copies the strided view of all windows straight into ``cols``: long contiguous runs
  instead of kw numbers at a time. The bias is the weight of one more column of ones in
  ``cols``, so the one product adds it too and backward's one product gives its gradient.
  ``cols`` is kept for backward (not rebuilt), the input gradient is one product per
  kernel offset (a contiguous slab), added in place into a channels-last frame.
- ``conv2d_shifted`` (stride 1): no window copy at all. The padded image is laid out as
  rows (one per pixel, C columns); output pixel (i, j) needs input pixel (i + a, j + b) for
  kernel offset (a, b), which is the row ``a*Wp + b`` further on. So each offset is one
  (N*Hp*Wp, C) x (C, O) product of the rows shifted by that much, added into the output;
  backward uses the same shifted slices (no scatter). Its costs: it computes on the whole
  padded grid (Hp x Wp) and drops the border, and its products are only C wide.

Which one runs is ``SWITCHES.conv_design``: "im2col" or "shifted" force one ("shifted" is
stride 1 only), and "auto" takes the shifted design where it measured faster (at least 8
channels, a padded grid at most 1.3x the output: docs/benchmarks.md and lesson 09 give the
figures), the channels-last im2col otherwise. With the fast kernels off, every design runs
the op as written.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitorch.autograd.function import BackwardNode
from minitorch.functions.conv import Conv2d
from minitorch.functions.linalg import product
from minitorch.hints import Array, Gradients
from minitorch.kernels.cpu.windows import window_view_last
from minitorch.kernels.registry import register
from minitorch.switches import SWITCHES


def _float_numpy(x: Any, weight: Any) -> bool:
    return type(x) is np.ndarray and type(weight) is np.ndarray and x.dtype.kind == "f"


def shifted_applies(x: Any, weight: Any, bias: Any, stride: tuple[int, int], padding: tuple[int, int]) -> bool:
    """Stride 1, and ``SWITCHES.conv_design`` is "shifted", or "auto" where the shifted design wins.

    It wins when the padded grid wastes little and C is not tiny (16x16 and 32x32 images
    with 16-64 channels); it loses on the digits CNN's 8x8 and 4x4 images, where im2col's
    copy is small anyway (whole training steps, bench/train_cnn.py --designs; figures in
    docs/benchmarks.md).
    """
    design = SWITCHES.conv_design  # "auto", "im2col" or "shifted"
    if stride != (1, 1) or design == "im2col" or not _float_numpy(x, weight):
        return False
    if design == "shifted":
        return True
    (_, c, h, w), (_, _, kh, kw), (ph, pw) = x.shape, weight.shape, padding
    hp, wp = h + 2 * ph, w + 2 * pw
    return c >= 8 and hp * wp <= 1.3 * (hp - kh + 1) * (wp - kw + 1)


def channels_last_applies(x: Any, weight: Any, bias: Any, stride: tuple[int, int], padding: tuple[int, int]) -> bool:
    """Any stride and design, for float NumPy arrays (what the shifted kernel leaves)."""
    return _float_numpy(x, weight)


def _rows_as_windows(cols: Array, n: int, ho: int, wo: int, kh: int, kw: int, c: int) -> Array:
    """The first kh*kw*C columns of ``cols`` (one row per output pixel) as a writable
    (N, Ho, Wo, kh, kw, C) view, the shape of ``window_view_last``: copying the windows into it is im2col."""
    s_row, s_col = cols.strides
    strides = (ho * wo * s_row, wo * s_row, s_row, kw * c * s_col, c * s_col, s_col)
    return np.lib.stride_tricks.as_strided(cols, (n, ho, wo, kh, kw, c), strides)


def conv2d_channels_last(
    ctx: BackwardNode, x: Array, weight: Array, bias: Array | None, stride: tuple[int, int], padding: tuple[int, int]
) -> Array:
    """``Conv2d.forward`` by im2col from a channels-last frame, the bias as a column of ones."""
    (sh, sw), (ph, pw) = stride, padding
    n, c, h, w = x.shape
    o, _, kh, kw = weight.shape
    framed = np.zeros((n, h + 2 * ph, w + 2 * pw, c), dtype=x.dtype)  # channels last, padded
    framed[:, ph : ph + h, pw : pw + w, :] = x.transpose(0, 2, 3, 1)
    win = window_view_last(framed, kh, kw, sh, sw)  # (N, Ho, Wo, kh, kw, C), a view
    ho, wo, k = win.shape[1], win.shape[2], kh * kw * c
    cols = np.empty((n * ho * wo, k + (bias is not None)), dtype=x.dtype)
    _rows_as_windows(cols, n, ho, wo, kh, kw, c)[...] = win  # the im2col copy
    w2 = weight.transpose(0, 2, 3, 1).reshape(o, k)  # rows in (kh, kw, C) order too
    if bias is not None:
        cols[:, k] = 1
        out = product(cols, np.concatenate([w2, bias[:, None]], axis=1).T)  # (N*Ho*Wo, O)
    else:
        out = product(cols, w2.T)
    ctx.save_for_backward(x, weight)  # as the op
    ctx.stride, ctx.padding = stride, padding
    ctx.save_for_kernel(cols, w2)
    ctx.framed_shape = framed.shape
    return out.reshape(n, ho, wo, o).transpose(0, 3, 1, 2)  # NCHW view of the result


def conv2d_channels_last_backward(ctx: BackwardNode, grad: Array) -> Gradients:
    """``Conv2d.backward`` from the kept ``cols``: one product for the weight and bias, one for the input."""
    x, weight = ctx.saved_tensors
    cols, w2 = ctx.kernel_saved
    (sh, sw), (ph, pw) = ctx.stride, ctx.padding
    n, c, h, w = x.shape
    o, _, kh, kw = weight.shape
    ho, wo = grad.shape[2:]
    need_x, need_w, need_b = ctx.needs_input_grad[:3]
    g2 = grad.transpose(0, 2, 3, 1).reshape(n * ho * wo, o)  # no copy for a channels-last grad
    k = kh * kw * c
    grad_x = grad_w = grad_b = None
    if need_w or need_b:
        full = product(g2.T, cols)  # (O, kh*kw*C [+ 1 for the bias's column of ones])
        if need_w:
            grad_w = np.ascontiguousarray(full[:, :k].reshape(o, kh, kw, c).transpose(0, 3, 1, 2))
        if need_b:
            grad_b = full[:, k].copy()
    if need_x:
        # (kh*kw, N*Ho*Wo, C): slab j is g @ offset j's (O, C) weight, contiguous
        slabs = product(g2, w2.reshape(o, kh * kw, c).transpose(1, 0, 2))
        framed = np.zeros(ctx.framed_shape, dtype=grad.dtype)
        for j in range(kh * kw):  # col2im: each kernel offset (a, b) adds one slab; 9 for 3x3
            a, b = divmod(j, kw)
            framed[:, a : a + sh * ho : sh, b : b + sw * wo : sw, :] += slabs[j].reshape(n, ho, wo, c)
        # an NCHW view of the channels-last frame, laid out as the forward's input usually is
        # (a pool's output after a conv): the ops before it then walk memory in order
        grad_x = framed[:, ph : ph + h, pw : pw + w, :].transpose(0, 3, 1, 2)
    return grad_x, grad_w, grad_b, None, None


def _frame_rows(x: Array, ph: int, pw: int, kh: int, kw: int) -> Array:
    """``x`` (N, C, H, W) copied channels-last into a zero-padded frame, as one row per pixel.

    Shape (N*Hp*Wp + extra, C): row n*Hp*Wp + i*Wp + j is padded pixel (i, j) of sample n.
    The ``extra`` zero rows at the end let every shifted slice below have the same length.
    """
    n, c, h, w = x.shape
    hp, wp = h + 2 * ph, w + 2 * pw
    rows = np.zeros((n * hp * wp + (kh - 1) * wp + kw - 1, c), dtype=x.dtype)
    rows[: n * hp * wp].reshape(n, hp, wp, c)[:, ph : ph + h, pw : pw + w, :] = x.transpose(0, 2, 3, 1)
    return rows


def conv2d_shifted(
    ctx: BackwardNode, x: Array, weight: Array, bias: Array | None, stride: tuple[int, int], padding: tuple[int, int]
) -> Array:
    """``Conv2d.forward`` for stride 1 as kh*kw shifted matrix products (see the module docstring)."""
    (ph, pw), (n, _, h, w), (o, _, kh, kw) = padding, x.shape, weight.shape
    hp, wp = h + 2 * ph, w + 2 * pw
    ho, wo, count = hp - kh + 1, wp - kw + 1, n * hp * wp
    rows = _frame_rows(x, ph, pw, kh, kw)
    w_ab = np.ascontiguousarray(weight.transpose(2, 3, 1, 0))  # (kh, kw, C, O): one (C, O) per offset
    full = product(rows[:count], w_ab[0, 0])
    for a in range(kh):
        for b in range(kw):
            if a or b:
                shift = a * wp + b
                full += product(rows[shift : shift + count], w_ab[a, b])
    out = full.reshape(n, hp, wp, o)[:, :ho, :wo, :]  # drop the rows past the valid corner
    out = out + bias if bias is not None else np.ascontiguousarray(out)
    ctx.save_for_backward(x, weight)  # as the op
    ctx.stride, ctx.padding = stride, padding
    ctx.save_for_kernel(rows, w_ab)
    return out.transpose(0, 3, 1, 2)  # an NCHW view


def conv2d_shifted_backward(ctx: BackwardNode, grad: Array) -> Gradients:
    """``Conv2d.backward`` for stride 1: each offset's gradients are products at the same shift."""
    x, _ = ctx.saved_tensors
    rows, w_ab = ctx.kernel_saved
    (ph, pw), (n, c, h, w) = ctx.padding, x.shape
    kh, kw, _, o = w_ab.shape
    ho, wo = grad.shape[2:]
    hp, wp = h + 2 * ph, w + 2 * pw
    count = n * hp * wp
    need_x, need_w, need_b = ctx.needs_input_grad[:3]
    g = np.zeros((count, o), dtype=grad.dtype)  # the gradient on the whole grid: 0 where dropped
    g.reshape(n, hp, wp, o)[:, :ho, :wo, :] = grad.transpose(0, 2, 3, 1)
    grad_x = grad_w = grad_b = None
    if need_w:
        gw = np.empty(w_ab.shape, dtype=grad.dtype)
        for a in range(kh):
            for b in range(kw):
                shift = a * wp + b
                gw[a, b] = product(rows[shift : shift + count].T, g)
        grad_w = np.ascontiguousarray(gw.transpose(3, 2, 0, 1))
    if need_b:
        accumulate = np.float32 if grad.dtype == np.float16 else grad.dtype  # half sums drift (as the op)
        grad_b = grad.sum(axis=(0, 2, 3), dtype=accumulate).astype(grad.dtype, copy=False)
    if need_x:
        grad_rows = np.zeros(rows.shape, dtype=grad.dtype)
        for a in range(kh):
            for b in range(kw):
                shift = a * wp + b
                grad_rows[shift : shift + count] += product(g, w_ab[a, b].T)
        framed = grad_rows[:count].reshape(n, hp, wp, c)[:, ph : ph + h, pw : pw + w, :]
        grad_x = np.ascontiguousarray(framed.transpose(0, 3, 1, 2))
    return grad_x, grad_w, grad_b, None, None


SHIFTED = register(
    Conv2d, device="cpu", applies=shifted_applies, forward=conv2d_shifted, backward=conv2d_shifted_backward
)
CHANNELS_LAST = register(
    Conv2d,
    device="cpu",
    applies=channels_last_applies,
    forward=conv2d_channels_last,
    backward=conv2d_channels_last_backward,
)
