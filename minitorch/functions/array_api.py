"""NumPy's names for the differentiable ops: what an op's backward may call under create_graph.

An op's backward is written on arrays: ``grad * xp.exp(x)``, ``g.sum(axis=0)``,
``xp.where(mask, g, 0)``. With ``create_graph=True`` the engine runs the same lines on
``GraphArray``s (``autograd/graph_mode.py``), and each NumPy name below is the op that
records that step in the graph, called with NumPy's arguments (``axis``, ``keepdims``,
``newshape`` ...). A name missing here is refused on a value with a gradient, with an error
naming the op and the function: never a silent constant.

Comparisons, ``sign`` and the ``*_like`` constructors have no gradient: they run on the arrays.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from minitorch import backends
from minitorch.autograd.graph_arrays import GraphArray, register_numpy_function
from minitorch.dtypes import get_dtype
from minitorch.functions import (
    arithmetic,
    clamping,
    conversion,
    cumulative,
    elementwise_logic,
    index_put,
    indexing,
    linalg,
    masking,
    ordering,
    rearranging,
    reductions,
    shape,
    special,
    unary,
)
from minitorch.switches import SWITCHES
from minitorch.tensor_base import TensorBase


def _tensor(value: Any) -> Any:
    """An array constant as a Tensor without a gradient; Tensors and numbers as they are (a
    GraphArray inside a list, which ``call`` does not unwrap, as its Tensor)."""
    if isinstance(value, TensorBase) or isinstance(value, (int, float, bool)):
        return value
    if isinstance(value, GraphArray):
        return value.tensor
    if isinstance(value, np.generic):
        return value.item()
    return arithmetic.as_operand(value)


def _data(value: Any) -> Any:
    return value.data if isinstance(value, TensorBase) else value


def _constant(array: Any) -> TensorBase:
    return TensorBase._make(array, None, False)


def _axes(axis: Any) -> Any:
    """NumPy's ``axis`` as MiniTorch's ``dim`` (None: every axis)."""
    if axis is None or isinstance(axis, int):
        return axis
    return tuple(axis)


def _binary(op: Any, masks: bool = False) -> Any:
    """``op`` with NumPy's operands; ``masks``: a bool mask operand is cast here (multiply)."""

    def function(a: Any, b: Any, **kwargs: Any) -> Any:
        if kwargs and kwargs.get("dtype") is not None:
            raise TypeError("dtype= is not supported on graph values")
        if masks:
            return op(*_mask_as_numbers(_tensor(a), _tensor(b)))
        return op(_tensor(a), _tensor(b))

    return function


def _mask_as_numbers(a: Any, b: Any) -> tuple[Any, Any]:
    """A bool mask beside a float tensor (``grad * (out != 0)``) as 0/1 of the tensor's dtype:
    the cast promote() would apply, done on the constant's array (no op call for a value
    without a gradient; the mask itself was computed on arrays the same way)."""
    if isinstance(a, TensorBase) and isinstance(b, TensorBase) and a.data.dtype != b.data.dtype:
        if b.data.dtype.kind == "b" and not b.requires_grad and a.data.dtype.kind == "f":
            b = _constant(b.data.astype(a.data.dtype))
        elif a.data.dtype.kind == "b" and not a.requires_grad and b.data.dtype.kind == "f":
            a = _constant(a.data.astype(b.data.dtype))
    return a, b


def _unary(op: Any) -> Any:
    def function(a: Any, **kwargs: Any) -> Any:
        return op(a)

    return function


def _no_gradient(np_function: Any) -> Any:
    """A NumPy function whose result carries no gradient: computed on the arrays (NumPy
    hands CuPy arrays on to CuPy)."""

    def function(*args: Any, **kwargs: Any) -> TensorBase:
        return _constant(np_function(*(_data(a) for a in args), **{k: _data(v) for k, v in kwargs.items()}))

    return function


def _sum(a: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> Any:
    return reductions.sum(a, _axes(axis), keepdims, None if dtype is None else get_dtype(np.dtype(dtype).name))


def _mean(a: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> Any:
    if dtype is not None:
        a = conversion.cast(a, get_dtype(np.dtype(dtype).name))
    return reductions.mean(a, _axes(axis), keepdims)


def _max(a: Any, axis: Any = None, keepdims: bool = False, **kwargs: Any) -> Any:
    return reductions.amax(a, _axes(axis), keepdims)


def _min(a: Any, axis: Any = None, keepdims: bool = False, **kwargs: Any) -> Any:
    return reductions.amin(a, _axes(axis), keepdims)


def _extreme(op: Any) -> Any:
    """maximum/minimum: NumPy takes a number for either operand (``xp.maximum(p * q, eps)``);
    it keeps the tensor's dtype, as NumPy's weak Python numbers do."""

    def function(a: Any, b: Any, **kwargs: Any) -> Any:
        a, b = _tensor(a), _tensor(b)
        if not isinstance(a, TensorBase):
            a = _constant(backends.module_of(b.data).asarray(a, dtype=b.data.dtype))
        if not isinstance(b, TensorBase):
            b = _constant(backends.module_of(a.data).asarray(b, dtype=a.data.dtype))
        return op(a, b)

    return function


def _prod(a: Any, axis: Any = None, keepdims: bool = False, **kwargs: Any) -> Any:
    if axis is None:
        return cumulative.prod(shape.reshape(a, (-1,)), 0, keepdims) if not keepdims else shape.reshape(
            cumulative.prod(shape.reshape(a, (-1,)), 0), (1,) * a.ndim)
    return cumulative.prod(a, axis, keepdims)


def _cumsum(a: Any, axis: Any = None, **kwargs: Any) -> Any:
    if axis is None:
        return cumulative.cumsum(shape.reshape(a, (-1,)), 0)
    return cumulative.cumsum(a, axis)


def _cumprod(a: Any, axis: Any = None, **kwargs: Any) -> Any:
    if axis is None:
        return cumulative.cumprod(shape.reshape(a, (-1,)), 0)
    return cumulative.cumprod(a, axis)


def _reshape(a: Any, newshape: Any = None, *, shape_: Any = None, **kwargs: Any) -> Any:
    target = kwargs.get("shape", newshape)
    if isinstance(target, int):
        target = (target,)
    return shape.reshape(_tensor(a), tuple(target))


def _transpose(a: Any, axes: Any = None) -> Any:
    if axes is None:  # the axes reversed (``g.T``): always a valid permutation, nothing to check
        return shape.Permute.apply(a, tuple(range(a.data.ndim - 1, -1, -1)))
    return shape.permute(a, tuple(axes))


def _swapaxes(a: Any, axis1: int, axis2: int) -> Any:
    return shape.transpose(a, axis1, axis2)


def _moveaxis(a: Any, source: Any, destination: Any) -> Any:
    source = [source] if isinstance(source, int) else list(source)
    destination = [destination] if isinstance(destination, int) else list(destination)
    source = [s % a.ndim for s in source]
    destination = [d % a.ndim for d in destination]
    order = [n for n in range(a.ndim) if n not in source]
    for dest, src in sorted(zip(destination, source)):
        order.insert(dest, src)
    return shape.permute(a, tuple(order))


def _expand_dims(a: Any, axis: Any) -> Any:
    axes = [axis] if isinstance(axis, int) else list(axis)
    ndim = a.ndim + len(axes)
    for ax in sorted(x % ndim for x in axes):
        a = shape.unsqueeze(a, ax)
    return a


def _squeeze(a: Any, axis: Any = None) -> Any:
    return shape.squeeze(a, _axes(axis))


def _broadcast_to(a: Any, shape_: Any) -> Any:
    return shape.broadcast_to(_tensor(a), tuple(shape_))


def _concatenate(arrays: Sequence[Any], axis: int = 0, **kwargs: Any) -> Any:
    return shape.cat([_tensor(a) for a in arrays], axis)


def _stack(arrays: Sequence[Any], axis: int = 0, **kwargs: Any) -> Any:
    return shape.stack([_tensor(a) for a in arrays], axis)


def _flip(a: Any, axis: Any = None) -> Any:
    dims = tuple(range(a.ndim)) if axis is None else ((axis,) if isinstance(axis, int) else tuple(axis))
    return ordering.flip(a, dims=dims)


def _roll(a: Any, shift: Any, axis: Any = None) -> Any:
    if axis is None:  # NumPy: over the flattened array, the shape kept
        return ordering.roll(a, int(shift))
    return ordering.roll(a, shift, axis)


def _diagonal(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Any:
    return rearranging.diagonal(a, offset, axis1, axis2)


def _triangle(op: Any) -> Any:
    def function(a: Any, k: int = 0) -> Any:
        return op(a, k)

    return function


def _pad(a: Any, pad_width: Any, mode: str = "constant", constant_values: Any = 0, **kwargs: Any) -> Any:
    """``np.pad`` in constant mode: the constant blocks joined on with ``cat`` along each axis
    (their gradient is the middle slice back)."""
    if mode != "constant" or kwargs or not isinstance(constant_values, (int, float)):
        raise TypeError(f"np.pad on graph values: only mode='constant' with one number, got mode={mode!r}")
    widths = np.broadcast_to(np.asarray(pad_width, dtype=np.int64), (a.ndim, 2))
    xp = backends.module_of(a.data)
    for axis, (before, after) in enumerate(widths.tolist()):
        parts = []
        for width in (before, after):
            block_shape = a.shape[:axis] + (width,) + a.shape[axis + 1 :]
            parts.append(_constant(xp.full(block_shape, constant_values, dtype=a.data.dtype)) if width else None)
        if parts[0] is not None or parts[1] is not None:
            a = shape.cat([p for p in (parts[0], a, parts[1]) if p is not None], axis)
    return a


def _index_put(a: Any, index: Any, values: Any, accumulate: bool = False) -> Any:
    """``indexing.scatter_into``'s graph form: a copy of ``a`` with ``values`` written (added) at ``index``."""
    a = _tensor(a)
    if not isinstance(a, TensorBase):
        a = _constant(np.asarray(a))
    if not isinstance(values, (TensorBase, int, float)):
        values = _constant(values)
    return index_put.IndexPut.apply(a, values, index, accumulate)


def _where(condition: Any, a: Any, b: Any) -> Any:
    return elementwise_logic.where(_data(condition), _tensor(a), _tensor(b))


def _clip(a: Any, a_min: Any = None, a_max: Any = None, **kwargs: Any) -> Any:
    return clamping.clamp(_tensor(a), _tensor(a_min) if a_min is not None else None,
                          _tensor(a_max) if a_max is not None else None)


def _astype(a: Any, dtype: Any, **kwargs: Any) -> Any:
    return conversion.cast(a, get_dtype(np.dtype(dtype).name))


def _copy(a: Any, **kwargs: Any) -> Any:
    return conversion.Clone.apply(a)


def _getitem(a: Any, index: Any) -> Any:
    # NumPy's rules, as the same line ``g[index]`` follows on arrays (not PyTorch's for an int
    # beside an index array, which ``indexing.getitem`` applies to a user's ``t[index]``).
    return indexing.Index.apply(a, index)


def _matmul(a: Any, b: Any, **kwargs: Any) -> Any:
    a, b = _tensor(a), _tensor(b)
    if not isinstance(a, TensorBase):
        a = _constant(np.asarray(a))
    if not isinstance(b, TensorBase):
        b = _constant(np.asarray(b))
    x, y = a.data, b.data
    if (x.ndim == 2 and y.ndim == 2 and x.shape[1] == y.shape[0] and x.dtype == y.dtype
            and x.dtype.kind == "f" and SWITCHES.autocast is None):
        # The products of a backward (g @ W, g.T @ x): matmul()'s checks would all pass.
        return linalg.MatMul.apply(a, b)
    return linalg.matmul(a, b)


def _square(a: Any, **kwargs: Any) -> Any:
    return arithmetic.mul(a, a)


def _zeros_like(a: Any, dtype: Any = None, **kwargs: Any) -> TensorBase:
    return _constant(backends.module_of(_data(a)).zeros_like(_data(a), dtype=dtype))


def _ones_like(a: Any, dtype: Any = None, **kwargs: Any) -> TensorBase:
    return _constant(backends.module_of(_data(a)).ones_like(_data(a), dtype=dtype))


_TABLE = {
    # arithmetic
    "add": _binary(arithmetic.add),
    "subtract": _binary(arithmetic.sub),
    "multiply": _binary(arithmetic.mul, masks=True),
    "divide": _binary(arithmetic.div),
    "power": _binary(arithmetic.pow),
    "negative": _unary(arithmetic.neg),
    "maximum": _extreme(elementwise_logic.maximum),
    "minimum": _extreme(elementwise_logic.minimum),
    "matmul": _matmul,
    "dot": _matmul,
    # elementwise functions
    "absolute": _unary(unary.abs),
    "exp": _unary(unary.exp),
    "exp2": _unary(unary.exp2),
    "expm1": _unary(unary.expm1),
    "log": _unary(unary.log),
    "log1p": _unary(unary.log1p),
    "log2": _unary(unary.log2),
    "log10": _unary(unary.log10),
    "sqrt": _unary(unary.sqrt),
    "square": _square,
    "reciprocal": _unary(unary.reciprocal),
    "tanh": _unary(unary.tanh),
    "sin": _unary(unary.sin),
    "cos": _unary(unary.cos),
    "tan": _unary(unary.tan),
    "clip": _clip,
    "where": _where,
    # no gradient: masks and signs
    "sign": _no_gradient(np.sign),
    "greater": _no_gradient(np.greater),
    "greater_equal": _no_gradient(np.greater_equal),
    "less": _no_gradient(np.less),
    "less_equal": _no_gradient(np.less_equal),
    "equal": _no_gradient(np.equal),
    "not_equal": _no_gradient(np.not_equal),
    "isnan": _no_gradient(np.isnan),
    "isfinite": _no_gradient(np.isfinite),
    "isneginf": _no_gradient(np.isneginf),  # attention's all-masked rows (attention.py)
    # piecewise constant: the derivative is 0 wherever it exists, so the result is a constant
    "floor_divide": _no_gradient(np.floor_divide),
    "floor": _no_gradient(np.floor),
    "ceil": _no_gradient(np.ceil),
    "trunc": _no_gradient(np.trunc),
    "rint": _no_gradient(np.rint),
    "round": _no_gradient(np.round),
    "zeros_like": _zeros_like,
    "ones_like": _ones_like,
    "empty_like": _zeros_like,
    # reductions
    "sum": _sum,
    "mean": _mean,
    "max": _max,
    "min": _min,
    "prod": _prod,
    "cumsum": _cumsum,
    "cumprod": _cumprod,
    # shapes
    "reshape": _reshape,
    "transpose": _transpose,
    "swapaxes": _swapaxes,
    "moveaxis": _moveaxis,
    "expand_dims": _expand_dims,
    "squeeze": _squeeze,
    "broadcast_to": _broadcast_to,
    "concatenate": _concatenate,
    "stack": _stack,
    "flip": _flip,
    "roll": _roll,
    "diagonal": _diagonal,
    "tril": _triangle(masking.tril),
    "triu": _triangle(masking.triu),
    "pad": _pad,
    "ascontiguousarray": lambda a, **kwargs: a,
    # indexing, dtypes, copies
    "getitem": _getitem,
    "index_put": _index_put,  # not a NumPy name: indexing.scatter_into's graph form
    "asarray": lambda a, dtype=None, **kwargs: a if dtype is None else _astype(a, dtype),
    "astype": _astype,
    "copy": _copy,
}

for _name, _implementation in _TABLE.items():
    register_numpy_function(_name, _implementation)

NAMES = tuple(sorted(_TABLE))

# ---------------------------------------------------------------------- the sequence ops' names
# What the backwards of recurrent.py and special.py need beyond the table above. ``erf`` is
# SciPy's and CuPy's name (``scipy.special.erf``), not NumPy's: ``special.erf_array`` calls it
# on graph values, so that GELU's Phi is recorded as the Erf op.
_SEQUENCE_TABLE = {
    "erf": _unary(special.erf),
}

for _name, _implementation in _SEQUENCE_TABLE.items():
    register_numpy_function(_name, _implementation)

NAMES = tuple(sorted((*NAMES, *_SEQUENCE_TABLE)))
