"""Elementwise math of two or three tensors beyond ``+ - * /``: ``atan2``, ``fmod``, ``lerp``,
and ``true_divide`` (``div``).

Each follows the rules of every binary op (``arithmetic.py``): operands promoted to a common
dtype, gradients reduced to each input's shape with ``unbroadcast``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitorch import backends
from minitorch.autograd.function import BackwardNode, Function
from minitorch.dtypes import SCALAR_TYPES, default_float
from minitorch.errors import MiniTorchError
from minitorch.functions.arithmetic import Operand, div, promote, unbroadcast
from minitorch.functions.conversion import cast
from minitorch.functions.unary import require_tensor
from minitorch.hints import Array, Gradients
from minitorch.switches import SWITCHES
from minitorch.tensor_base import T, TensorBase


class Atan2(Function):
    """The angle of the point (b, a): atan(a / b) in the right quadrant.

    d/da = b / (a**2 + b**2),  d/db = -a / (a**2 + b**2);  both 0 at the origin, as PyTorch.
    """

    @staticmethod
    def forward(ctx: BackwardNode, a: Array, b: Array) -> Array:
        ctx.save_for_backward(a, b)
        return ctx.xp.arctan2(a, b)

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        xp = ctx.xp
        norm = a * a + b * b
        # At a = b = 0 the formulas give 0 * inf = NaN; PyTorch takes the gradient as 0 there.
        scale = xp.where(norm == 0, 0, grad / xp.where(norm == 0, 1, norm)).astype(grad.dtype, copy=False)
        return (
            unbroadcast(scale * b, np.shape(a)) if need_a else None,
            unbroadcast(-scale * a, np.shape(b)) if need_b else None,
        )


class Fmod(Function):
    """a - trunc(a / b) * b: the remainder with the sign of a (C's fmod).

    d/da = 1,  d/db = -trunc(a / b).
    """

    @staticmethod
    def forward(ctx: BackwardNode, a: Array, b: Array) -> Array:
        ctx.save_for_backward(a, b)
        return ctx.xp.fmod(a, b)

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        return (
            unbroadcast(grad, np.shape(a)) if need_a else None,
            unbroadcast((-grad * ctx.xp.trunc(a / b)).astype(grad.dtype, copy=False), np.shape(b)) if need_b else None,
        )


class Lerp(Function):
    """start + weight * (end - start).

    d/dstart = 1 - weight,  d/dend = weight,  d/dweight = end - start.
    """

    @staticmethod
    def forward(ctx: BackwardNode, start: Array, end: Array, weight: Any) -> Array:
        xp = ctx.xp
        ctx.save_for_backward(start, end, weight)
        # PyTorch's formula: measured from the nearer end, so weight 1 gives exactly ``end``.
        diff = end - start
        if isinstance(weight, float):  # a number: choose the formula once, on the host
            out = start + weight * diff if abs(weight) < 0.5 else end - diff * (1 - weight)
        else:
            out = xp.where(xp.abs(weight) < 0.5, start + weight * diff, end - diff * (1 - weight))
        return out.astype(diff.dtype, copy=False)

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        start, end, weight = ctx.saved_tensors
        need_start, need_end, need_weight = ctx.needs_input_grad
        return (
            unbroadcast((grad * (1 - weight)).astype(grad.dtype, copy=False), np.shape(start)) if need_start else None,
            unbroadcast((grad * weight).astype(grad.dtype, copy=False), np.shape(end)) if need_end else None,
            unbroadcast(grad * (end - start), np.shape(weight)) if need_weight else None,
        )


# ---------------------------------------------------------------------- user functions
def atan2(input: T, other: T) -> T:
    """The angle in radians of the point (x=b, y=a), in (-pi, pi], with broadcasting."""
    require_tensor("atan2", input)
    require_tensor("atan2", other, "other", 2)
    input, other = promote(input, other)
    if input.data.dtype.kind != "f":
        input, other = cast(input, default_float()), cast(other, default_float())
    return Atan2.apply(input, other)


def fmod(input: T, other: Operand[T]) -> T:
    """The remainder of a / b with the sign of ``input`` (``remainder`` follows b's sign instead).

    Integer ``fmod(a, 0)`` is an error, as in PyTorch (floats give NaN).
    """
    require_tensor("fmod", input)
    input, other = promote(input, other)
    if input.data.dtype.kind == "b":  # only when both are bool: a bool divisor of a number tensor is 0 or 1
        raise NotImplementedError(f"fmod(): not implemented for bool tensors ({input.dtype} and {_dtype_name(other)})")
    if input.data.dtype.kind in "iu":
        _check_no_zero_divisor(input, other)
    return Fmod.apply(input, other)


def _check_no_zero_divisor(a: TensorBase, b: Operand) -> None:
    """Integer fmod by 0 has no answer: an error, raised without making Python wait for a GPU.

    A number is checked here. A tensor on a GPU is checked there, as ``bounds.py`` checks
    indices: reading the result back now would be a sync per call, so the error is raised at
    the next sync point instead (with ``set_debug(True)``: at once). On the CPU: at once.
    """
    error = MiniTorchError(
        "fmod(): integer division by zero (PyTorch: ZeroDivisionError); the divisor has a 0 element; "
        "use float tensors, e.g. a.float(), for NaN instead"
    )
    if a.data.size == 0:  # no element is divided
        return
    if not isinstance(b, TensorBase):
        if b == 0:
            raise error
        return
    has_zero = (b.data == 0).any()  # a 0-d array on b's device (False when b is empty)
    if SWITCHES.debug and bool(has_zero):
        raise error
    backends.of(b.data).check_on_device(has_zero, error)


def _dtype_name(value: Any) -> str:
    return str(value.dtype) if isinstance(value, TensorBase) else type(value).__name__


def lerp(input: T, end: T, weight: Operand[T]) -> T:
    """start + weight * (end - start), with broadcasting; ``weight`` is a number or a tensor.

    As in PyTorch, ``input`` and ``end`` (and a tensor ``weight`` with dimensions) must share
    one floating dtype: lerp does no type promotion.
    """
    require_tensor("lerp", input)
    require_tensor("lerp", end, "end", 2)
    if input.data.dtype.kind != "f":
        raise NotImplementedError(f"lerp(): not implemented for a {input.dtype} tensor; use floats, e.g. x.float()")
    for name, other in (("end", end), ("weight", weight)):
        # A 0-d weight tensor is exempt, as in PyTorch (it counts as a number).
        if isinstance(other, TensorBase) and (name == "end" or other.ndim > 0) and other.dtype != input.dtype:
            raise MiniTorchError(f"lerp(): expected dtype {input.dtype} for `{name}` but got dtype {other.dtype}")
    if isinstance(weight, TensorBase):
        weight = cast(weight, input.dtype)
    elif not isinstance(weight, SCALAR_TYPES):  # (a bool counts as 0 or 1, as in PyTorch)
        raise TypeError(f"lerp(): weight must be a number or a Tensor, not {type(weight).__name__}")
    else:
        weight = float(weight)
    return Lerp.apply(input, end, weight)


def true_divide(input: Operand[T], other: Operand[T]) -> T:
    """Alias of ``div``: a / b, always a floating result."""
    return div(input, other)
