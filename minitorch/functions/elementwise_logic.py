"""Elementwise tests and logic: ``isnan isinf isfinite``, ``logical_and/or/xor/not``,
the comparison functions ``lt le gt ge eq ne``, ``isclose``/``allclose``/``equal``, and the
small predicates ``numel``, ``is_tensor``, ``is_floating_point``.

Their results are bool tensors (or Python values), never part of the graph: a comparison
has no useful gradient. Like PyTorch, the functions want Tensors where PyTorch does
(``torch.logical_and(x, 0)`` is a TypeError there too); the operators (``x < 0``) accept
numbers.
"""

from __future__ import annotations

from typing import Any

from minitorch import backends
from minitorch.errors import MiniTorchError
from minitorch.functions.broadcast import broadcast_shape
from minitorch.hints import Array
from minitorch.tensor import Tensor

# The names PyTorch uses for dtypes in its "Float did not match Double" message.
_SCALAR_NAMES = {"float16": "Half", "float32": "Float", "float64": "Double", "int64": "Long", "bool": "Bool"}


def _tensor(op: str, value: Any, name: str = "input", position: int = 1) -> None:
    """PyTorch's TypeError when an argument that must be a Tensor is a number (or anything else)."""
    if not isinstance(value, Tensor):
        raise TypeError(f"{op}(): argument '{name}' (position {position}) must be Tensor, not {type(value).__name__}")


def _bool_result(out: Array) -> Tensor:
    return Tensor._make(out, None, False)


# ---------------------------------------------------------------------- tests of each element
def isnan(a: Tensor) -> Tensor:
    """True where an element is NaN (never for integer tensors)."""
    _tensor("isnan", a)
    xp = backends.module_of(a.data)
    return _bool_result(xp.isnan(a.data) if a.data.dtype.kind == "f" else xp.zeros(a.data.shape, dtype=bool))


def isinf(a: Tensor) -> Tensor:
    """True where an element is +inf or -inf (never for integer tensors)."""
    _tensor("isinf", a)
    xp = backends.module_of(a.data)
    return _bool_result(xp.isinf(a.data) if a.data.dtype.kind == "f" else xp.zeros(a.data.shape, dtype=bool))


def isfinite(a: Tensor) -> Tensor:
    """True where an element is neither NaN nor infinite (always for integer tensors)."""
    _tensor("isfinite", a)
    xp = backends.module_of(a.data)
    return _bool_result(xp.isfinite(a.data) if a.data.dtype.kind == "f" else xp.ones(a.data.shape, dtype=bool))


# ---------------------------------------------------------------------- logic
def logical_not(a: Tensor) -> Tensor:
    """True where an element is zero (False), for any dtype."""
    _tensor("logical_not", a)
    return _bool_result(backends.module_of(a.data).logical_not(a.data))


def logical_and(a: Tensor, b: Tensor) -> Tensor:
    """True where both elements are nonzero, with broadcasting, for any dtypes."""
    return _logical("logical_and", a, b)


def logical_or(a: Tensor, b: Tensor) -> Tensor:
    """True where either element is nonzero, with broadcasting, for any dtypes."""
    return _logical("logical_or", a, b)


def logical_xor(a: Tensor, b: Tensor) -> Tensor:
    """True where exactly one of the two elements is nonzero, with broadcasting."""
    return _logical("logical_xor", a, b)


def _logical(op: str, a: Tensor, b: Tensor) -> Tensor:
    _tensor(op, a)
    _tensor(op, b, "other", 2)
    _same_device(op, a, b)
    broadcast_shape(tuple(a.shape), tuple(b.shape), op=op)
    xp = backends.module_of(a.data)
    return _bool_result(getattr(xp, op)(a.data, b.data))


def _same_device(op: str, a: Tensor, b: Tensor) -> None:
    if a.device != b.device:
        raise MiniTorchError(f"{op}(): expected both tensors on the same device, got {a.device} and {b.device}")


# ---------------------------------------------------------------------- comparisons as functions
# The operators live on the Tensor (tensor_operators.py); these are PyTorch's function forms,
# which want a Tensor first (``torch.lt(2, x)`` is a TypeError) and a Tensor or number second.
def eq(a: Tensor, b: Any) -> Tensor:
    """``a == b`` elementwise (a bool tensor)."""
    _tensor("eq", a)
    return a.eq(b)


def ne(a: Tensor, b: Any) -> Tensor:
    """``a != b`` elementwise."""
    _tensor("ne", a)
    return a.ne(b)


def lt(a: Tensor, b: Any) -> Tensor:
    """``a < b`` elementwise."""
    _tensor("lt", a)
    return a.lt(b)


def le(a: Tensor, b: Any) -> Tensor:
    """``a <= b`` elementwise."""
    _tensor("le", a)
    return a.le(b)


def gt(a: Tensor, b: Any) -> Tensor:
    """``a > b`` elementwise."""
    _tensor("gt", a)
    return a.gt(b)


def ge(a: Tensor, b: Any) -> Tensor:
    """``a >= b`` elementwise."""
    _tensor("ge", a)
    return a.ge(b)


# ---------------------------------------------------------------------- closeness and equality
def isclose(a: Tensor, b: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> Tensor:
    """True where ``|a - b| <= atol + rtol * |b|`` (equal infinities count as close).

    Both tensors must have the same dtype, as in PyTorch (compare ``a.double()`` with a
    float64 one); NaN is close to NaN only with ``equal_nan=True``.
    """
    _tensor("isclose", a)
    _tensor("isclose", b, "other", 2)
    if a.dtype != b.dtype:
        names = (_SCALAR_NAMES.get(t.dtype.name, t.dtype.name) for t in (a, b))
        raise MiniTorchError("isclose(): {} did not match {}; convert one first, e.g. b.to(a.dtype)".format(*names))
    if rtol < 0 or atol < 0:
        raise MiniTorchError(f"isclose(): rtol and atol must be >= 0, got rtol={rtol}, atol={atol}")
    _same_device("isclose", a, b)
    broadcast_shape(tuple(a.shape), tuple(b.shape), op="isclose")
    xp = backends.module_of(a.data)
    a_data, b_data = a.data, b.data
    if a_data.dtype.kind != "f":  # integers (and bools): PyTorch compares them exactly when rtol = atol = 0
        a_data, b_data = a_data.astype("float64"), b_data.astype("float64")
    return _bool_result(xp.isclose(a_data, b_data, rtol=rtol, atol=atol, equal_nan=equal_nan))


def allclose(a: Tensor, b: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> bool:
    """True when every element of ``a`` is close to ``b``'s (see ``isclose``): a Python bool."""
    return bool(isclose(a, b, rtol, atol, equal_nan).data.all())


def equal(a: Tensor, b: Tensor) -> bool:
    """True when both tensors have the same shape and the same values (NaN never equals NaN)."""
    _tensor("equal", a)
    _tensor("equal", b, "other", 2)
    _same_device("equal", a, b)
    if tuple(a.shape) != tuple(b.shape):
        return False
    return bool((a.data == b.data).all())


# ---------------------------------------------------------------------- predicates
def numel(a: Tensor) -> int:
    """The number of elements of ``a``."""
    _tensor("numel", a)
    return a.numel()


def is_tensor(obj: Any) -> bool:
    """True when ``obj`` is a MiniTorch Tensor."""
    return isinstance(obj, Tensor)


def is_floating_point(a: Tensor) -> bool:
    """True for a tensor of a floating dtype (float16, float32, float64)."""
    _tensor("is_floating_point", a)
    return a.is_floating_point()
