"""Elementwise tests and logic: ``isnan isinf isfinite``, ``logical_and/or/xor/not``,
the comparison functions ``lt le gt ge eq ne``, ``isclose``/``allclose``/``equal``, the
small predicates ``numel``, ``is_tensor``, ``is_floating_point``, and the ops that pick by a
comparison: ``maximum``, ``minimum``, ``where``.

The tests' results are bool tensors (or Python values), never part of the graph: a
comparison has no useful gradient. ``maximum``, ``minimum`` and ``where`` are recorded ops:
the gradient goes to the value that was picked (split evenly on a tie). Like PyTorch, the
functions want Tensors where PyTorch does (``torch.logical_and(x, 0)`` is a TypeError there
too); the operators (``x < 0``) accept numbers.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitorch import backends
from minitorch.autograd.function import BackwardNode, Function
from minitorch.dtypes import SCALAR_TYPES, result_dtype, scalar_category
from minitorch.errors import MiniTorchError
from minitorch.functions.arithmetic import Operand, promote, unbroadcast
from minitorch.hints import Array, Gradients
from minitorch.size import broadcast_shape
from minitorch.tensor_base import T, TensorBase

# The names PyTorch uses for dtypes in its "Float did not match Double" message.
_SCALAR_NAMES = {"float16": "Half", "float32": "Float", "float64": "Double", "int64": "Long", "bool": "Bool"}


def _tensor(op: str, value: Any, name: str = "input", position: int = 1) -> None:
    """PyTorch's TypeError when an argument that must be a Tensor is a number (or anything else)."""
    if not isinstance(value, TensorBase):
        raise TypeError(f"{op}(): argument '{name}' (position {position}) must be Tensor, not {type(value).__name__}")


def _tensor_or_number(op: str, value: Any) -> None:
    """PyTorch's TypeError when ``other`` is neither a Tensor nor a number (None, a list...)."""
    if not isinstance(value, (TensorBase, *SCALAR_TYPES)):
        raise TypeError(f"{op}(): argument 'other' must be a Tensor or a number, not {type(value).__name__}")


def _bool_result(out: Array) -> Any:
    return TensorBase._make(out, None, False)


# ---------------------------------------------------------------------- tests of each element
def isnan(input: T) -> T:
    """True where an element is NaN (never for integer tensors)."""
    _tensor("isnan", input)
    xp = backends.module_of(input.data)
    return _bool_result(
        xp.isnan(input.data) if input.data.dtype.kind == "f" else xp.zeros(input.data.shape, dtype=bool)
    )


def isinf(input: T) -> T:
    """True where an element is +inf or -inf (never for integer tensors)."""
    _tensor("isinf", input)
    xp = backends.module_of(input.data)
    return _bool_result(
        xp.isinf(input.data) if input.data.dtype.kind == "f" else xp.zeros(input.data.shape, dtype=bool)
    )


def isfinite(input: T) -> T:
    """True where an element is neither NaN nor infinite (always for integer tensors)."""
    _tensor("isfinite", input)
    xp = backends.module_of(input.data)
    return _bool_result(
        xp.isfinite(input.data) if input.data.dtype.kind == "f" else xp.ones(input.data.shape, dtype=bool)
    )


# ---------------------------------------------------------------------- logic
def logical_not(input: T) -> T:
    """True where an element is zero (False), for any dtype."""
    _tensor("logical_not", input)
    return _bool_result(backends.module_of(input.data).logical_not(input.data))


def logical_and(input: T, other: T) -> T:
    """True where both elements are nonzero, with broadcasting, for any dtypes."""
    return _logical("logical_and", input, other)


def logical_or(input: T, other: T) -> T:
    """True where either element is nonzero, with broadcasting, for any dtypes."""
    return _logical("logical_or", input, other)


def logical_xor(input: T, other: T) -> T:
    """True where exactly one of the two elements is nonzero, with broadcasting."""
    return _logical("logical_xor", input, other)


def _logical(op: str, a: T, b: T) -> T:
    _tensor(op, a)
    _tensor(op, b, "other", 2)
    _same_device(op, a, b)
    broadcast_shape(tuple(a.shape), tuple(b.shape), op=op)
    xp = backends.module_of(a.data)
    return _bool_result(getattr(xp, op)(a.data, b.data))


def _same_device(op: str, a: TensorBase, b: TensorBase) -> None:
    if a.device != b.device:
        raise MiniTorchError(f"{op}(): expected both tensors on the same device, got {a.device} and {b.device}")


# ---------------------------------------------------------------------- comparisons
def compare(ufunc_name: str, input: TensorBase, other: Any) -> Any:
    """``xp.<ufunc_name>(input, other)`` (``equal``, ``less`` ...): a bool tensor, never part of the graph.

    This is what the operators ``== != < <= > >=`` compute. ``other`` may be a tensor, a number
    or an array; for anything else it returns NotImplemented, so Python tries the other operand.
    """
    if isinstance(other, TensorBase):
        value = other.data
    elif isinstance(other, SCALAR_TYPES) or backends.is_backend_array(other):
        value = other
    else:
        return NotImplemented
    xp = backends.module_of(input.data)
    try:
        out = getattr(xp, ufunc_name)(input.data, value)
    except ValueError as exc:
        broadcast_shape(input.shape, getattr(value, "shape", ()), op=ufunc_name)
        raise exc
    return _bool_result(xp.asarray(out))


# PyTorch's function forms of the comparisons want a Tensor first (``torch.lt(2, x)`` is a
# TypeError) and a Tensor or number second; the operators (``x < 2``) accept more.
_UFUNCS = {"eq": "equal", "ne": "not_equal", "lt": "less", "le": "less_equal", "gt": "greater", "ge": "greater_equal"}


def _compare(op: str, input: T, other: Any) -> T:
    """``compare`` once both arguments are checked."""
    _tensor(op, input)
    _tensor_or_number(op, other)
    result: T = compare(_UFUNCS[op], input, other)
    return result


def eq(input: T, other: Any) -> T:
    """``a == b`` elementwise (a bool tensor)."""
    return _compare("eq", input, other)


def ne(input: T, other: Any) -> T:
    """``a != b`` elementwise."""
    return _compare("ne", input, other)


def lt(input: T, other: Any) -> T:
    """``a < b`` elementwise."""
    return _compare("lt", input, other)


def le(input: T, other: Any) -> T:
    """``a <= b`` elementwise."""
    return _compare("le", input, other)


def gt(input: T, other: Any) -> T:
    """``a > b`` elementwise."""
    return _compare("gt", input, other)


def ge(input: T, other: Any) -> T:
    """``a >= b`` elementwise."""
    return _compare("ge", input, other)


# ---------------------------------------------------------------------- closeness and equality
def isclose(
    input: T, other: T, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
) -> T:
    """True where ``|a - b| <= atol + rtol * |b|`` (equal infinities count as close).

    Both tensors must have the same dtype, as in PyTorch (compare ``a.double()`` with a
    float64 one); NaN is close to NaN only with ``equal_nan=True``.
    """
    _tensor("isclose", input)
    _tensor("isclose", other, "other", 2)
    if input.dtype != other.dtype:
        names = (_SCALAR_NAMES.get(t.dtype.name, t.dtype.name) for t in (input, other))
        raise MiniTorchError("isclose(): {} did not match {}; convert one first, e.g. b.to(a.dtype)".format(*names))
    if rtol < 0 or atol < 0:
        raise MiniTorchError(f"isclose(): rtol and atol must be >= 0, got rtol={rtol}, atol={atol}")
    _same_device("isclose", input, other)
    broadcast_shape(tuple(input.shape), tuple(other.shape), op="isclose")
    xp = backends.module_of(input.data)
    a_data, b_data = input.data, other.data
    if a_data.dtype.kind != "f":  # integers (and bools): PyTorch compares them exactly when rtol = atol = 0
        a_data, b_data = a_data.astype("float64"), b_data.astype("float64")
    return _bool_result(xp.isclose(a_data, b_data, rtol=rtol, atol=atol, equal_nan=equal_nan))


def allclose(
    input: TensorBase, other: TensorBase, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
) -> bool:
    """True when every element of ``input`` is close to ``other``'s (see ``isclose``): a Python bool."""
    return bool(isclose(input, other, rtol, atol, equal_nan).data.all())


def equal(input: TensorBase, other: TensorBase) -> bool:
    """True when both tensors have the same shape and the same values (NaN never equals NaN)."""
    _tensor("equal", input)
    _tensor("equal", other, "other", 2)
    _same_device("equal", input, other)
    if tuple(input.shape) != tuple(other.shape):
        return False
    return bool((input.data == other.data).all())


# ---------------------------------------------------------------------- predicates
def numel(input: TensorBase) -> int:
    """The number of elements of ``input``."""
    _tensor("numel", input)
    return input.numel()


def is_tensor(obj: Any) -> bool:
    """True when ``obj`` is a MiniTorch Tensor."""
    return isinstance(obj, TensorBase)


def is_floating_point(input: TensorBase) -> bool:
    """True for a tensor of a floating dtype (float16, float32, float64)."""
    _tensor("is_floating_point", input)
    return input.is_floating_point()


# ---------------------------------------------------------------------- picking by comparison: maximum, minimum, where
class Maximum(Function):
    """Elementwise max(a, b); at ties the gradient is split evenly, as in PyTorch."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array, b: Array) -> Array:
        ctx.save_for_backward(a, b)
        return ctx.xp.maximum(a, b)

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        a, b = ctx.saved_tensors
        return _split_by_winner(ctx, grad, a < b, a > b, a, b)


class Minimum(Function):
    """Elementwise min(a, b); at ties the gradient is split evenly, as in PyTorch."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array, b: Array) -> Array:
        ctx.save_for_backward(a, b)
        return ctx.xp.minimum(a, b)

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        a, b = ctx.saved_tensors
        return _split_by_winner(ctx, grad, a > b, a < b, a, b)


def _split_by_winner(ctx: BackwardNode, grad: Array, a_loses: Array, b_loses: Array, a: Array, b: Array) -> Gradients:
    """Gradient share of a and b for maximum/minimum: the winner takes all, ties halve.

    Written as "everything but the loser's share", as PyTorch does: where a NaN meets a
    number neither side loses (every comparison is False), so both get the full gradient.
    """
    tie = 0.5 * (a == b)
    need_a, need_b = ctx.needs_input_grad
    return (
        unbroadcast((grad * (1 - a_loses - tie)).astype(grad.dtype, copy=False), np.shape(a)) if need_a else None,
        unbroadcast((grad * (1 - b_loses - tie)).astype(grad.dtype, copy=False), np.shape(b)) if need_b else None,
    )


class Where(Function):
    """where(condition, a, b): a where the condition holds, b elsewhere."""

    @staticmethod
    def forward(ctx: BackwardNode, condition: Array, a: Array, b: Array) -> Array:
        ctx.save_for_backward(condition)
        ctx.a_shape, ctx.b_shape = np.shape(a), np.shape(b)
        return ctx.xp.where(condition, a, b)

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        (condition,) = ctx.saved_tensors
        _, need_a, need_b = ctx.needs_input_grad
        zero = grad.dtype.type(0)
        return (
            None,
            unbroadcast(ctx.xp.where(condition, grad, zero), ctx.a_shape) if need_a else None,
            unbroadcast(ctx.xp.where(condition, zero, grad), ctx.b_shape) if need_b else None,
        )


def maximum(a: T, b: T) -> T:
    """Elementwise maximum of two tensors (a number is refused, as in PyTorch: use clamp)."""
    _both_tensors("maximum", a, b)
    a, b = promote(a, b)
    return Maximum.apply(a, b)


def minimum(a: T, b: T) -> T:
    """Elementwise minimum of two tensors (a number is refused, as in PyTorch: use clamp)."""
    _both_tensors("minimum", a, b)
    a, b = promote(a, b)
    return Minimum.apply(a, b)


def _both_tensors(op: str, a: Any, b: Any) -> None:
    for name, value in (("input", a), ("other", b)):
        if not isinstance(value, TensorBase):
            raise TypeError(
                f"{op}(): argument '{name}' must be Tensor, not {type(value).__name__}; "
                f"for a number use clamp(min=...) / clamp(max=...)"
            )


def where(condition: T | Array, a: Operand[T], b: Operand[T]) -> T:
    """Elements of ``a`` where ``condition`` is true, else of ``b`` (scalars allowed).

    ``condition`` must be a bool tensor, as in PyTorch: a float one is refused, never read
    as "nonzero" (``where(x, a, b)`` for ``where(x > 0, a, b)`` is a common slip).
    """
    data = condition.data if isinstance(condition, TensorBase) else condition
    dtype = getattr(data, "dtype", None)
    if dtype is None or dtype.kind != "b":
        shown: Any = type(condition).__name__ if dtype is None else dtype
        if isinstance(condition, TensorBase):
            shown = condition.dtype
        raise MiniTorchError(
            f"where(): expected condition to be a boolean tensor, but got {shown}; "
            "compare first, e.g. where(x > 0, a, b), or convert with condition.bool()"
        )
    # Passed as a Tensor so that Function.apply checks it is on the same device as a and b.
    condition = TensorBase._make(data, None, False)
    a, b = promote(a, b)
    if not isinstance(a, TensorBase) and not isinstance(b, TensorBase):
        # Two Python numbers: PyTorch's scalar dtype (1.0 -> the default float, not NumPy's float64).
        target = result_dtype([], [], [scalar_category(a), scalar_category(b)])
        a = TensorBase._make(backends.module_of(data).asarray(a, dtype=target.np_dtype), None, False)
    return Where.apply(condition, a, b)
