"""``GraphArray``: a Tensor that takes part in the graph, dressed as a NumPy array.

With ``create_graph=True`` an op's backward runs on these instead of arrays
(``graph_mode.py``). Every ``*``, ``xp.exp``, ``.sum(axis=0)`` or ``np.where`` on one calls
the matching differentiable op from ``NUMPY_FUNCTIONS`` (filled by
``minitorch/functions/array_api.py``: the ops live above this layer), so the result is again
a GraphArray and the step is recorded. ``GraphNamespace`` is ``ctx.xp`` in that mode: NumPy's
names, routed the same way.

A name missing from the table is fine on values without a gradient (they are plain arrays)
and a clear ``DoubleBackwardError`` on a value with one; turning a value with a gradient into
a plain array (``np.asarray``, ``float``, ``.item()``) or writing into an array in place is
refused the same way: never a gradient that silently stops.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from minitorch.errors import MiniTorchError
from minitorch.tensor_base import TensorBase

# NumPy name -> differentiable implementation, called with Tensors (and constants: arrays,
# numbers, settings) in NumPy's argument order and keywords; it returns a Tensor. Filled by
# minitorch/functions/array_api.py.
NUMPY_FUNCTIONS: dict[str, Callable[..., Any]] = {}

# Other spellings of one function (the attribute name vs the ufunc's own __name__, aliases).
ALIASES = {
    "abs": "absolute",
    "true_divide": "divide",
    "amax": "max",
    "amin": "min",
    "concat": "concatenate",
    "pow": "power",
    "permute_dims": "transpose",
    "asarray": "asarray",
}


class DoubleBackwardError(MiniTorchError):
    """An op's backward cannot run with ``create_graph=True`` (PyTorch: "derivative for ... is not implemented")."""


class _Current:
    """Which op's backward is running in graph mode now (for error messages)."""

    op: str = "a backward"


CURRENT = _Current()


def register_numpy_function(name: str, implementation: Callable[..., Any]) -> None:
    """Make ``np.<name>`` / ``xp.<name>`` on GraphArrays call ``implementation`` (on Tensors)."""
    NUMPY_FUNCTIONS[name] = implementation


def _not_differentiable(name: str) -> DoubleBackwardError:
    return DoubleBackwardError(
        f"{CURRENT.op} calls {name}, which has no differentiable version, on a value with a "
        f"gradient: this op cannot be differentiated twice (create_graph=True). Write that step with "
        "operators and NumPy functions MiniTorch knows (minitorch/functions/array_api.py lists them)"
    )


def unwrap(value: Any) -> Any:
    """A GraphArray's Tensor; lists and tuples unwrapped inside; anything else as it is."""
    if type(value) is GraphArray:
        return value.tensor
    if isinstance(value, (list, tuple)) and any(isinstance(v, GraphArray) for v in value):
        return type(value)(unwrap(v) for v in value)
    return value


def wrap(value: Any) -> Any:
    """A Tensor as a GraphArray (a constant one as its plain array); anything else as it is."""
    if isinstance(value, TensorBase):
        return GraphArray(value) if value.requires_grad else value.data
    if isinstance(value, tuple):
        return tuple(wrap(v) for v in value)
    if isinstance(value, list):
        return [wrap(v) for v in value]
    return value


def _has_gradient(values: Any) -> bool:
    """Whether any argument (inside lists and tuples too) is a GraphArray that carries a gradient."""
    for v in values:
        if isinstance(v, GraphArray):
            return True
        if isinstance(v, (list, tuple)) and _has_gradient(v):
            return True
    return False


def _plain(value: Any) -> Any:
    """Arguments for the backend library: GraphArrays of constants as their arrays."""
    if isinstance(value, GraphArray):
        return value.tensor.data
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(v) for v in value)
    return value


# The few names of the table that are array methods or syntax rather than NumPy functions,
# for values without a gradient.
_CONSTANT_FORMS: dict[str, Callable[..., Any]] = {
    "getitem": lambda a, index: a[index],
    "astype": lambda a, dtype: a.astype(dtype),
}


# NumPy functions that only read what an array tells (its shape...): fine on any GraphArray.
_METADATA: dict[str, Callable[..., Any]] = {
    "shape": lambda a: a.shape,
    "ndim": lambda a: a.ndim,
    "size": lambda a, axis=None: a.size if axis is None else a.shape[axis],
    "result_type": lambda *arrays: np.result_type(*(a.dtype if isinstance(a, GraphArray) else a for a in arrays)),
    "iscomplexobj": lambda a: False,
}


def call(name: str, *args: Any, **kwargs: Any) -> Any:
    """``np.<name>(*args, **kwargs)`` where some argument may be a GraphArray."""
    name = ALIASES.get(name, name)
    if name in _METADATA:
        return _METADATA[name](*args, **kwargs)
    if not (_has_gradient(args) or (kwargs and _has_gradient(kwargs.values()))):
        function = _CONSTANT_FORMS.get(name) or getattr(np, name)
        return function(*_plain(args), **{k: _plain(v) for k, v in kwargs.items()})
    if kwargs and kwargs.get("out") is not None:
        raise DoubleBackwardError(
            f"{CURRENT.op} writes into an array (out=) under create_graph=True; compute the "
            "value as a new array instead"
        )
    implementation = NUMPY_FUNCTIONS.get(name)
    if implementation is None:
        raise _not_differentiable(f"numpy.{name}")
    if kwargs:
        return wrap(implementation(*[unwrap(v) for v in args], **{k: unwrap(v) for k, v in kwargs.items()}))
    return wrap(implementation(*[unwrap(v) for v in args]))


def _operator(name: str, a: Any, b: Any) -> Any:
    """``a <op> b`` where ``a`` or ``b`` is a GraphArray, so a gradient flows: straight to the
    differentiable op (``call``'s checks are for NumPy functions; an operator has no ``out=``).
    Operators run once per step of a recorded backward: this path is kept short."""
    implementation = NUMPY_FUNCTIONS.get(name)
    if implementation is None:
        return call(name, a, b)
    return wrap(implementation(a.tensor if type(a) is GraphArray else unwrap(a),
                               b.tensor if type(b) is GraphArray else unwrap(b)))


def _method(name: str, self: GraphArray, *args: Any, **kwargs: Any) -> Any:
    """``self.<name>(...)``: like ``_operator``, straight to the differentiable op; the other
    arguments of these methods are settings (axes, shapes, dtypes), never graph values."""
    implementation = NUMPY_FUNCTIONS.get(name)
    if implementation is None:
        return call(name, self, *args, **kwargs)
    return wrap(implementation(self.tensor, *args, **kwargs))


class GraphArray:
    """A Tensor that takes part in the graph, seen as a NumPy array by an op's backward."""

    __slots__ = ("tensor",)
    __array_priority__ = 1001  # NumPy arrays defer to it: ``array * graph_array`` lands here

    def __init__(self, tensor: TensorBase) -> None:
        self.tensor = tensor

    # -------------------------------------------------------------- what an array tells
    @property
    def shape(self) -> tuple[int, ...]:
        """The shape, a tuple of ints (as NumPy's)."""
        return tuple(self.tensor.data.shape)

    @property
    def ndim(self) -> int:
        """The number of dimensions."""
        return int(self.tensor.data.ndim)

    @property
    def size(self) -> int:
        """The number of elements."""
        return int(self.tensor.data.size)

    @property
    def dtype(self) -> Any:
        """The NumPy dtype."""
        return self.tensor.data.dtype

    @property
    def T(self) -> Any:  # noqa: N802  (NumPy's name)
        """The axes reversed."""
        return _method("transpose", self)

    def __len__(self) -> int:
        return len(self.tensor.data)

    def __repr__(self) -> str:
        return f"GraphArray({self.tensor!r})"

    # -------------------------------------------------------------- no way out of the graph
    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        raise DoubleBackwardError(
            f"{CURRENT.op} turns a value with a gradient into a plain NumPy array "
            "(np.asarray, np.array, or a NumPy function MiniTorch does not know): under create_graph=True its "
            "gradient would stop there. Use operators and ctx.xp functions on it instead"
        )

    def _refuse(self, what: str) -> DoubleBackwardError:
        return DoubleBackwardError(
            f"{CURRENT.op} asks {what} of a value with a gradient: under create_graph=True "
            "the answer would cut the graph"
        )

    def __float__(self) -> float:
        raise self._refuse("float(...)")

    def __int__(self) -> int:
        raise self._refuse("int(...)")

    def __bool__(self) -> bool:
        raise self._refuse("the truth value")

    def item(self) -> Any:
        """Refused: the number would carry no gradient."""
        raise self._refuse(".item()")

    def tolist(self) -> Any:
        """Refused: the numbers would carry no gradient."""
        raise self._refuse(".tolist()")

    def __setitem__(self, index: Any, value: Any) -> None:
        raise DoubleBackwardError(
            f"{CURRENT.op} writes into an array in place (a[i] = v) under create_graph=True; "
            "build the value out of place (xp.where, xp.concatenate, an index_put) instead"
        )

    # -------------------------------------------------------------- NumPy's protocols
    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        if method == "__call__":
            return call(ufunc.__name__, *inputs, **kwargs)
        if method == "reduce":
            reduce_names = {"add": "sum", "multiply": "prod", "maximum": "max", "minimum": "min"}
            if ufunc.__name__ in reduce_names:
                return call(reduce_names[ufunc.__name__], *inputs, **kwargs)
        raise _not_differentiable(f"numpy.{ufunc.__name__}.{method}")

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        return call(func.__name__, *args, **kwargs)

    # -------------------------------------------------------------- operators
    def __add__(self, other: Any) -> Any:
        return _operator("add", self, other)

    def __radd__(self, other: Any) -> Any:
        return _operator("add", other, self)

    def __sub__(self, other: Any) -> Any:
        return _operator("subtract", self, other)

    def __rsub__(self, other: Any) -> Any:
        return _operator("subtract", other, self)

    def __mul__(self, other: Any) -> Any:
        return _operator("multiply", self, other)

    def __rmul__(self, other: Any) -> Any:
        return _operator("multiply", other, self)

    def __truediv__(self, other: Any) -> Any:
        return _operator("divide", self, other)

    def __rtruediv__(self, other: Any) -> Any:
        return _operator("divide", other, self)

    def __pow__(self, other: Any) -> Any:
        return _operator("power", self, other)

    def __rpow__(self, other: Any) -> Any:
        return _operator("power", other, self)

    def __matmul__(self, other: Any) -> Any:
        return _operator("matmul", self, other)

    def __rmatmul__(self, other: Any) -> Any:
        return _operator("matmul", other, self)

    def __neg__(self) -> Any:
        return _method("negative", self)

    def __pos__(self) -> Any:
        return self

    def __abs__(self) -> Any:
        return call("absolute", self)

    # comparisons give masks: no gradient flows through them
    def __lt__(self, other: Any) -> Any:
        return _operator("less", self, other)

    def __le__(self, other: Any) -> Any:
        return _operator("less_equal", self, other)

    def __gt__(self, other: Any) -> Any:
        return _operator("greater", self, other)

    def __ge__(self, other: Any) -> Any:
        return _operator("greater_equal", self, other)

    def __eq__(self, other: Any) -> Any:
        return _operator("equal", self, other)

    def __ne__(self, other: Any) -> Any:
        return _operator("not_equal", self, other)

    __hash__ = None  # type: ignore[assignment]

    def __getitem__(self, index: Any) -> Any:
        return call("getitem", self, index)

    # -------------------------------------------------------------- NumPy's methods
    def sum(self, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> Any:
        """``np.sum(self, ...)``."""
        return _method("sum", self, axis=axis, dtype=dtype, keepdims=keepdims)

    def mean(self, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> Any:
        """``np.mean(self, ...)``."""
        return _method("mean", self, axis=axis, dtype=dtype, keepdims=keepdims)

    def max(self, axis: Any = None, keepdims: bool = False) -> Any:
        """``np.max(self, ...)``."""
        return _method("max", self, axis=axis, keepdims=keepdims)

    def min(self, axis: Any = None, keepdims: bool = False) -> Any:
        """``np.min(self, ...)``."""
        return _method("min", self, axis=axis, keepdims=keepdims)

    def prod(self, axis: Any = None, keepdims: bool = False) -> Any:
        """``np.prod(self, ...)``."""
        return call("prod", self, axis=axis, keepdims=keepdims)

    def cumsum(self, axis: Any = None) -> Any:
        """``np.cumsum(self, axis)``."""
        return call("cumsum", self, axis=axis)

    def reshape(self, *shape: Any, order: str = "C") -> Any:
        """``np.reshape(self, shape)`` (C order)."""
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        if shape == self.tensor.data.shape:  # already that shape: the value itself, as reshape() gives
            return self
        return _method("reshape", self, shape)

    def transpose(self, *axes: Any) -> Any:
        """``np.transpose(self, axes)``."""
        if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
            axes = tuple(axes[0])
        return call("transpose", self, axes or None)

    def swapaxes(self, a: int, b: int) -> Any:
        """``np.swapaxes(self, a, b)``."""
        return call("swapaxes", self, a, b)

    def squeeze(self, axis: Any = None) -> Any:
        """``np.squeeze(self, axis)``."""
        return call("squeeze", self, axis=axis)

    def ravel(self) -> Any:
        """``np.ravel(self)``."""
        return call("reshape", self, (-1,))

    flatten = ravel

    def astype(self, dtype: Any, copy: bool = True) -> Any:
        """``self`` in another dtype (differentiable between float dtypes)."""
        if dtype is self.tensor.data.dtype or np.dtype(dtype) == self.tensor.data.dtype:
            return self  # already that dtype: the value itself, as cast() gives
        return _method("astype", self, dtype)

    def copy(self) -> Any:
        """A copy (an op in the graph, as ``Tensor.clone``)."""
        return call("copy", self)

    def clip(self, a_min: Any = None, a_max: Any = None) -> Any:
        """``np.clip(self, a_min, a_max)``."""
        return call("clip", self, a_min, a_max)


class GraphNamespace:
    """``ctx.xp`` in graph mode: NumPy's names, routed to differentiable ops for GraphArrays.

    A name NumPy has but MiniTorch does not know runs on the backend's library when no
    argument carries a gradient (``xp.zeros``, ``xp.arange``, ``xp.float32``, masks ...),
    and is refused otherwise.
    """

    def __init__(self, backend_xp: Any) -> None:
        self._xp = backend_xp

    def __getattr__(self, name: str) -> Any:
        # Called once per name: what it returns is kept on the instance (one per backend, see
        # ``namespace_for``), so the next ``xp.exp`` is a plain attribute read.
        attribute = getattr(self._xp, name)
        if not callable(attribute) or isinstance(attribute, type):  # constants, dtypes, ndarray
            self.__dict__[name] = attribute
            return attribute

        def function(*args: Any, **kwargs: Any) -> Any:
            if not (_has_gradient(args) or _has_gradient(kwargs.values())):
                return attribute(*_plain(args), **{k: _plain(v) for k, v in kwargs.items()})
            return call(getattr(attribute, "__name__", name) if name not in ALIASES else name, *args, **kwargs)

        function.__name__ = name
        self.__dict__[name] = function
        return function


_NAMESPACES: dict[int, GraphNamespace] = {}


def namespace_for(backend_xp: Any) -> GraphNamespace:
    """The one ``GraphNamespace`` of a backend's array library (NumPy, CuPy): made once, so the
    functions it hands out are made once too (a backward under create_graph asks for them)."""
    namespace = _NAMESPACES.get(id(backend_xp))
    if namespace is None or namespace._xp is not backend_xp:
        namespace = _NAMESPACES[id(backend_xp)] = GraphNamespace(backend_xp)
    return namespace


__all__ = [
    "ALIASES",
    "CURRENT",
    "DoubleBackwardError",
    "GraphArray",
    "GraphNamespace",
    "NUMPY_FUNCTIONS",
    "call",
    "namespace_for",
    "register_numpy_function",
    "unwrap",
    "wrap",
]
