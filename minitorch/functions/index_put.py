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
from minitorch.errors import MiniTorchError
from minitorch.functions.arithmetic import unbroadcast
from minitorch.functions.conversion import cast
from minitorch.functions.indexing import index_arrays, scatter_into, sequence_as_tuple
from minitorch.hints import Array, Gradients
from minitorch.tensor_base import T, TensorBase


class IndexPut(Function):
    """a with a[index] = value (a copy: the tensor itself is updated by its in-place method).

    ``accumulate=True`` adds ``value`` at ``index`` instead, repeated indices summed (PyTorch's
    ``index_put(..., accumulate=True)``): the scatter that the backward of indexing is, so
    ``scatter_into`` (``indexing.py``) records it when a gradient is differentiated again.
    """

    @staticmethod
    def forward(ctx: BackwardNode, a: Array, value: Any, index: Any, accumulate: bool = False) -> Array:
        out = a.copy()
        write_at(out, index, value, accumulate)
        ctx.index, ctx.accumulate = index, accumulate
        ctx.value_shape = getattr(value, "shape", None)
        return out

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        grad_a = grad_value = None
        grad = ctx.xp.asarray(grad)  # a 0-d result's gradient may come as a NumPy scalar
        if ctx.needs_input_grad[0]:
            # Added to: every element of a still counts. Overwritten: those elements no longer do.
            grad_a = grad if ctx.accumulate else scatter_into(grad, ctx.index, 0)
        if ctx.needs_input_grad[1]:
            grad_value = unbroadcast(grad[ctx.index], ctx.value_shape)
        return (grad_a, grad_value) + (None,) * (len(ctx.needs_input_grad) - 2)


def write_at(data: Array, index: Any, value: Any, accumulate: bool = False) -> None:
    """``data[index] = value`` with PyTorch's broadcasting of ``value`` to the indexed region:
    extra leading size-1 dims are dropped (NumPy refuses them after a multi-dim bool mask).
    ``accumulate``: ``value`` added instead, repeated indices summed."""
    if getattr(value, "ndim", 0):
        target = data[index].shape
        while value.ndim > len(target) and value.shape[0] == 1:
            value = value[0]
        try:
            value = backends.module_of(data).broadcast_to(value, target)
        except ValueError:
            raise MiniTorchError(
                f"index_put (t[index] = value): shape mismatch: value of shape {tuple(value.shape)} "
                f"cannot be broadcast to the indexed region of shape {tuple(target)}"
            ) from None
    if accumulate:
        backends.of(data).index_add(data, index, value)
    else:
        data[index] = value


def check_value_dtype(a: TensorBase, index: Any, value: Any) -> None:
    """PyTorch's index_put_ refuses a value tensor of another dtype when the index has tensors,
    lists or arrays in it (plain ints and slices copy with a cast; a bool mask takes a
    one-element value)."""
    if not isinstance(value, TensorBase) or value.data.dtype == a.data.dtype:
        return
    parts = sequence_as_tuple(index)
    parts = parts if isinstance(parts, tuple) else (parts,)
    advanced = [p for p in parts if isinstance(p, (list, TensorBase)) or backends.is_backend_array(p)]
    advanced = [p for p in advanced if not (isinstance(p, TensorBase) and p.ndim == 0 and p.data.dtype.kind in "iu")]
    if not advanced:
        return
    only_masks = all(_dtype_kind(p) == "b" for p in advanced)
    if only_masks and value.data.size == 1:  # PyTorch fills the mask with the one value
        return
    raise MiniTorchError(
        f"index_put (t[index] = value): the value's dtype {value.dtype} must match the tensor's "
        f"dtype {a.dtype} when indexing with tensors (as PyTorch); convert it with .to({a.dtype})"
    )


def _dtype_kind(part: Any) -> str:
    data = part.data if isinstance(part, TensorBase) else part
    return str(np.asarray(data).dtype.kind) if isinstance(data, list) else str(data.dtype.kind)


def index_put_index(index: Any, data: Array) -> Any:
    """``index`` as the array library indexes ``data`` (see ``indexing.index_arrays``)."""
    return index_arrays(index, backends.device_of(data))


def index_put(a: T, index: Any, value: Any, accumulate: bool = False) -> T:
    """A copy of ``a`` with ``value`` (a Tensor or a number) written at ``index`` (``accumulate``:
    added, repeated indices summed), recorded."""
    check_value_dtype(a, index, value)
    if isinstance(value, TensorBase) and value.data.dtype != a.data.dtype:
        value = cast(value, a.dtype)  # the tensor keeps its dtype, as with t[i] = v in PyTorch
    index = index_put_index(index, a.data)
    return IndexPut.apply(a, value, index, True) if accumulate else IndexPut.apply(a, value, index)
