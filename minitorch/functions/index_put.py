"""Writing into part of a tensor, as a recorded op: what ``t[index] = v``, ``zero_``,
``fill_`` and ``copy_`` become while the graph is recorded (see ``tensor_inplace.py``).

``IndexPut(a, value, index)`` returns a copy of ``a`` with ``value`` written at ``index``
(broadcast to the indexed region). Backward: the overwritten elements of ``a`` get no
gradient (their old values no longer matter), and ``value`` gets the gradient of the
region it was written to, summed over the dimensions it was broadcast along.
"""

from __future__ import annotations

from typing import Any

from minitorch import backends
from minitorch.autograd.function import BackwardNode, Function
from minitorch.functions.broadcast import unbroadcast
from minitorch.functions.indexing import index_arrays
from minitorch.functions.promotion import cast
from minitorch.hints import Array, Gradients
from minitorch.tensor import Tensor


class IndexPut(Function):
    """a with a[index] = value (a copy: the tensor itself is updated by its in-place method)."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array, value: Any, index: Any) -> Array:
        out = a.copy()
        out[index] = value
        ctx.index = index
        ctx.value_shape = getattr(value, "shape", None)
        return out

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        grad_a = grad_value = None
        if ctx.needs_input_grad[0]:
            grad_a = grad.copy()
            grad_a[ctx.index] = 0
        if ctx.needs_input_grad[1]:
            grad_value = unbroadcast(grad[ctx.index], ctx.value_shape)
        return grad_a, grad_value, None


def index_put_index(index: Any, data: Array) -> Any:
    """``index`` as the array library indexes ``data`` (see ``indexing.index_arrays``)."""
    return index_arrays(index, backends.device_of(data))


def index_put(a: Tensor, index: Any, value: Any) -> Tensor:
    """A copy of ``a`` with ``value`` (a Tensor or a number) written at ``index``, recorded."""
    if isinstance(value, Tensor) and value.data.dtype != a.data.dtype:
        value = cast(value, a.dtype)  # the tensor keeps its dtype, as with t[i] = v in PyTorch
    return IndexPut.apply(a, value, index_put_index(index, a.data))
