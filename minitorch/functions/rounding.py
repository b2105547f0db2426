"""Rounding: ``round floor ceil trunc sign``.

Each is piecewise constant, so its gradient is 0 everywhere (PyTorch records them all the
same, with a zero backward); integer inputs stay integer.
"""

from __future__ import annotations

from minitorch.autograd.function import BackwardNode, Function
from minitorch.errors import check_int
from minitorch.functions.conversion import Clone
from minitorch.functions.unary import require_tensor
from minitorch.hints import Array, Gradients
from minitorch.tensor_base import T, TensorBase


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


# ---------------------------------------------------------------------- user functions
def _not_bool(op: str, a: TensorBase) -> None:
    if a.data.dtype.kind == "b":
        raise NotImplementedError(f"{op}(): not implemented for a bool tensor (shape {tuple(a.shape)}); convert first")


def round(input: T, *, decimals: int = 0) -> T:
    """Round each element to ``decimals`` places, halves to even (0.5 -> 0, 1.5 -> 2)."""
    require_tensor("round", input)
    _not_bool("round", input)
    decimals = check_int("round", "decimals", decimals)
    if input.data.dtype.kind != "f":
        if decimals != 0:  # as PyTorch: integer tensors only round to whole numbers
            raise NotImplementedError(f"round(): decimals={decimals} not implemented for a {input.dtype} tensor")
        return Clone.apply(input)
    return Round.apply(input, decimals)


def floor(input: T) -> T:
    """The largest integer <= each element (integer tensors are returned as a copy)."""
    return _rounding("floor", Floor, input)


def ceil(input: T) -> T:
    """The smallest integer >= each element (integer tensors are returned as a copy)."""
    return _rounding("ceil", Ceil, input)


def trunc(input: T) -> T:
    """Each element rounded toward zero (integer tensors are returned as a copy)."""
    return _rounding("trunc", Trunc, input)


def _rounding(op: str, function: type[Function], a: T) -> T:
    require_tensor(op, a)
    _not_bool(op, a)
    return function.apply(a) if a.data.dtype.kind == "f" else Clone.apply(a)


def sign(input: T) -> T:
    """-1, 0 or 1 for each element by its sign (a bool tensor stays bool); zero gradient."""
    require_tensor("sign", input)
    return Sign.apply(input)
