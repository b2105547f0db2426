"""Arithmetic: + - * / ** // % and neg, and the two rules every binary op follows.

- **Type promotion** (``promote``): two operands are converted to PyTorch's common dtype
  (float beats int beats bool; shaped tensors decide before 0-d tensors, which decide
  before Python scalars; the rule on dtypes alone is ``dtypes.result_dtype``). The loser is
  converted with the recorded ``Cast`` op (``conversion.py``), so even the cast is in the graph.
- **Broadcasting, backwards** (``unbroadcast``): when ``a`` of shape (3, 1) and ``b`` of
  shape (1, 5) are added, NumPy stretches both to (3, 5). In backward the (3, 5) gradient
  must shrink back to each input's shape: every copy NumPy made of an element contributed
  to the output, so their gradients are summed. Every op's backward uses it. (The forward
  rule, which shape operands broadcast to, is ``minitorch.size.broadcast_shape``.)

Each op is a Function: ``forward`` on arrays, ``backward`` returning one gradient per
input, reduced to that input's shape with ``unbroadcast``. Inputs may be Python scalars
(``x * 2``); their gradient slot is simply not needed.
"""

from __future__ import annotations

from typing import Any, TypeAlias, TypeGuard

import numpy as np

from minitorch import backends
from minitorch.autograd.function import BackwardNode, Function
from minitorch.dtypes import SCALAR_TYPES, DType, default_float, result_dtype, scalar_category
from minitorch.errors import MiniTorchError, MiniTorchNotImplementedError
from minitorch.functions.autocast_policy import autocast_inputs
from minitorch.functions.conversion import cast
from minitorch.functions.out import write_out
from minitorch.hints import Array, Gradients, Shape
from minitorch.size import broadcast_shape
from minitorch.switches import SWITCHES
from minitorch.tensor_base import T, TensorBase

# ---------------------------------------------------------------------- the rules of binary ops
# An operand of a binary op: a Tensor or a Python number (NumPy numbers are accepted too).
Operand: TypeAlias = T | float  # Operand[T]: a tensor of class T, or a number


def as_operand(value: Any) -> Any:
    """What a Tensor operator accepts as its other operand: a Tensor, a number, or an array
    (wrapped as a tensor); None for anything else (the operator then returns NotImplemented)."""
    if isinstance(value, TensorBase):
        return value
    if isinstance(value, SCALAR_TYPES):
        return value
    if backends.is_backend_array(value):
        return TensorBase._make(value, None, False)
    return None


_PLAIN_NUMBERS = (float, int)  # exact types: a bool is a category of its own


def promote(a: Any, b: Any) -> tuple[Any, Any]:
    """Cast two operands of a binary op to PyTorch's common dtype.

    ``a`` and ``b`` are Tensors or Python scalars; scalars stay scalars (NumPy keeps the
    array's dtype for them) and only tensors are cast.
    """
    a_t, b_t = isinstance(a, TensorBase), isinstance(b, TensorBase)
    if a_t and b_t and a.data.dtype == b.data.dtype:
        return a, b
    # A float tensor and a Python float or int: the tensor's dtype, nothing to cast (the
    # common ``grad * 0.5`` of a backward recorded under create_graph, ``sum()``'s ``0 + t``).
    if a_t and type(b) in _PLAIN_NUMBERS and a.data.dtype.kind == "f":
        return a, b
    if b_t and type(a) in _PLAIN_NUMBERS and b.data.dtype.kind == "f":
        return a, b
    # A NumPy scalar (np.float64 from x.mean().item()'s cousins, np.sqrt(2), ...) counts as a
    # Python number, as in PyTorch: left as is, NumPy would let an np.float64 turn a float32
    # array into float64.
    if isinstance(a, np.generic):
        a = a.item()
    if isinstance(b, np.generic):
        b = b.item()
    shaped: list[DType] = []
    zero_dim: list[DType] = []
    scalars: list[int] = []
    for v in (a, b):
        if isinstance(v, TensorBase):
            (shaped if v.data.ndim else zero_dim).append(v.dtype)
        else:
            scalars.append(scalar_category(v))
    target = result_dtype(shaped, zero_dim, scalars)
    if a_t:
        a = cast(a, target)
    if b_t:
        b = cast(b, target)
    return a, b


def unbroadcast(grad: Array, shape: Shape) -> Array:
    """Sum ``grad`` over the dimensions that broadcasting added or stretched, to ``shape``."""
    if grad.shape == shape:
        return grad
    extra = grad.ndim - len(shape)
    if extra < 0:  # a value with extra leading 1s, written with t[i] = value (PyTorch allows it)
        grad = grad.reshape((1,) * -extra + grad.shape)
        extra = 0
    # Leading dimensions that broadcasting prepended, then the size-1 ones it stretched.
    axes = tuple(range(extra)) + tuple(
        extra + i for i, size in enumerate(shape) if size == 1 and grad.shape[extra + i] != 1
    )
    if axes:
        grad = grad.sum(axis=axes)
    return grad.reshape(shape)


# ---------------------------------------------------------------------- the ops
class Add(Function):
    """a + b.   d/da = 1, d/db = 1."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array, b: Array) -> Array:
        ctx.a_shape, ctx.b_shape = np.shape(a), np.shape(b)
        return a + b

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        need_a, need_b = ctx.needs_input_grad
        return (
            unbroadcast(grad, ctx.a_shape) if need_a else None,
            unbroadcast(grad, ctx.b_shape) if need_b else None,
        )


class Sub(Function):
    """a - b.   d/da = 1, d/db = -1."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array, b: Array) -> Array:
        ctx.a_shape, ctx.b_shape = np.shape(a), np.shape(b)
        return a - b

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        need_a, need_b = ctx.needs_input_grad
        return (
            unbroadcast(grad, ctx.a_shape) if need_a else None,
            unbroadcast(-grad, ctx.b_shape) if need_b else None,
        )


class Mul(Function):
    """a * b.   d/da = b, d/db = a."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array, b: Array) -> Array:
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        return (
            unbroadcast(grad * b, np.shape(a)) if need_a else None,
            unbroadcast(grad * a, np.shape(b)) if need_b else None,
        )


class Div(Function):
    """a / b.   d/da = 1/b, d/db = -a/b**2."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array, b: Array) -> Array:
        ctx.save_for_backward(a, b)
        return a / b

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        grad_over_b = grad / b
        return (
            unbroadcast(grad_over_b, np.shape(a)) if need_a else None,
            unbroadcast(-grad_over_b * a / b, np.shape(b)) if need_b else None,
        )


class Neg(Function):
    """-a.   d/da = -1."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array) -> Array:
        if a.dtype.kind == "b":  # NumPy raises a TypeError; PyTorch a RuntimeError
            raise MiniTorchError("neg: negation (-) of a bool tensor is not supported; use ~ (logical not) instead")
        return -a

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        return (-grad,)


class Pow(Function):
    """a ** b.   d/da = b * a**(b-1),  d/db = a**b * log(a)."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array, b: Array) -> Array:
        dtype = (a if isinstance(a, ctx.xp.ndarray) else b).dtype
        if dtype.kind in "iu" and isinstance(b, ctx.xp.ndarray) and bool((b < 0).any()):
            out = _int_pow_negative(ctx.xp, a, b)
        elif isinstance(b, float) and b == -0.5 and dtype.kind == "f" and dtype.itemsize >= 4:
            # PyTorch computes float32/64 x ** -0.5 as rsqrt(x): -0.0 gives -inf, -inf nan.
            with np.errstate(divide="ignore", invalid="ignore"):  # (CuPy has no errstate)
                out = 1 / ctx.xp.sqrt(a)
        else:
            out = a**b
        if out.dtype != dtype:  # NumPy turns bool ** bool into int8; PyTorch keeps bool
            out = out.astype(dtype)
        ctx.save_for_backward(a, b, out)
        return out

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        a, b, out = ctx.saved_tensors
        xp = ctx.xp
        need_a, need_b = ctx.needs_input_grad
        grad_a = grad_b = None
        if need_a:
            # As PyTorch: where the exponent is 0 the gradient is 0 (not 0 * a**-1 = nan at 0).
            if np.shape(b) == () and not hasattr(b, "dtype"):
                # A Python-number exponent (x ** 2): decide on the host, no array condition.
                grad_a = xp.zeros_like(grad) if b == 0 else grad * b * a ** (b - 1)
            else:
                grad_a = xp.where(b == 0, 0, grad * b * a ** (b - 1))
            grad_a = unbroadcast(grad_a.astype(out.dtype, copy=False), np.shape(a))
        if need_b:
            # d/db at a == 0 is taken as 0 for b >= 0 (0**b is flat there), as PyTorch does.
            log_a = xp.log(xp.where((a == 0) & (b >= 0), 1, a))
            grad_b = unbroadcast((grad * out * log_a).astype(out.dtype, copy=False), np.shape(b))
        return grad_a, grad_b


def _int_pow_negative(xp: Any, a: Array, b: Array) -> Array:
    """Integer a ** b where some exponents are negative, as PyTorch: 1/a**|b| rounded toward
    zero, which is 1 for a == 1, +-1 for a == -1 and 0 otherwise (0 for a == 0 too)."""
    negative = b < 0
    out = a ** xp.where(negative, 0, b)
    minus_one = xp.where(b % 2 == 0, 1, -1)
    return xp.where(negative, xp.where(a == 1, 1, xp.where(a == -1, minus_one, 0)), out)


# ---------------------------------------------------------------------- user functions
def add(a: Operand[T], b: Operand[T], *, alpha: float = 1, out: T | None = None) -> T:
    """a + alpha * b with broadcasting; ``out=`` writes the result into a given tensor."""
    if alpha != 1:
        b = mul(b, alpha)
    a, b = promote(a, b)
    result = Add.apply(a, b)
    return result if out is None else write_out(out, result, "add")


def sub(a: Operand[T], b: Operand[T], *, alpha: float = 1) -> T:
    """a - alpha * b with broadcasting; a bool operand is refused, as in PyTorch.

    PyTorch refuses any bool operand, not only two bool tensors: ``x - mask`` and
    ``x - True`` raise there too (checked before promotion turns the bool into a number).
    """
    if _is_bool(a) or _is_bool(b):
        raise MiniTorchError(
            f"sub: subtraction, the - operator, with a bool operand is not supported "
            f"({_describe(a)} - {_describe(b)}); for a mask use ~ (logical not) or ^ (logical xor)"
        )
    if alpha != 1:
        b = mul(b, alpha)
    a, b = promote(a, b)
    return Sub.apply(a, b)


def _is_bool(value: Any) -> bool:
    """True for a Python bool or a bool tensor."""
    return isinstance(value, bool) or (isinstance(value, TensorBase) and value.data.dtype.kind == "b")


def _describe(value: Any) -> str:
    return f"{value.dtype} tensor of shape {tuple(value.shape)}" if isinstance(value, TensorBase) else repr(value)


def mul(a: Operand[T], b: Operand[T], *, out: T | None = None) -> T:
    """a * b with broadcasting; ``out=`` writes the result into a given tensor."""
    a, b = promote(a, b)
    result = Mul.apply(a, b)
    return result if out is None else write_out(out, result, "mul")


def div(a: Operand[T], b: Operand[T]) -> T:
    """a / b with broadcasting; integer inputs give a float result, as in PyTorch."""
    a, b = promote(a, b)
    if not _is_float(a) and not _is_float(b):
        a, b = _to_default_float(a), _to_default_float(b)
    return Div.apply(a, b)


def neg(a: T) -> T:
    """-a."""
    return Neg.apply(a)


def pow(a: Operand[T], b: Operand[T]) -> T:
    """a ** b (either may be a Python number)."""
    if isinstance(b, TensorBase) and b.data.dtype.kind == "b" and _is_bool(a):
        # PyTorch has no bool pow kernel ("pow" not implemented for 'Bool'); bool ** True works.
        raise MiniTorchNotImplementedError(f"pow: not implemented for bool ** bool ({_describe(a)} ** {_describe(b)})")
    a, b = promote(a, b)
    if isinstance(a, TensorBase) and a.data.dtype.kind in "iu" and _is_int_number(b) and b < 0:
        raise MiniTorchError(
            f"pow(): integers to negative integer powers are not allowed ({a.dtype} tensor ** {b}); "
            f"use a float tensor, e.g. x.float() ** {b}"
        )
    if SWITCHES.autocast is not None:  # PyTorch's autocast list for the device decides
        a, b = autocast_inputs("pow", a, b)  # float32 under CUDA autocast
    return Pow.apply(a, b)


def _is_int_number(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_float(value: Any) -> bool:
    if isinstance(value, TensorBase):
        return value.data.dtype.kind == "f"
    return isinstance(value, float)


def _to_default_float(value: Operand) -> Operand:
    if isinstance(value, TensorBase):
        return cast(value, default_float())
    return float(value)


class FloorDivide(Function):
    """a // b (floor(a / b)); like PyTorch, in the graph but with no derivative."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array, b: Array) -> Array:
        return _floor_op(ctx.xp, "floor_divide", a, b)

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        raise MiniTorchError("floor_divide: derivative for floor_divide is not implemented (as in PyTorch)")


class Remainder(Function):
    """a % b with the sign of b.   d/da = 1, d/db = -floor(a / b)."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array, b: Array) -> Array:
        # PyTorch has no derivative for ``number % tensor`` (remainder.Scalar_Tensor).
        ctx.scalar_left = not isinstance(a, ctx.xp.ndarray)
        ctx.save_for_backward(a, b)
        return _floor_op(ctx.xp, "remainder", a, b)

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        if ctx.scalar_left:
            raise MiniTorchError("remainder: derivative for number % tensor is not implemented (as in PyTorch)")
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        return (
            unbroadcast(grad, np.shape(a)) if need_a else None,
            unbroadcast(-grad * ctx.xp.floor_divide(a, b), np.shape(b)) if need_b else None,
        )


def _floor_op(xp: Any, op: str, a: Any, b: Any) -> Array:
    """xp.floor_divide / xp.remainder in the promoted dtype, with PyTorch's errors."""
    ref: Array = a if isinstance(a, xp.ndarray) else b
    # Checked first so a shape mismatch is PyTorch's RuntimeError, not NumPy's ValueError.
    broadcast_shape(np.shape(a), np.shape(b), op=op)
    if ref.dtype.kind == "b":
        raise MiniTorchNotImplementedError(f"{op}: not implemented for bool tensors (as PyTorch: no 'Bool' kernel)")
    if ref.dtype.kind in "iu" and bool(xp.any(xp.asarray(b) == 0)):
        raise MiniTorchError(
            f"{op}: integer division by zero (PyTorch: ZeroDivisionError); the divisor has a 0 "
            "element; divide float tensors instead, e.g. a.float()"
        )
    return xp.asarray(getattr(xp, op)(a, b)).astype(ref.dtype, copy=False)


def floor_divide(a: Operand[T], b: Operand[T]) -> T:
    """``a // b`` elementwise with PyTorch's dtypes; recorded, but backward raises (as PyTorch).

    Integer division by zero is an error, as in PyTorch (NumPy would give 0 silently).
    """
    a, b = promote(a, b)
    return FloorDivide.apply(a, b)


def remainder(a: Operand[T], b: Operand[T]) -> T:
    """``a % b`` elementwise (the sign of ``b``, as Python); integer ``% 0`` is an error, as in
    PyTorch."""
    a, b = promote(a, b)
    return Remainder.apply(a, b)
