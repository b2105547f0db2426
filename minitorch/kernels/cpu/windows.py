"""Image windows without copying, and their adjoint in place: what the conv and pooling kernels share.

The reference ops (``functions/conv.py``) stack kh*kw slices into a new array of windows and
add the window gradients back with out-of-place sums. Here, as lesson 09 shows it, the
windows are a *strided view* of the image (no copy: moving to the next window jumps
``stride`` rows, moving inside a window steps one), and their gradients are added back into
one array, slice by slice, in place.
"""

from __future__ import annotations

import numpy as np

from minitorch.hints import Array, Shape


def window_view(x: Array, kh: int, kw: int, sh: int, sw: int) -> Array:
    """A strided view (no copy) of every (kh, kw) window of ``x`` (N, C, H, W).

    Shape (N, C, Ho, Wo, kh, kw): element [n, c, i, j, a, b] is x[n, c, i*sh + a, j*sw + b],
    the layout of ``functions.conv.windows``.
    """
    n, c, h, w = x.shape
    ho, wo = (h - kh) // sh + 1, (w - kw) // sw + 1
    s_n, s_c, s_h, s_w = x.strides
    return np.lib.stride_tricks.as_strided(x, (n, c, ho, wo, kh, kw), (s_n, s_c, s_h * sh, s_w * sw, s_h, s_w))


def window_view_last(x: Array, kh: int, kw: int, sh: int, sw: int) -> Array:
    """Like ``window_view`` for a channels-last array (N, H, W, C): a (N, Ho, Wo, kh, kw, C) view.

    With channels last, one window row (kw pixels x C channels) is contiguous in memory, so
    copying the windows into a matrix moves long runs instead of kw numbers at a time.
    """
    n, h, w, c = x.shape
    ho, wo = (h - kh) // sh + 1, (w - kw) // sw + 1
    s_n, s_h, s_w, s_c = x.strides
    return np.lib.stride_tricks.as_strided(x, (n, ho, wo, kh, kw, c), (s_n, s_h * sh, s_w * sw, s_h, s_w, s_c))


def add_windows_back(grad_windows: Array, shape: Shape, sh: int, sw: int) -> Array:
    """``functions.conv.col2im`` in place: each window's gradient added onto a (N, C, H, W) grid.

    One strided slice of the whole batch per kernel offset (9 for 3x3), added in place:
    no grid-sized temporary per offset.
    """
    n, c, ho, wo, kh, kw = grad_windows.shape
    out = np.zeros(shape, dtype=grad_windows.dtype)
    for a in range(kh):
        for b in range(kw):
            out[:, :, a : a + sh * ho : sh, b : b + sw * wo : sw] += grad_windows[:, :, :, :, a, b]
    return out


def memory_order(a: Array) -> list[int]:
    """The axes of ``a`` from the largest stride to the smallest: ``a.transpose(order)`` walks
    memory in order ([0, 2, 3, 1] for the NCHW view of a channels-last array)."""
    return sorted(range(a.ndim), key=lambda axis: -a.strides[axis])


def inverse_order(order: list[int]) -> list[int]:
    """The permutation that undoes ``transpose(order)``."""
    inverse = [0] * len(order)
    for position, axis in enumerate(order):
        inverse[axis] = position
    return inverse
