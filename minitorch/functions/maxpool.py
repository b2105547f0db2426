"""Max-pooling over images (N, C, H, W): the maximum of each window, the gradient to its winner.

Two ways, the same results:
- windows that tile the image (stride = kernel, no padding: the usual 2x2 pool) go
  through ``_tiled_forward``: one copy puts each offset of every window in a contiguous
  slab, in the input's own memory order (channels last after a conv), and the winners are
  kept as a boolean mask, so the backward is one multiply and one copy back;
- everything else (overlapping windows, padding, NaN in the input) walks the offsets
  keeping an index of the winner (``MaxPool2d._by_offsets``).

Every op works on ``ctx.xp`` (NumPy or CuPy), so it runs on either device.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from minitorch.autograd.function import BackwardNode, Function
from minitorch.errors import MiniTorchError
from minitorch.functions.conv import check_unsupported, pool_geometry, windows
from minitorch.hints import Array, Gradients, Shape
from minitorch.tensor_base import TensorBase

if TYPE_CHECKING:  # the face, for annotations only: never imported at run time (no cycle)
    from minitorch.tensor import Tensor


def memory_order(a: Array) -> list[int]:
    """The axes of ``a`` from the largest stride to the smallest: ``a.transpose(order)`` walks
    memory in order ([0, 2, 3, 1] for the NCHW view of a channels-last array)."""
    return sorted(range(a.ndim), key=lambda axis: -a.strides[axis])


def _tiled_forward(xp: Any, x: Array, kh: int, kw: int) -> tuple[Array, Array, list[int]] | None:
    """Max-pool of windows that tile ``x``: (the result, the winners' mask, the memory order),
    or None when the input has a NaN (then the offset walk gives PyTorch's NaN rule).

    ``slabs[k]`` is offset k of every window, laid out as ``x`` is in memory, so each step
    below is one pass over contiguous memory. The mask says which offset won: the first
    maximum of the window (a tie, common after a ReLU's zeros, goes to the first, as in
    PyTorch): ``first[k] = equal[k] and not equal[j] for any j < k``, and for booleans
    ``e and not s`` is ``e > s``.
    """
    blocks = windows(x, kh, kw, kh, kw)  # (N, C, Ho, Wo, kh, kw), a view
    order = memory_order(blocks[..., 0, 0])
    slabs = xp.ascontiguousarray(blocks.transpose(4, 5, *order)).reshape(kh * kw, -1)  # the one copy
    best = slabs[0].copy()
    for k in range(1, kh * kw):
        xp.maximum(best, slabs[k], out=best)
    if best.dtype.kind == "f" and xp.isnan(best).any():
        return None
    mask = slabs == best  # every window has at least one True: its maximum
    seen = mask[0].copy()
    for k in range(1, kh * kw):
        xp.greater(mask[k], seen, out=mask[k])
        if k < kh * kw - 1:
            xp.logical_or(seen, mask[k], out=seen)
    shape = [blocks.shape[axis] for axis in order]
    return best.reshape(shape).transpose(_inverse(order)), mask, order


def _inverse(order: list[int]) -> list[int]:
    """The permutation that undoes ``transpose(order)``."""
    inverse = [0] * len(order)
    for position, axis in enumerate(order):
        inverse[axis] = position
    return inverse


def _tiled_backward(xp: Any, grad: Array, mask: Array, order: list[int], shape: Shape, kh: int, kw: int) -> Array:
    """Each window's gradient on its winning pixel, 0 on the others, laid out as the input was.

    ``mask * grad`` is the selection when the gradient is finite; an inf or NaN gradient
    would make 0 * inf = NaN on the losers, so then ``where`` selects instead (slower).
    """
    g = grad.transpose(order).reshape(-1)  # no copy when grad is laid out as the forward's result
    zero = grad.dtype.type(0)
    picked = mask * g if xp.isfinite(g).all() else xp.where(mask, g, zero)
    n, c, h, w = shape
    ho, wo = grad.shape[2:]
    full = (h, w) == (ho * kh, wo * kw)  # else the last rows or columns are in no window: 0
    make = xp.empty if full else xp.zeros
    out = make([shape[axis] for axis in order], dtype=grad.dtype).transpose(_inverse(order))
    target = windows(out, kh, kw, kh, kw).transpose(4, 5, *order)
    target[...] = picked.reshape(target.shape)
    return out


class MaxPool2d(Function):
    """The maximum of each (kh, kw) window; its gradient goes to the window's winner.

    Windows that tile the image go through ``_tiled_forward`` (see the module docstring).
    Otherwise the forward walks the kh*kw offsets inside a window (4 for 2x2), each one
    array covering the whole batch, keeping the running maximum and which offset gave it:
    a new value wins only if it is larger (so on a tie the first maximum keeps the
    gradient, as PyTorch) or NaN (NaN propagates, as in PyTorch's kernel). Its backward
    sends each output's gradient to the winning offset, one strided slice of the image per
    offset. Reducing over a last axis of length 4 instead (``max``, ``argmax``) is several
    times slower in NumPy.
    """

    @staticmethod
    def forward(
        ctx: BackwardNode, x: Array, kernel: tuple[int, int], stride: tuple[int, int], padding: tuple[int, int] = (0, 0)
    ) -> Array:
        xp = ctx.xp
        kh, kw = kernel
        if stride == kernel and padding == (0, 0) and x.dtype.kind in "fiu":
            tiled = _tiled_forward(xp, x, kh, kw)
            if tiled is not None:
                best, mask, order = tiled
                ctx.meta = ("tiled", x.shape, kh, kw, order)
                ctx.save_for_backward(mask)
                return best
        best, winner, padded_shape = MaxPool2d._by_offsets(xp, x, kernel, stride, padding)
        ctx.meta = ("offsets", padded_shape, kh, kw, stride, padding)
        ctx.save_for_backward(winner)
        return best

    @staticmethod
    def _by_offsets(
        xp: Any, x: Array, kernel: tuple[int, int], stride: tuple[int, int], padding: tuple[int, int]
    ) -> tuple[Array, Array, Shape]:
        """(the maxima, the index of each window's winning offset, the padded input's shape)."""
        (kh, kw), (sh, sw) = kernel, stride
        real = None  # with padding: True on the padded grid's real pixels, False on the border
        if padding != (0, 0):  # padded with -inf: a border pixel never wins over a real one
            (ph, pw) = padding
            real = xp.pad(xp.ones(x.shape[2:], dtype=bool), ((ph, ph), (pw, pw)))
            x = xp.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)), constant_values=-xp.inf)
        win = windows(x, kh, kw, sh, sw)  # (N, C, Ho, Wo, kh, kw), a view
        ho, wo = win.shape[2:4]

        def on_real(k: int) -> Array:  # (Ho, Wo): is offset k of each window a real pixel?
            assert real is not None  # asked only with padding
            a, b = divmod(k, kw)
            return real[a : a + sh * ho : sh, b : b + sw * wo : sw]

        best = win[..., 0, 0].copy()
        best_is_real = None if real is None else on_real(0)
        index_type = xp.int8 if kh * kw < 128 else xp.int32
        winner = xp.zeros(best.shape, dtype=index_type)
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
            xp.maximum(winner, take * index_type(k), out=winner)
            xp.maximum(best, candidate, out=best)  # NaN propagates in maximum too
        return best, winner, x.shape

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        xp = ctx.xp
        nones = (None,) * (len(ctx.next_nodes) - 1)
        if ctx.meta[0] == "tiled":
            _, shape, kh, kw, order = ctx.meta
            (mask,) = ctx.saved_tensors
            return (_tiled_backward(xp, grad, mask, order, shape, kh, kw), *nones)
        _, shape, kh, kw, (sh, sw), (ph, pw) = ctx.meta
        (winner,) = ctx.saved_tensors
        ho, wo = grad.shape[2:]
        zero = grad.dtype.type(0)
        overlap = sh < kh or sw < kw  # windows share pixels: their gradients add up
        out = xp.zeros(shape, dtype=grad.dtype)  # pixels no window covered (or won) get 0
        for k in range(kh * kw):
            a, b = divmod(k, kw)
            # the pixels at offset (a, b) of every window: a strided slice of the image
            pixels = out[:, :, a : a + sh * ho : sh, b : b + sw * wo : sw]
            mine = xp.where(winner == k, grad, zero)
            if overlap:
                pixels += mine
            else:
                pixels[...] = mine
        if (ph, pw) != (0, 0):  # the -inf border was not part of the input
            out = out[:, :, ph : shape[2] - ph, pw : shape[3] - pw]
        return (out, *nones)


def max_pool2d(
    input: TensorBase,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Tensor:
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
        return max_pool2d(input.unsqueeze(0), kernel_size, stride, padding).squeeze(0)
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
