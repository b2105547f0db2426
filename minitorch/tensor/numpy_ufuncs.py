"""What NumPy does when a ufunc meets a Tensor: ``p.data += -lr * p.grad`` works, the rest defers.

``Tensor.data`` is the NumPy array itself (the seed article's design: a learner sees the
plain array their ops compute on). Karpathy's lectures and many tutorials update weights
with ``p.data += -lr * p.grad``: there ``p.grad`` is a Tensor, so NumPy runs
``np.add(p.data, tensor, out=(p.data,))``. With ``__array_ufunc__ = None`` NumPy refused
that ("operand 'Tensor' does not support ufuncs"); this handler runs it instead:

- **NumPy writing into a plain array** (``array += t``, ``array -= t``, ``np.add(a, t, out=a)``):
  the Tensors are replaced by their arrays and NumPy computes in place, as PyTorch does on
  ``p.data``: no graph is recorded, the array's memory is updated, ``p`` sees the change.
- **Anything else** behaves as before: ``array * t`` and ``np.float32(2) * t`` are handed to
  the Tensor's own operator (``t.__rmul__(array)``), so the result is a Tensor in the graph;
  a ufunc with no Tensor operator (``np.exp(t)``) is refused with a ``TypeError``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitorch import backends
from minitorch.tensor_base import TensorBase

# ufunc -> (the Tensor's operator, its reflected twin), for ``array <op> tensor``.
_OPERATORS = {
    np.add: ("__add__", "__radd__"),
    np.subtract: ("__sub__", "__rsub__"),
    np.multiply: ("__mul__", "__rmul__"),
    np.true_divide: ("__truediv__", "__rtruediv__"),
    np.floor_divide: ("__floordiv__", "__rfloordiv__"),
    np.remainder: ("__mod__", "__rmod__"),
    np.power: ("__pow__", "__rpow__"),
    np.matmul: ("__matmul__", "__rmatmul__"),
    np.equal: ("__eq__", "__eq__"),
    np.not_equal: ("__ne__", "__ne__"),
    np.less: ("__lt__", "__gt__"),
    np.less_equal: ("__le__", "__ge__"),
    np.greater: ("__gt__", "__lt__"),
    np.greater_equal: ("__ge__", "__le__"),
    np.bitwise_and: ("__and__", "__rand__"),
    np.bitwise_or: ("__or__", "__ror__"),
    np.bitwise_xor: ("__xor__", "__rxor__"),
}


def _host_array_of(value: Any, ufunc: Any) -> Any:
    """A Tensor's array for a NumPy ufunc writing into a host array (a GPU tensor is refused)."""
    if not isinstance(value, TensorBase):
        return value
    if type(value.data) is not np.ndarray:
        raise TypeError(
            f"numpy.{ufunc.__name__}: cannot write a tensor on {backends.device_of(value.data)!r} into a NumPy "
            "array in place; move it first with .cpu(), or update the tensor itself under minitorch.no_grad()"
        )
    return value.data


def array_ufunc(self: TensorBase, ufunc: Any, method: str, *inputs: Any, out: Any = None, **kwargs: Any) -> Any:
    """``Tensor.__array_ufunc__``: in-place NumPy updates of plain arrays run; the rest defers (see above)."""
    if out is not None:
        if method == "__call__" and all(isinstance(o, np.ndarray) and not isinstance(o, TensorBase) for o in out):
            arrays = [_host_array_of(x, ufunc) for x in inputs]
            return ufunc(*arrays, out=out, **kwargs)
        return NotImplemented
    operators = _OPERATORS.get(ufunc)
    if method != "__call__" or operators is None or kwargs or len(inputs) != 2:
        return NotImplemented
    left, right = inputs
    if isinstance(left, TensorBase):  # np.add(t, array) called directly
        return getattr(left, operators[0])(right)
    return getattr(right, operators[1])(left)  # array + t: t.__radd__(array)
