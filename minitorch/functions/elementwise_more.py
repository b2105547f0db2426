"""More elementwise math: rounding, reciprocal and friends, atan2, lerp, fmod, clamp aliases.

- ``round floor ceil trunc sign``: piecewise constant, so their gradient is 0 everywhere
  (PyTorch records them all the same, with a zero backward); integer inputs stay integer.
- ``reciprocal rsqrt log2 log10 expm1 exp2 tan``: compute in floating point (an integer
  input becomes the default float), each backward from the output where it can.
- ``square`` (``a ** 2``), ``atan2``, ``lerp``, ``fmod`` and ``true_divide`` (``div``);
  ``clip``, ``clamp_min`` and ``clamp_max`` (forms of ``clamp``) are in ``clamping.py``.

The comparisons and tests (``isnan``, ``logical_and``, ``allclose``...) return bool
tensors outside the graph: they are in ``elementwise_logic.py``.
"""

from __future__ import annotations

import math
from typing import Any

from minitorch import backends
from minitorch.autograd.function import BackwardNode, Function
from minitorch.dtypes import SCALAR_TYPES, default_float
from minitorch.errors import MiniTorchError, check_int
from minitorch.functions.arithmetic import div, pow
from minitorch.functions.autocast_policy import autocast_inputs
from minitorch.functions.broadcast import unbroadcast
from minitorch.functions.promotion import Operand, cast, promote
from minitorch.hints import Array, Gradients
from minitorch.random import default_generator
from minitorch.switches import SWITCHES
from minitorch.tensor import Tensor

_LN2 = math.log(2.0)
_LN10 = math.log(10.0)


def _shape(value: Any) -> tuple[int, ...]:
    return getattr(value, "shape", ())


# ---------------------------------------------------------------------- piecewise constant
class _Flat(Function):
    """Base of the piecewise-constant ops: the gradient is 0 everywhere (as PyTorch's)."""

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        return (ctx.xp.zeros_like(grad),) + (None,) * (len(ctx.needs_input_grad) - 1)


class Round(_Flat):
    """Round to ``decimals`` places, halves to even (2.5 -> 2, as PyTorch).   d/da = 0."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array, decimals: int) -> Array:
        return ctx.xp.round(a, decimals)


class Floor(_Flat):
    """The largest integer <= a.   d/da = 0."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array) -> Array:
        return ctx.xp.floor(a)


class Ceil(_Flat):
    """The smallest integer >= a.   d/da = 0."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array) -> Array:
        return ctx.xp.ceil(a)


class Trunc(_Flat):
    """a with its fractional part dropped (rounded toward zero).   d/da = 0."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array) -> Array:
        return ctx.xp.trunc(a)


class Sign(_Flat):
    """-1, 0 or 1 by the sign of a (0 for NaN, as PyTorch).   d/da = 0."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array) -> Array:
        if a.dtype.kind == "b":
            return a.copy()  # sign(True) is True: a bool stays bool
        # (a > 0) - (a < 0) rather than xp.sign: NumPy's sign(NaN) is NaN, PyTorch's is 0.
        return ((a > 0).astype(a.dtype) - (a < 0).astype(a.dtype)).astype(a.dtype, copy=False)


# ---------------------------------------------------------------------- smooth, one input
class Reciprocal(Function):
    """1 / a.   d/da = -1/a**2 = -out**2."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array) -> Array:
        out = 1 / a
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        (out,) = ctx.saved_tensors
        return (-grad * (out * out),)


class Rsqrt(Function):
    """1 / sqrt(a).   d/da = -a**(-3/2) / 2 = -out**3 / 2."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array) -> Array:
        out = 1 / ctx.xp.sqrt(a)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        (out,) = ctx.saved_tensors
        return (-0.5 * grad * out * out * out,)


class Log2(Function):
    """log2(a).   d/da = 1 / (a ln 2)."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array) -> Array:
        ctx.save_for_backward(a)
        return ctx.xp.log2(a)

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        (a,) = ctx.saved_tensors
        return (grad / (a * _LN2),)


class Log10(Function):
    """log10(a).   d/da = 1 / (a ln 10)."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array) -> Array:
        ctx.save_for_backward(a)
        return ctx.xp.log10(a)

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        (a,) = ctx.saved_tensors
        return (grad / (a * _LN10),)


class Expm1(Function):
    """exp(a) - 1, accurate for tiny a (where exp(a) rounds to 1).   d/da = exp(a) = out + 1."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array) -> Array:
        out = ctx.xp.expm1(a)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        (out,) = ctx.saved_tensors
        return (grad * (out + 1),)


class Exp2(Function):
    """2 ** a.   d/da = 2**a ln 2 = out ln 2."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array) -> Array:
        out = ctx.xp.exp2(a)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        (out,) = ctx.saved_tensors
        return (grad * out * _LN2,)


class Tan(Function):
    """tan(a).   d/da = 1 / cos(a)**2 = 1 + out**2."""

    @staticmethod
    def forward(ctx: BackwardNode, a: Array) -> Array:
        out = ctx.xp.tan(a)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        (out,) = ctx.saved_tensors
        return (grad * (1 + out * out),)


# ---------------------------------------------------------------------- two or three inputs
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
            unbroadcast(scale * b, _shape(a)) if need_a else None,
            unbroadcast(-scale * a, _shape(b)) if need_b else None,
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
            unbroadcast(grad, _shape(a)) if need_a else None,
            unbroadcast((-grad * ctx.xp.trunc(a / b)).astype(grad.dtype, copy=False), _shape(b)) if need_b else None,
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
            unbroadcast((grad * (1 - weight)).astype(grad.dtype, copy=False), _shape(start)) if need_start else None,
            unbroadcast((grad * weight).astype(grad.dtype, copy=False), _shape(end)) if need_end else None,
            unbroadcast(grad * (end - start), _shape(weight)) if need_weight else None,
        )


# ---------------------------------------------------------------------- user functions
def _tensor(op: str, value: Any, name: str = "input", position: int = 1) -> None:
    """PyTorch's TypeError when an argument that must be a Tensor is a number (or anything else)."""
    if not isinstance(value, Tensor):
        raise TypeError(f"{op}(): argument '{name}' (position {position}) must be Tensor, not {type(value).__name__}")


def _not_bool(op: str, a: Tensor) -> None:
    if a.data.dtype.kind == "b":
        raise NotImplementedError(f"{op}(): not implemented for a bool tensor (shape {tuple(a.shape)}); convert first")


def _float_math(op: str, a: Tensor) -> Tensor:
    """Math functions compute in floating point: integer and bool tensors become the default float.

    Inside autocast they run in float32 where PyTorch's list for the device says so.
    """
    _tensor(op, a)
    if a.data.dtype.kind != "f":
        a = cast(a, default_float())
    (a,) = autocast_inputs(op, a)
    return a


def round(input: Tensor, *, decimals: int = 0) -> Tensor:
    """Round each element to ``decimals`` places, halves to even (0.5 -> 0, 1.5 -> 2)."""
    _tensor("round", input)
    _not_bool("round", input)
    decimals = check_int("round", "decimals", decimals)
    if input.data.dtype.kind != "f":
        if decimals != 0:  # as PyTorch: integer tensors only round to whole numbers
            raise NotImplementedError(f"round(): decimals={decimals} not implemented for a {input.dtype} tensor")
        return input.clone()
    return Round.apply(input, decimals)


def floor(input: Tensor) -> Tensor:
    """The largest integer <= each element (integer tensors are returned as a copy)."""
    return _rounding("floor", Floor, input)


def ceil(input: Tensor) -> Tensor:
    """The smallest integer >= each element (integer tensors are returned as a copy)."""
    return _rounding("ceil", Ceil, input)


def trunc(input: Tensor) -> Tensor:
    """Each element rounded toward zero (integer tensors are returned as a copy)."""
    return _rounding("trunc", Trunc, input)


def _rounding(op: str, function: type[Function], a: Tensor) -> Tensor:
    _tensor(op, a)
    _not_bool(op, a)
    return function.apply(a) if a.data.dtype.kind == "f" else a.clone()


def sign(input: Tensor) -> Tensor:
    """-1, 0 or 1 for each element by its sign (a bool tensor stays bool); zero gradient."""
    _tensor("sign", input)
    return Sign.apply(input)


def reciprocal(input: Tensor) -> Tensor:
    """1 / each element (integer inputs give floats)."""
    return Reciprocal.apply(_float_math("reciprocal", input))


def rsqrt(input: Tensor) -> Tensor:
    """1 / sqrt(each element)."""
    return Rsqrt.apply(_float_math("rsqrt", input))


def log2(input: Tensor) -> Tensor:
    """Base-2 logarithm of each element."""
    return Log2.apply(_float_math("log2", input))


def log10(input: Tensor) -> Tensor:
    """Base-10 logarithm of each element."""
    return Log10.apply(_float_math("log10", input))


def expm1(input: Tensor) -> Tensor:
    """exp(a) - 1 of each element, without losing tiny a to rounding."""
    return Expm1.apply(_float_math("expm1", input))


def exp2(input: Tensor) -> Tensor:
    """2 to the power of each element."""
    _tensor("exp2", input)
    input = input if input.data.dtype.kind == "f" else cast(input, default_float())  # (not on the autocast list)
    return Exp2.apply(input)


def tan(input: Tensor) -> Tensor:
    """Tangent of each element (in radians)."""
    return Tan.apply(_float_math("tan", input))


def square(input: Tensor) -> Tensor:
    """a * a for each element; integer (and bool) tensors give int64, as ``a ** 2`` does."""
    _tensor("square", input)
    return pow(input, 2)


def atan2(input: Tensor, other: Tensor) -> Tensor:
    """The angle in radians of the point (x=b, y=a), in (-pi, pi], with broadcasting."""
    _tensor("atan2", input)
    _tensor("atan2", other, "other", 2)
    input, other = promote(input, other)
    if input.data.dtype.kind != "f":
        input, other = cast(input, default_float()), cast(other, default_float())
    return Atan2.apply(input, other)


def fmod(input: Tensor, other: Operand) -> Tensor:
    """The remainder of a / b with the sign of ``input`` (``remainder`` follows b's sign instead).

    Integer ``fmod(a, 0)`` is an error, as in PyTorch (floats give NaN).
    """
    _tensor("fmod", input)
    input, other = promote(input, other)
    if input.data.dtype.kind == "b":  # only when both are bool: a bool divisor of a number tensor is 0 or 1
        raise NotImplementedError(f"fmod(): not implemented for bool tensors ({input.dtype} and {_dtype_name(other)})")
    if input.data.dtype.kind in "iu":
        _check_no_zero_divisor(input, other)
    return Fmod.apply(input, other)


def _check_no_zero_divisor(a: Tensor, b: Operand) -> None:
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
    if not isinstance(b, Tensor):
        if b == 0:
            raise error
        return
    has_zero = (b.data == 0).any()  # a 0-d array on b's device (False when b is empty)
    if SWITCHES.debug and bool(has_zero):
        raise error
    backends.of(b.data).check_on_device(has_zero, error)


def _dtype_name(value: Any) -> str:
    return str(value.dtype) if isinstance(value, Tensor) else type(value).__name__


def lerp(input: Tensor, end: Tensor, weight: Operand) -> Tensor:
    """start + weight * (end - start), with broadcasting; ``weight`` is a number or a tensor.

    As in PyTorch, ``input`` and ``end`` (and a tensor ``weight`` with dimensions) must share
    one floating dtype: lerp does no type promotion.
    """
    _tensor("lerp", input)
    _tensor("lerp", end, "end", 2)
    if input.data.dtype.kind != "f":
        raise NotImplementedError(f"lerp(): not implemented for a {input.dtype} tensor; use floats, e.g. x.float()")
    for name, other in (("end", end), ("weight", weight)):
        # A 0-d weight tensor is exempt, as in PyTorch (it counts as a number).
        if isinstance(other, Tensor) and (name == "end" or other.ndim > 0) and other.dtype != input.dtype:
            raise MiniTorchError(f"lerp(): expected dtype {input.dtype} for `{name}` but got dtype {other.dtype}")
    if isinstance(weight, Tensor):
        weight = cast(weight, input.dtype)
    elif not isinstance(weight, SCALAR_TYPES):  # (a bool counts as 0 or 1, as in PyTorch)
        raise TypeError(f"lerp(): weight must be a number or a Tensor, not {type(weight).__name__}")
    else:
        weight = float(weight)
    return Lerp.apply(input, end, weight)


def true_divide(input: Operand, other: Operand) -> Tensor:
    """Alias of ``div``: a / b, always a floating result."""
    return div(input, other)


def random_values_like(like: Tensor, distribution: str, a: float, b: float) -> Tensor:
    """Samples of N(a, b**2) (``"normal"``) or U(a, b) (``"uniform"``) with ``like``'s shape, dtype
    and device, from minitorch's generator (``manual_seed``): the values of ``normal_``/``uniform_``.

    Drawn on the host in float64, then converted, so a seed gives the same numbers on every device.
    """
    generator = default_generator()
    draw = generator.normal if distribution == "normal" else generator.uniform
    values = draw(a, b, size=tuple(like.shape)).astype(like.data.dtype)
    return Tensor._make(backends.to_device(values, like.device), None, False)
