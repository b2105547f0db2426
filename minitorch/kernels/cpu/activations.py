"""ReLU and Tanh on NumPy: the op's formulas, into arrays a caller may give.

``functions/unary.py`` computes each value as a new array, as the lessons write it. These
kernels make the same NumPy calls, but each function takes optional arrays to write into:

- eager calls them without: new arrays, as the op makes them (on the CPU without asking for
  a GPU kernel first, as the op does on every call);
- a compiled step (``minitorch.compile``: ``jit/kernels.py``) calls them with the buffers it
  allocated once: no new array per step, and the same calls, so the same bits as eager.

Tanh's backward makes one temporary where ``grad * (1 - out * out)`` makes three: the
square, ``1 -`` it and the product are computed in one array, in the same order.
"""

from __future__ import annotations

import numpy as np

from minitorch.autograd.function import BackwardNode
from minitorch.functions.unary import ReLU, Tanh
from minitorch.hints import Array, Gradients
from minitorch.kernels.registry import register

FLOATS = (np.float32, np.float64)


def float_numpy(a: Array) -> bool:
    """A float32/float64 NumPy array (float16 and GPU arrays stay with the op)."""
    return type(a) is np.ndarray and a.dtype in FLOATS


def float_numpy_nd(a: Array) -> bool:
    """As ``float_numpy``, and not 0-d (NumPy gives a 0-d array's results as scalars, not arrays
    to compute in place)."""
    return type(a) is np.ndarray and a.dtype in FLOATS and a.ndim > 0


# ---------------------------------------------------------------------- ReLU
def relu(a: Array, out: Array | None = None) -> Array:
    """max(a, 0)."""
    return np.maximum(a, 0, out=out)


def relu_backward(y: Array, grad: Array, mask: Array | None = None, out: Array | None = None) -> Array:
    """``grad`` where ReLU's output ``y`` is not 0, else 0 (a NaN passes its gradient, as PyTorch's
    threshold_backward). ``mask`` (bool) and ``out``: arrays to write the mask and the result into."""
    return np.multiply(grad, np.not_equal(y, 0, out=mask), out=out)


def relu_kernel(ctx: BackwardNode, a: Array) -> Array:
    """ReLU's forward; saves its output, as the op does."""
    out = relu(a)
    ctx.save_for_backward(out)
    return out


def relu_kernel_backward(ctx: BackwardNode, grad: Array) -> Gradients:
    """ReLU's backward from the saved output."""
    (out,) = ctx.saved_tensors
    return (relu_backward(out, grad),)


# ---------------------------------------------------------------------- Tanh
def tanh(a: Array, out: Array | None = None) -> Array:
    """tanh(a)."""
    return np.tanh(a, out=out)


def tanh_backward(y: Array, grad: Array, out: Array | None = None) -> Array:
    """grad * (1 - y * y) for Tanh's output ``y``, computed in one array (``out``, or a new one)."""
    slope = np.multiply(y, y, out=out)
    np.subtract(1, slope, out=slope)
    if grad.dtype != slope.dtype:  # a gradient of another dtype: the product widens, as the op's does
        return np.multiply(grad, slope)
    return np.multiply(grad, slope, out=slope)


def tanh_kernel(ctx: BackwardNode, a: Array) -> Array:
    """Tanh's forward; saves its output, as the op does."""
    out = tanh(a)
    ctx.save_for_backward(out)
    return out


def tanh_kernel_backward(ctx: BackwardNode, grad: Array) -> Gradients:
    """Tanh's backward from the saved output."""
    (out,) = ctx.saved_tensors
    return (tanh_backward(out, grad),)


RELU = register(ReLU, applies=float_numpy, forward=relu_kernel, backward=relu_kernel_backward)
TANH = register(Tanh, applies=float_numpy_nd, forward=tanh_kernel, backward=tanh_kernel_backward)
