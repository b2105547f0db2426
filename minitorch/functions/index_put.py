"""Writing into part of a tensor, as a recorded op: what ``t[index] = v``, ``zero_``,
``fill_`` and ``copy_`` become while the graph is recorded (see ``tensor_inplace.py``).

``IndexPut(a, value, index)`` returns a copy of ``a`` with ``value`` written at ``index``
(broadcast to the indexed region). Backward: the overwritten elements of ``a`` get no
gradient (their old values no longer matter), and ``value`` gets the gradient of the
region it was written to, summed over the dimensions it was broadcast along.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitorch import backends
from minitorch.autograd.function import BackwardNode, Function
from minitorch.functions.broadcast import unbroadcast
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
    """``index`` as the array library indexes ``data``: Tensors become arrays on its device."""
    if isinstance(index, tuple):
        return tuple(_index_part(i, data) for i in index)
    return _index_part(index, data)


def _index_part(item: Any, data: Array) -> Any:
    if isinstance(item, Tensor):
        if item.data.dtype.kind == "f":
            raise IndexError(f"index: tensors used as indices must be long (int64) or bool, got {item.dtype}")
        item = item.data
    elif isinstance(item, list):
        item = np.asarray([i.item() if isinstance(i, Tensor) else i for i in item])
    if backends.is_backend_array(item):
        return backends.to_device(item, backends.device_of(data))
    return item


def index_put(a: Tensor, index: Any, value: Any) -> Tensor:
    """A copy of ``a`` with ``value`` (a Tensor or a number) written at ``index``, recorded."""
    if isinstance(value, Tensor) and value.data.dtype != a.data.dtype:
        value = cast(value, a.dtype)  # the tensor keeps its dtype, as with t[i] = v in PyTorch
    return IndexPut.apply(a, value, index_put_index(index, a.data))
