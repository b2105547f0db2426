"""The Tensor methods that run ops: op methods (``exp``, ``sum``, ``reshape``...),
conversions (``to``, ``float``...) and ``backward``.

``Tensor`` (``tensor.py``) inherits from ``TensorMethods``. Each method here is one line
that hands the work to an op in ``minitorch/functions/``, so adding an op touches the op's
file and, if it should be a method too, one line here. The operators (``+``, ``<``,
``[]``) are in ``tensor_operators.py``, the in-place updates in ``tensor_inplace.py``.

These three modules are where the Tensor reaches up to the ops and the engine, which
themselves import ``Tensor``. The cycle is closed by each one's ``_link_ops()``, which
``tensor.py`` calls once ``Tensor`` exists.
"""

from __future__ import annotations

import builtins  # ``bool`` is a method name in this class: annotations say ``builtins.bool``
from typing import TYPE_CHECKING, Any

from minitorch import backends
from minitorch.dtypes import DType, bool_, float16, float32, float64, get_dtype, int64
from minitorch.errors import MiniTorchError

# Bound by _link_ops() (see the module docstring); None until then. To the type checker
# they are ``Any``: the methods below hand them ``self``, which it knows only as a
# TensorMethods, not as the Tensor it always is.
_ops: Any = None  # the minitorch.functions package
run_backward: Any = None
as_operand: Any = None
cast: Any = None

if TYPE_CHECKING:  # for the annotations only
    from minitorch.functions.reductions import Dims, MaxResult, MinResult  # Dims: an int, a tuple of ints or None
    from minitorch.tensor import Tensor
else:
    Tensor = None  # bound by _link_ops() too


# ``Tensor.type()`` names, as PyTorch's legacy tensor types (``torch.FloatTensor``).
_TYPE_NAMES = {
    "float16": "minitorch.HalfTensor",
    "float32": "minitorch.FloatTensor",
    "float64": "minitorch.DoubleTensor",
    "int64": "minitorch.LongTensor",
    "bool": "minitorch.BoolTensor",
}
_TYPES_BY_NAME = {name: dtype for dtype, name in _TYPE_NAMES.items()}
_TYPES_BY_NAME.update({name.replace("minitorch.", "torch."): dtype for dtype, name in _TYPE_NAMES.items()})


class TensorMethods:
    """Op methods of ``Tensor`` (a mixin: it holds no state of its own).

    ``self`` is always a Tensor, but the type checker sees a TensorMethods: where a method
    returns ``self``, a ``# type: ignore[return-value]`` tells it so.
    """

    __slots__ = ()

    if TYPE_CHECKING:  # the Tensor state these methods read; tensor.py defines it
        data: Any  # the backend array (NumPy or CuPy)
        requires_grad: builtins.bool

        @property
        def shape(self) -> tuple[int, ...]: ...
        @property
        def ndim(self) -> int: ...
        @property
        def dtype(self) -> DType: ...
        @property
        def device(self) -> str: ...

    # ------------------------------------------------------------------ conversions (recorded ops)
    def clone(self) -> Tensor:
        """A copy of the data that stays in the graph (gradients flow back to this tensor)."""
        return _ops.Clone.apply(self)

    def contiguous(self) -> Tensor:
        """This tensor if contiguous, else a contiguous (row-major) copy."""
        if self.data.flags.c_contiguous:
            return self  # type: ignore[return-value]  # (self is a Tensor: see the class docstring)
        return self.clone()

    def to(self, *args: Any, dtype: Any = None, device: Any = None) -> Tensor:
        """Move to a device (``"cpu"``/``"cuda"``) and/or convert to a dtype; differentiable."""
        for arg in args:
            if isinstance(arg, str) or (hasattr(arg, "type") and not isinstance(arg, DType)):
                device = arg
            elif isinstance(arg, TensorMethods):
                device, dtype = arg.device, arg.dtype
            else:
                dtype = arg
        out = self
        if device is not None:
            target = backends.require(device, f"move a tensor to {device!r}").name
            if target != out.device:
                out = _ops.ToDevice.apply(out, target)
        if dtype is not None:
            out = cast(out, get_dtype(dtype))
        return out  # type: ignore[return-value]

    def cpu(self) -> Tensor:
        """A copy on the CPU (or self when already there)."""
        return self.to("cpu")

    def cuda(self) -> Tensor:
        """A copy on the GPU (or self when already there)."""
        return self.to("cuda")

    def float(self) -> Tensor:
        """Convert to float32."""
        return cast(self, float32)

    def double(self) -> Tensor:
        """Convert to float64."""
        return cast(self, float64)

    def half(self) -> Tensor:
        """Convert to float16 (half precision)."""
        return cast(self, float16)

    def long(self) -> Tensor:
        """Convert to int64."""
        return cast(self, int64)

    def bool(self) -> Tensor:
        """Convert to bool."""
        return cast(self, bool_)

    def type_as(self, other: Tensor) -> Tensor:
        """Convert to the dtype of ``other``."""
        return cast(self, other.dtype)

    def type(self, dtype: Any = None) -> Any:
        """With no argument the type's name (``'minitorch.FloatTensor'``); else convert to ``dtype``."""
        if dtype is None:
            return _TYPE_NAMES[self.dtype.name]
        if isinstance(dtype, str) and dtype in _TYPES_BY_NAME:
            dtype = _TYPES_BY_NAME[dtype]
        return cast(self, get_dtype(dtype))

    # ------------------------------------------------------------------ autograd
    def backward(self, gradient: Any = None, retain_graph: builtins.bool = False) -> None:
        """Compute d self / d leaf for every leaf that requires grad, into ``leaf.grad``."""
        if not self.requires_grad:
            raise MiniTorchError(
                "backward(): this tensor does not require grad and has no grad_fn; did you "
                "create the inputs with requires_grad=True, or compute it under no_grad()?"
            )
        if gradient is None:
            if self.data.size != 1:
                raise MiniTorchError(
                    f"backward(): grad can be implicitly created only for scalar outputs, but "
                    f"this tensor has shape {tuple(self.shape)}; reduce it first (e.g. "
                    ".sum().backward()) or pass gradient= with that shape"
                )
            grad = backends.module_of(self.data).ones(self.data.shape, dtype=self.data.dtype)
        else:
            grad = gradient.data if isinstance(gradient, TensorMethods) else gradient
            if backends.is_backend_array(grad) and backends.device_of(grad) != self.device:
                raise MiniTorchError(
                    f"backward(): gradient is on {backends.device_of(grad)} but the tensor is on "
                    f"{self.device}; move the gradient with .to('{self.device}')"
                )
            # A copy: the caller's array must never end up shared with some leaf's .grad.
            grad = backends.module_of(self.data).array(grad, dtype=self.data.dtype, copy=True)
            if grad.shape != self.data.shape:
                raise MiniTorchError(
                    f"backward(): gradient has shape {tuple(grad.shape)} but the tensor has "
                    f"shape {tuple(self.shape)}; they must match"
                )
        run_backward(self, grad, retain_graph=retain_graph)

    # ------------------------------------------------------------------ op methods
    def add(self, other: Any, *, alpha: builtins.float = 1) -> Tensor:
        """``self + alpha * other``."""
        return _ops.add(self, other, alpha=alpha)

    def sub(self, other: Any, *, alpha: builtins.float = 1) -> Tensor:
        """``self - alpha * other``."""
        return _ops.sub(self, other, alpha=alpha)

    def mul(self, other: Any) -> Tensor:
        """``self * other``."""
        return _ops.mul(self, other)

    def div(self, other: Any) -> Tensor:
        """``self / other``."""
        return _ops.div(self, other)

    def neg(self) -> Tensor:
        """``-self``."""
        return _ops.Neg.apply(self)

    def pow(self, exponent: Any) -> Tensor:
        """``self ** exponent``."""
        return _ops.pow(self, exponent)

    def matmul(self, other: Any) -> Tensor:
        """``self @ other``."""
        return _ops.matmul(self, other)

    def mm(self, other: Any) -> Tensor:
        """Matrix product of two 2-D tensors."""
        return _ops.mm(self, other)

    def mv(self, vec: Any) -> Tensor:
        """This 2-D tensor times a 1-D vector."""
        return _ops.mv(self, vec)

    def bmm(self, other: Any) -> Tensor:
        """Batched matrix product of two 3-D tensors."""
        return _ops.bmm(self, other)

    def addmm(self, mat1: Any, mat2: Any, *, beta: builtins.float = 1, alpha: builtins.float = 1) -> Tensor:
        """``beta * self + alpha * (mat1 @ mat2)``."""
        return _ops.addmm(self, mat1, mat2, beta=beta, alpha=alpha)

    def exp(self) -> Tensor:
        """e ** self, elementwise."""
        return _ops.exp(self)

    def log(self) -> Tensor:
        """Natural logarithm, elementwise."""
        return _ops.log(self)

    def log1p(self) -> Tensor:
        """log(1 + self), elementwise, accurate for tiny values."""
        return _ops.log1p(self)

    def sqrt(self) -> Tensor:
        """Square root, elementwise."""
        return _ops.sqrt(self)

    def sin(self) -> Tensor:
        """Sine, elementwise."""
        return _ops.sin(self)

    def cos(self) -> Tensor:
        """Cosine, elementwise."""
        return _ops.cos(self)

    def tanh(self) -> Tensor:
        """Hyperbolic tangent, elementwise."""
        return _ops.tanh(self)

    def sigmoid(self) -> Tensor:
        """Logistic sigmoid, elementwise."""
        return _ops.sigmoid(self)

    def relu(self) -> Tensor:
        """max(self, 0), elementwise."""
        return _ops.relu(self)

    def abs(self) -> Tensor:
        """Absolute value, elementwise."""
        return _ops.abs(self)

    def clamp(self, min: Any = None, max: Any = None) -> Tensor:
        """Limit every element to [min, max]."""
        return _ops.clamp(self, min, max)

    clip = clamp

    def maximum(self, other: Any) -> Tensor:
        """Elementwise maximum with ``other``."""
        return _ops.maximum(self, other)

    def minimum(self, other: Any) -> Tensor:
        """Elementwise minimum with ``other``."""
        return _ops.minimum(self, other)

    def sum(self, dim: Dims = None, keepdim: builtins.bool = False, dtype: Any = None) -> Tensor:
        """Sum of all elements or over ``dim``."""
        return _ops.sum(self, dim, keepdim, dtype)

    def mean(self, dim: Dims = None, keepdim: builtins.bool = False) -> Tensor:
        """Mean of all elements or over ``dim``."""
        return _ops.mean(self, dim, keepdim)

    def amax(self, dim: Dims = None, keepdim: builtins.bool = False) -> Tensor:
        """Largest value over ``dim``."""
        return _ops.amax(self, dim, keepdim)

    def amin(self, dim: Dims = None, keepdim: builtins.bool = False) -> Tensor:
        """Smallest value over ``dim``."""
        return _ops.amin(self, dim, keepdim)

    def max(self, dim: Any = None, keepdim: builtins.bool = False) -> Tensor | MaxResult:
        """The largest element, or (values, indices) along ``dim``."""
        return _ops.max(self, dim, keepdim)

    def min(self, dim: Any = None, keepdim: builtins.bool = False) -> Tensor | MinResult:
        """The smallest element, or (values, indices) along ``dim``."""
        return _ops.min(self, dim, keepdim)

    def var(
        self,
        dim: Dims = None,
        unbiased: builtins.bool = True,
        keepdim: builtins.bool = False,
        correction: int | None = None,
    ) -> Tensor:
        """Variance over ``dim`` (unbiased by default)."""
        return _ops.var(self, dim, unbiased, keepdim, correction)

    def std(
        self,
        dim: Dims = None,
        unbiased: builtins.bool = True,
        keepdim: builtins.bool = False,
        correction: int | None = None,
    ) -> Tensor:
        """Standard deviation over ``dim``."""
        return _ops.std(self, dim, unbiased, keepdim, correction)

    def logsumexp(self, dim: Dims, keepdim: builtins.bool = False) -> Tensor:
        """log(sum(exp(self), dim)), computed stably."""
        return _ops.logsumexp(self, dim, keepdim)

    def argmax(self, dim: int | None = None, keepdim: builtins.bool = False) -> Tensor:
        """Index of the largest element."""
        return _ops.argmax(self, dim, keepdim)

    def argmin(self, dim: int | None = None, keepdim: builtins.bool = False) -> Tensor:
        """Index of the smallest element."""
        return _ops.argmin(self, dim, keepdim)

    def softmax(self, dim: int, dtype: Any = None) -> Tensor:
        """exp(self) normalised to sum to 1 along ``dim`` (in ``dtype`` if given)."""
        return _ops.softmax(self, dim, dtype)

    def log_softmax(self, dim: int, dtype: Any = None) -> Tensor:
        """log(softmax(self, dim)), computed stably (in ``dtype`` if given)."""
        return _ops.log_softmax(self, dim, dtype)

    def reshape(self, *shape: Any) -> Tensor:
        """Same elements, new shape (a view when possible)."""
        return _ops.reshape(self, *shape)

    def view(self, *shape: Any) -> Tensor:
        """Same memory, new shape (contiguous layouts only)."""
        return _ops.view(self, *shape)

    def view_as(self, other: Tensor) -> Tensor:
        """``self.view(other.shape)``."""
        return _ops.view(self, other.shape)

    def reshape_as(self, other: Tensor) -> Tensor:
        """``self.reshape(other.shape)``."""
        return _ops.reshape(self, other.shape)

    def transpose(self, dim0: int, dim1: int) -> Tensor:
        """Swap two dimensions (a view)."""
        return _ops.transpose(self, dim0, dim1)

    def t(self) -> Tensor:
        """Transpose of a 2-D tensor (0-D and 1-D ones are returned as is; more dims are an error, as PyTorch)."""
        if self.ndim > 2:
            raise MiniTorchError(
                f"t() expects a tensor with <= 2 dimensions, but self is {self.ndim}D (shape {tuple(self.shape)}); "
                "use transpose(d0, d1) or permute"
            )
        return _ops.transpose(self, 0, 1) if self.ndim == 2 else self  # type: ignore[return-value]

    def permute(self, *dims: Any) -> Tensor:
        """Reorder dimensions (a view)."""
        return _ops.permute(self, *dims)

    def unsqueeze(self, dim: int) -> Tensor:
        """Insert a size-1 dimension at ``dim``."""
        return _ops.unsqueeze(self, dim)

    def squeeze(self, dim: Dims = None) -> Tensor:
        """Remove size-1 dimensions."""
        return _ops.squeeze(self, dim)

    def expand(self, *sizes: Any) -> Tensor:
        """Repeat size-1 dimensions without copying."""
        return _ops.expand(self, *sizes)

    def expand_as(self, other: Tensor) -> Tensor:
        """``self.expand(other.shape)``."""
        return _ops.expand_as(self, other)

    def flatten(self, start_dim: int = 0, end_dim: int = -1) -> Tensor:
        """Merge dimensions start_dim..end_dim into one."""
        return _ops.flatten(self, start_dim, end_dim)

    def where(self, condition: Any, other: Any) -> Tensor:
        """``where(condition, self, other)``."""
        return _ops.where(condition, self, other)

    # Sequence models and attention (functions/masking.py, special.py, split.py): one line each.
    def masked_fill(self, mask: Any, value: Any) -> Tensor:
        """``value`` where the bool ``mask`` is True, ``self`` elsewhere."""
        return _ops.masked_fill(self, mask, value)

    def tril(self, diagonal: int = 0) -> Tensor:
        """The lower triangle (zeros above the ``diagonal``-th diagonal)."""
        return _ops.tril(self, diagonal)

    def triu(self, diagonal: int = 0) -> Tensor:
        """The upper triangle (zeros below the ``diagonal``-th diagonal)."""
        return _ops.triu(self, diagonal)

    def erf(self) -> Tensor:
        """The error function, elementwise."""
        return _ops.erf(self)

    def chunk(self, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
        """``chunks`` views along ``dim`` (the last one may be smaller)."""
        return _ops.chunk(self, chunks, dim)

    def split(self, size: Any, dim: int = 0) -> tuple[Tensor, ...]:
        """Views along ``dim`` of ``size`` each (an int) or of the given sizes (a list)."""
        return _ops.split(self, size, dim)


def _link_ops() -> None:
    """Import what the methods above call; run by ``tensor.py`` right after ``Tensor`` exists.

    The ops import ``Tensor`` themselves, so they cannot be imported before it is defined.
    """
    global _ops, run_backward, as_operand, cast, Tensor
    from minitorch import functions as _ops
    from minitorch.autograd.engine import run_backward
    from minitorch.functions.promotion import as_operand, cast
    from minitorch.tensor import Tensor
