"""Faster ``MaxPool2d`` and ``AvgPool2d`` on the CPU: windows as strided views, walked offset by offset.

The ops (``functions/maxpool.py``, ``functions/pooling.py``) copy every window into a new
array (kh*kw values per output) and reduce over its last axis; NumPy reduces an axis of
length 4 one short row at a time, several times slower than walking the kh*kw offsets
as whole-batch arrays. The kernels here do the walk:

- ``max_pool_tiled``: windows that tile the image (stride = kernel, no padding: the usual
  2x2 pool). One copy puts each offset of every window in a contiguous slab, in the input's
  own memory order (channels last after a conv), so every step after it is one pass over
  contiguous memory; the winners are a boolean mask in that order, so backward is one
  select and one copy back. A NaN in the input hands over to the offset walk, which has
  PyTorch's NaN rule.
- ``max_pool_offsets``: any windows. Walks the offsets on a strided view, keeping the
  running maximum and which offset gave it.
- ``avg_pool_view``: sums the strided view of the windows (no copy of them), and adds the
  gradients back in place.
- ``adaptive_avg_pool_kept``: the op's two averaging matrices, built once in forward and
  kept for its backward (the op rebuilds them there: it saves only what graph mode knows).

Each keeps what its op saves: the winners as a one-hot mask over the window (the tiled
kernel's mask, seen in the op's layout, is the same memory).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitorch.autograd.function import BackwardNode
from minitorch.functions.conv import accumulator
from minitorch.functions.maxpool import MaxPool2d
from minitorch.functions.pooling import AdaptiveAvgPool2d, AvgPool2d, averaging_matrices
from minitorch.hints import Array, Gradients
from minitorch.kernels.cpu.windows import add_windows_back, inverse_order, memory_order, window_view
from minitorch.kernels.registry import register

# ---------------------------------------------------------------------- max-pool, any windows


def max_pool_offsets_applies(x: Any, kernel: tuple[int, int], stride: tuple[int, int], padding: Any = (0, 0)) -> bool:
    """NumPy arrays of numbers (what max_pool2d accepts), any windows."""
    return type(x) is np.ndarray and x.dtype.kind in "fiu"


def max_pool_offsets(
    ctx: BackwardNode, x: Array, kernel: tuple[int, int], stride: tuple[int, int], padding: tuple[int, int] = (0, 0)
) -> Array:
    """``MaxPool2d.forward`` by walking the kh*kw offsets of a strided view (4 for 2x2).

    A new value wins only if it is larger (so on a tie the first maximum keeps it) or NaN
    (so the last NaN wins, as PyTorch's kernel); with padding, a real pixel beats the -inf
    border even when both are -inf.
    """
    (kh, kw), (sh, sw), (ph, pw) = kernel, stride, padding
    real = None  # with padding: True on the padded grid's real pixels, False on the border
    if padding != (0, 0):  # padded with -inf: a border pixel never wins over a real one
        real = np.pad(np.ones(x.shape[2:], dtype=bool), ((ph, ph), (pw, pw)))
        x = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)), constant_values=-np.inf)
    win = window_view(x, kh, kw, sh, sw)  # (N, C, Ho, Wo, kh, kw), a view
    ho, wo = win.shape[2:4]

    def on_real(k: int) -> Array:  # (Ho, Wo): is offset k of each window a real pixel?
        assert real is not None  # asked only with padding
        a, b = divmod(k, kw)
        return real[a : a + sh * ho : sh, b : b + sw * wo : sw]

    best = win[..., 0, 0].copy()
    best_is_real = None if real is None else on_real(0)
    index_type = np.int8 if kh * kw < 128 else np.int32
    winner = np.zeros(best.shape, dtype=index_type)
    for k in range(1, kh * kw):
        candidate = win[..., k // kw, k % kw]
        take = candidate > best
        take |= candidate != candidate  # NaN wins, as in PyTorch's kernel
        if best_is_real is not None:
            # A real pixel beats the border even when both are -inf: as in PyTorch, a window
            # of -inf values sends its gradient to its first real pixel, not to the border.
            take |= on_real(k) & ~best_is_real
            best_is_real = best_is_real | take  # only a real pixel is ever taken
        # k grows, so where ``take`` the new k is the largest index yet: max() records it.
        np.maximum(winner, take * index_type(k), out=winner)
        np.maximum(best, candidate, out=best)  # NaN propagates in maximum too
    ctx.save_for_backward(winner[..., None] == np.arange(kh * kw, dtype=index_type))  # one-hot, as the op
    ctx.padded_shape, ctx.kernel_size, ctx.stride, ctx.padding = x.shape, kernel, stride, padding
    return best


def max_pool_offsets_backward(ctx: BackwardNode, grad: Array) -> Gradients:
    """``MaxPool2d.backward``: each offset's winners get their gradient, one strided slice of the image each."""
    (winner,) = ctx.saved_tensors
    shape, (kh, kw), (sh, sw), (ph, pw) = ctx.padded_shape, ctx.kernel_size, ctx.stride, ctx.padding
    ho, wo = grad.shape[2:]
    zero = grad.dtype.type(0)
    overlap = sh < kh or sw < kw  # windows share pixels: their gradients add up
    out = np.zeros(shape, dtype=grad.dtype)  # pixels no window covered (or won) get 0
    for k in range(kh * kw):
        a, b = divmod(k, kw)
        # the pixels at offset (a, b) of every window: a strided slice of the image
        pixels = out[:, :, a : a + sh * ho : sh, b : b + sw * wo : sw]
        mine = np.where(winner[..., k], grad, zero)
        if overlap:
            pixels += mine
        else:
            pixels[...] = mine
    if (ph, pw) != (0, 0):  # the -inf border was not part of the input
        out = out[:, :, ph : shape[2] - ph, pw : shape[3] - pw]
    nones = (None,) * (len(ctx.next_nodes) - 1)
    return (out, *nones)


# ---------------------------------------------------------------------- max-pool, tiling windows


def max_pool_tiled_applies(x: Any, kernel: tuple[int, int], stride: tuple[int, int], padding: Any = (0, 0)) -> bool:
    """Windows that tile the image (stride = kernel, no padding), NumPy numbers."""
    return stride == kernel and padding == (0, 0) and type(x) is np.ndarray and x.dtype.kind in "fiu"


def max_pool_tiled(
    ctx: BackwardNode, x: Array, kernel: tuple[int, int], stride: tuple[int, int], padding: tuple[int, int] = (0, 0)
) -> Array:
    """``MaxPool2d.forward`` for tiling windows: contiguous slabs, a running maximum, a first-winner mask.

    ``slabs[k]`` is offset k of every window, laid out as ``x`` is in memory. The mask says
    which offset won: the first maximum of the window, ``first[k] = equal[k] and not
    equal[j] for any j < k``, and for booleans ``e and not s`` is ``e > s``.
    """
    kh, kw = kernel
    blocks = window_view(x, kh, kw, kh, kw)  # (N, C, Ho, Wo, kh, kw), a view
    order = memory_order(blocks[..., 0, 0])
    slabs = np.ascontiguousarray(blocks.transpose(4, 5, *order)).reshape(kh * kw, -1)  # the one copy
    best = slabs[0].copy()
    for k in range(1, kh * kw):
        np.maximum(best, slabs[k], out=best)
    if best.dtype.kind == "f" and np.isnan(best).any():
        return max_pool_offsets(ctx, x, kernel, stride, padding)  # PyTorch's NaN rule
    mask = slabs == best  # every window has at least one True: its maximum
    seen = mask[0].copy()
    for k in range(1, kh * kw):
        np.greater(mask[k], seen, out=mask[k])
        if k < kh * kw - 1:
            np.logical_or(seen, mask[k], out=seen)
    shape = [blocks.shape[axis] for axis in order]
    inverse = inverse_order(order)
    # the op's one-hot (N, C, Ho, Wo, kh*kw): the same memory, seen in the op's layout
    ctx.save_for_backward(mask.reshape(kh * kw, *shape).transpose(*(1 + p for p in inverse), 0))
    ctx.padded_shape, ctx.kernel_size, ctx.stride, ctx.padding = x.shape, kernel, stride, padding
    ctx.save_for_kernel(mask, order)
    return best.reshape(shape).transpose(inverse)


def max_pool_tiled_backward(ctx: BackwardNode, grad: Array) -> Gradients:
    """Each window's gradient on its winning pixel, 0 on the others, laid out as the input was.

    ``mask * grad`` is the selection when the gradient is finite; an inf or NaN gradient
    would make 0 * inf = NaN on the losers, so then ``where`` selects instead (slower).
    """
    if not ctx.kernel_saved:  # the input had a NaN: the offset walk ran
        return max_pool_offsets_backward(ctx, grad)
    mask, order = ctx.kernel_saved
    shape, (kh, kw) = ctx.padded_shape, ctx.kernel_size
    g = grad.transpose(order).reshape(-1)  # no copy when grad is laid out as the forward's result
    picked = mask * g if np.isfinite(g).all() else np.where(mask, g, grad.dtype.type(0))
    h, w = shape[2:]
    ho, wo = grad.shape[2:]
    full = (h, w) == (ho * kh, wo * kw)  # else the last rows or columns are in no window: 0
    make = np.empty if full else np.zeros
    out = make([shape[axis] for axis in order], dtype=grad.dtype).transpose(inverse_order(order))
    target = window_view(out, kh, kw, kh, kw).transpose(4, 5, *order)
    target[...] = picked.reshape(target.shape)
    nones = (None,) * (len(ctx.next_nodes) - 1)
    return (out, *nones)


# ---------------------------------------------------------------------- average pool


def avg_pool_view_applies(x: Any, kernel: tuple[int, int], stride: tuple[int, int], padding: tuple[int, int]) -> bool:
    """NumPy arrays, any windows."""
    return type(x) is np.ndarray


def avg_pool_view(
    ctx: BackwardNode, x: Array, kernel: tuple[int, int], stride: tuple[int, int], padding: tuple[int, int]
) -> Array:
    """``AvgPool2d.forward`` summing a strided view of the windows (no copy of them; none of x without padding)."""
    (kh, kw), (sh, sw), (ph, pw) = kernel, stride, padding
    if padding != (0, 0):
        x = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    ctx.padded_shape, ctx.kernel_size, ctx.stride, ctx.padding = x.shape, kernel, stride, padding
    accumulate = np.float32 if x.dtype == np.float16 else x.dtype  # half sums drift (as the op)
    total = window_view(x, kh, kw, sh, sw).sum(axis=(4, 5), dtype=accumulate)
    if x.dtype.kind in "iu":  # PyTorch divides integers rounding toward zero
        return np.sign(total) * (np.abs(total) // (kh * kw))
    return (total / (kh * kw)).astype(x.dtype, copy=False)


def avg_pool_view_backward(ctx: BackwardNode, grad: Array) -> Gradients:
    """``AvgPool2d.backward`` adding the shares back in place, one strided slice per offset."""
    shape, (kh, kw), (sh, sw), (ph, pw) = ctx.padded_shape, ctx.kernel_size, ctx.stride, ctx.padding
    n, c, ho, wo = grad.shape
    share = np.broadcast_to((grad / (kh * kw))[..., None, None], (n, c, ho, wo, kh, kw))
    out = add_windows_back(share, shape, sh, sw)
    return out[:, :, ph : shape[2] - ph, pw : shape[3] - pw], None, None, None


# ---------------------------------------------------------------------- adaptive average pool


def adaptive_avg_pool_kept_applies(x: Any, output_size: tuple[int, int]) -> bool:
    """NumPy arrays (the op takes floats only)."""
    return type(x) is np.ndarray


def adaptive_avg_pool_kept(ctx: BackwardNode, x: Array, output_size: tuple[int, int]) -> Array:
    """``AdaptiveAvgPool2d.forward``, keeping its averaging matrices for the backward."""
    ctx.in_size = x.shape[2:]  # as the op
    rows, cols = averaging_matrices(np, x.shape[2:], output_size, accumulator(x.dtype))
    ctx.save_for_kernel(rows, cols)
    return np.matmul(np.matmul(rows, x.astype(rows.dtype, copy=False)), cols.T).astype(x.dtype, copy=False)


def adaptive_avg_pool_kept_backward(ctx: BackwardNode, grad: Array) -> Gradients:
    """``AdaptiveAvgPool2d.backward`` with the matrices forward built: P_h^T @ grad @ P_w."""
    rows, cols = ctx.kernel_saved
    out = np.matmul(np.matmul(rows.T, grad.astype(rows.dtype, copy=False)), cols)
    return out.astype(grad.dtype, copy=False), None


TILED_MAX = register(
    MaxPool2d, device="cpu", applies=max_pool_tiled_applies, forward=max_pool_tiled, backward=max_pool_tiled_backward
)
OFFSETS_MAX = register(
    MaxPool2d,
    device="cpu",
    applies=max_pool_offsets_applies,
    forward=max_pool_offsets,
    backward=max_pool_offsets_backward,
)
VIEW_AVG = register(
    AvgPool2d, device="cpu", applies=avg_pool_view_applies, forward=avg_pool_view, backward=avg_pool_view_backward
)
KEPT_ADAPTIVE_AVG = register(
    AdaptiveAvgPool2d,
    device="cpu",
    applies=adaptive_avg_pool_kept_applies,
    forward=adaptive_avg_pool_kept,
    backward=adaptive_avg_pool_kept_backward,
)
