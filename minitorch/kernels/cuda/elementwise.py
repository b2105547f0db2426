"""ReLU and bias + ReLU on a GPU: each direction one hand-written CUDA kernel (``sources.py``).

Why it is faster: on a GPU every array expression is one kernel launch with its own
temporary, and a small model's step is bound by its launches, not its arithmetic. ReLU's
backward ``grad * (out != 0)`` is two launches and a bool temporary, ``BiasReLU``'s forward
``maximum(x + b, 0)`` two launches and a temporary; each kernel here reads its inputs once
and writes its output once. The values are the op's to the bit (NaN kept, its gradient
passed through), and ``ctx`` is left as the op leaves it (the output saved).
"""

from __future__ import annotations

from typing import Any

from minitorch.autograd.function import BackwardNode
from minitorch.functions.fused import BiasReLU
from minitorch.functions.unary import ReLU, relu_grad
from minitorch.hints import Array, Gradients
from minitorch.kernels.cuda import sources
from minitorch.kernels.registry import register


def is_float(a: Array) -> bool:
    """A floating-point GPU array (an integer ReLU runs the op's ``maximum``)."""
    return a.dtype.kind == "f"


def relu_forward(ctx: BackwardNode, a: Array) -> Array:
    """``ReLU.forward`` in one kernel."""
    out = sources.relu_forward(a)
    ctx.save_for_backward(out)
    return out


def relu_backward(ctx: BackwardNode, grad: Array) -> Gradients:
    """``ReLU.backward`` in one kernel."""
    (out,) = ctx.saved_tensors
    return (relu_grad_kernel(out, grad),)


def relu_grad_kernel(out: Array, grad: Array) -> Array:
    """``relu_grad`` in one kernel where the gradient has the output's dtype (the kernel has one
    type ``T``), else the op's expression (a float32 gradient of a float16 output, say)."""
    if grad.dtype == out.dtype:
        return sources.relu_backward(out, grad)
    return relu_grad(out, grad)


def same_float(x: Array, b: Array) -> bool:
    """Floating-point GPU arrays of one dtype (the kernel's ``T``)."""
    return x.dtype.kind == "f" and b.dtype == x.dtype


def bias_relu_forward(ctx: BackwardNode, x: Array, b: Array) -> Array:
    """``BiasReLU.forward`` in one kernel: relu(x + b) without the temporary x + b."""
    out = sources.bias_relu_forward(x, b)
    ctx.save_for_backward(out)
    return out


def bias_relu_backward(ctx: BackwardNode, grad: Array) -> Gradients:
    """``BiasReLU.backward`` with ReLU's backward in one kernel (the bias's sum is CuPy's)."""
    (out,) = ctx.saved_tensors
    grad_x = relu_grad_kernel(out, grad)
    need_x, need_b = ctx.needs_input_grad
    grad_b: Any = grad_x.reshape(-1, grad_x.shape[-1]).sum(axis=0) if need_b else None
    return (grad_x if need_x else None), grad_b


RELU = register(ReLU, device="cuda", applies=is_float, forward=relu_forward, backward=relu_backward)
BIAS_RELU = register(
    BiasReLU, device="cuda", applies=same_float, forward=bias_relu_forward, backward=bias_relu_backward
)
