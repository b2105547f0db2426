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
    from minitorch.functions.reductions import Dims, MaxResult  # Dims: an int, a tuple of ints or None
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

    def min(self, dim: Any = None, keepdim: builtins.bool = False) -> Tensor | MaxResult:
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

    def softmax(self, dim: int) -> Tensor:
        """exp(self) normalised to sum to 1 along ``dim``."""
        return _ops.softmax(self, dim)

    def log_softmax(self, dim: int) -> Tensor:
        """log(softmax(self, dim)), computed stably."""
        return _ops.log_softmax(self, dim)

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

    # ---- more elementwise ops, comparisons and tests (functions/elementwise_more.py)
    def round(self, *, decimals: int = 0) -> Tensor:
        """Round to ``decimals`` places, halves to even."""
        return _ops.round(self, decimals=decimals)

    def floor(self) -> Tensor:
        """The largest integer <= each element."""
        return _ops.floor(self)

    def ceil(self) -> Tensor:
        """The smallest integer >= each element."""
        return _ops.ceil(self)

    def trunc(self) -> Tensor:
        """Each element rounded toward zero."""
        return _ops.trunc(self)

    def sign(self) -> Tensor:
        """-1, 0 or 1 by the sign of each element."""
        return _ops.sign(self)

    def reciprocal(self) -> Tensor:
        """1 / self, elementwise."""
        return _ops.reciprocal(self)

    def square(self) -> Tensor:
        """self * self, elementwise."""
        return _ops.square(self)

    def rsqrt(self) -> Tensor:
        """1 / sqrt(self), elementwise."""
        return _ops.rsqrt(self)

    def log2(self) -> Tensor:
        """Base-2 logarithm, elementwise."""
        return _ops.log2(self)

    def log10(self) -> Tensor:
        """Base-10 logarithm, elementwise."""
        return _ops.log10(self)

    def expm1(self) -> Tensor:
        """exp(self) - 1, elementwise, accurate for tiny values."""
        return _ops.expm1(self)

    def exp2(self) -> Tensor:
        """2 ** self, elementwise."""
        return _ops.exp2(self)

    def tan(self) -> Tensor:
        """Tangent, elementwise."""
        return _ops.tan(self)

    def atan2(self, other: Any) -> Tensor:
        """The angle of the point (other, self), elementwise."""
        return _ops.atan2(self, other)

    def clamp_min(self, min: Any) -> Tensor:
        """``clamp(min=min)``."""
        return _ops.clamp_min(self, min)

    def clamp_max(self, max: Any) -> Tensor:
        """``clamp(max=max)``."""
        return _ops.clamp_max(self, max)

    def lerp(self, end: Any, weight: Any) -> Tensor:
        """``self + weight * (end - self)``."""
        return _ops.lerp(self, end, weight)

    def fmod(self, other: Any) -> Tensor:
        """Remainder of self / other with the sign of self."""
        return _ops.fmod(self, other)

    def true_divide(self, other: Any) -> Tensor:
        """``self / other`` (as ``div``)."""
        return _ops.true_divide(self, other)

    def isnan(self) -> Tensor:
        """True where an element is NaN."""
        return _ops.isnan(self)

    def isinf(self) -> Tensor:
        """True where an element is infinite."""
        return _ops.isinf(self)

    def isfinite(self) -> Tensor:
        """True where an element is neither NaN nor infinite."""
        return _ops.isfinite(self)

    def logical_not(self) -> Tensor:
        """True where an element is zero."""
        return _ops.logical_not(self)

    def logical_and(self, other: Any) -> Tensor:
        """True where both elements are nonzero."""
        return _ops.logical_and(self, other)

    def logical_or(self, other: Any) -> Tensor:
        """True where either element is nonzero."""
        return _ops.logical_or(self, other)

    def logical_xor(self, other: Any) -> Tensor:
        """True where exactly one element is nonzero."""
        return _ops.logical_xor(self, other)

    def isclose(
        self, other: Any, rtol: builtins.float = 1e-05, atol: builtins.float = 1e-08, equal_nan: builtins.bool = False
    ) -> Tensor:
        """True where ``|self - other| <= atol + rtol * |other|``."""
        return _ops.isclose(self, other, rtol, atol, equal_nan)

    def allclose(
        self, other: Any, rtol: builtins.float = 1e-05, atol: builtins.float = 1e-08, equal_nan: builtins.bool = False
    ) -> builtins.bool:
        """True when every element is close to ``other``'s (a Python bool)."""
        return _ops.allclose(self, other, rtol, atol, equal_nan)

    def equal(self, other: Any) -> builtins.bool:
        """True when shapes and values are the same (a Python bool)."""
        return _ops.equal(self, other)

    # ---- selection, ordering and shape ops (functions/selection.py)
    def sort(self, dim: int = -1, descending: builtins.bool = False, stable: builtins.bool = False) -> Any:
        """(values, indices) sorted along ``dim``."""
        return _ops.sort(self, dim, descending, stable)

    def argsort(self, dim: int = -1, descending: builtins.bool = False, stable: builtins.bool = False) -> Tensor:
        """The indices that sort along ``dim``."""
        return _ops.argsort(self, dim, descending, stable)

    def topk(self, k: int, dim: int = -1, largest: builtins.bool = True, sorted: builtins.bool = True) -> Any:
        """(values, indices) of the ``k`` largest (or smallest) along ``dim``."""
        return _ops.topk(self, k, dim, largest, sorted)

    def cumsum(self, dim: int, dtype: Any = None) -> Tensor:
        """Running sum along ``dim``."""
        return _ops.cumsum(self, dim, dtype)

    def cumprod(self, dim: int, dtype: Any = None) -> Tensor:
        """Running product along ``dim``."""
        return _ops.cumprod(self, dim, dtype)

    def prod(self, dim: int | None = None, keepdim: builtins.bool = False, dtype: Any = None) -> Tensor:
        """Product of all elements or along ``dim``."""
        return _ops.prod(self, dim, keepdim, dtype)

    def norm(self, p: Any = "fro", dim: Dims = None, keepdim: builtins.bool = False, dtype: Any = None) -> Tensor:
        """The vector norm (2 by default) over ``dim``."""
        return _ops.norm(self, p, dim, keepdim, dtype)

    def gather(self, dim: int, index: Tensor) -> Tensor:
        """Values picked along ``dim`` at ``index``."""
        return _ops.gather(self, dim, index)

    def index_select(self, dim: int, index: Tensor) -> Tensor:
        """The slices along ``dim`` at the positions of the 1-D ``index``."""
        return _ops.index_select(self, dim, index)

    def scatter(self, dim: int, index: Tensor, src: Any = None, *, value: Any = None) -> Tensor:
        """A copy with ``src`` (a tensor or a number) written at ``index`` along ``dim``."""
        return _ops.scatter(self, dim, index, src, value=value)

    def masked_select(self, mask: Tensor) -> Tensor:
        """The elements where ``mask`` is True, as a 1-D tensor."""
        return _ops.masked_select(self, mask)

    def nonzero(self, *, as_tuple: builtins.bool = False) -> Any:
        """Indices of the non-zero elements."""
        return _ops.nonzero(self, as_tuple=as_tuple)

    def count_nonzero(self, dim: Dims = None) -> Tensor:
        """How many elements are not zero (over ``dim``)."""
        return _ops.count_nonzero(self, dim)

    def unique(
        self,
        sorted: builtins.bool = True,
        return_inverse: builtins.bool = False,
        return_counts: builtins.bool = False,
        dim: int | None = None,
    ) -> Any:
        """The distinct values (and optionally inverse indices and counts)."""
        return _ops.unique(self, sorted, return_inverse, return_counts, dim)

    def flip(self, *dims: Any, **kwargs: Any) -> Tensor:
        """Reversed along ``dims`` (a copy)."""
        return _ops.flip(self, *dims, **kwargs)

    def roll(self, shifts: Any, dims: Any = None) -> Tensor:
        """Shifted cyclically along ``dims``."""
        return _ops.roll(self, shifts, dims)

    def narrow(self, dim: int, start: int, length: int) -> Tensor:
        """``length`` elements along ``dim`` from ``start`` (a view)."""
        return _ops.narrow(self, dim, start, length)

    def select(self, dim: int, index: int) -> Tensor:
        """The slice at ``index`` along ``dim``, that dim removed (a view)."""
        return _ops.select(self, dim, index)

    def unbind(self, dim: int = 0) -> tuple[Tensor, ...]:
        """Every slice along ``dim``, as a tuple."""
        return _ops.unbind(self, dim)

    def movedim(self, source: Any, destination: Any) -> Tensor:
        """Dimension(s) ``source`` moved to ``destination``."""
        return _ops.movedim(self, source, destination)

    moveaxis = movedim

    def repeat(self, *sizes: Any) -> Tensor:
        """Copied ``sizes[d]`` times along each dim."""
        return _ops.repeat(self, *sizes)

    def tile(self, *dims: Any, **kwargs: Any) -> Tensor:
        """``repeat``, with missing leading ``dims`` taken as 1."""
        if kwargs:  # x.tile(dims=(2, 1))
            return _ops.tile(self, **kwargs)
        return _ops.tile(self, dims[0] if len(dims) == 1 and isinstance(dims[0], (tuple, list)) else dims)

    def repeat_interleave(self, repeats: Any, dim: int | None = None) -> Tensor:
        """Each element (or slice along ``dim``) repeated in a row."""
        return _ops.repeat_interleave(self, repeats, dim)

    def diag(self, diagonal: int = 0) -> Tensor:
        """1-D: the diagonal matrix; 2-D: the diagonal."""
        return _ops.diag(self, diagonal)

    def outer(self, vec2: Tensor) -> Tensor:
        """Outer product with the 1-D ``vec2``."""
        return _ops.outer(self, vec2)

    def dot(self, other: Tensor) -> Tensor:
        """Dot product of two 1-D tensors."""
        return _ops.dot(self, other)

    def broadcast_to(self, size: Any) -> Tensor:
        """A view at the broadcast shape ``size``."""
        return _ops.broadcast_to(self, size)

    def new_tensor(
        self, data: Any, *, dtype: Any = None, device: Any = None, requires_grad: builtins.bool = False
    ) -> Tensor:
        """A new tensor from ``data``, with this tensor's dtype and device unless given."""
        from minitorch import factories

        return factories.tensor(data, dtype or self.dtype, device or self.device, requires_grad)

    def new_zeros(
        self, *size: Any, dtype: Any = None, device: Any = None, requires_grad: builtins.bool = False
    ) -> Tensor:
        """Zeros of ``size``, with this tensor's dtype and device unless given."""
        from minitorch import factories

        return factories.zeros(
            *size, dtype=dtype or self.dtype, device=device or self.device, requires_grad=requires_grad
        )

    def new_ones(
        self, *size: Any, dtype: Any = None, device: Any = None, requires_grad: builtins.bool = False
    ) -> Tensor:
        """Ones of ``size``, with this tensor's dtype and device unless given."""
        from minitorch import factories

        return factories.ones(
            *size, dtype=dtype or self.dtype, device=device or self.device, requires_grad=requires_grad
        )

    def new_empty(
        self, *size: Any, dtype: Any = None, device: Any = None, requires_grad: builtins.bool = False
    ) -> Tensor:
        """An uninitialised tensor of ``size``, with this tensor's dtype and device unless given."""
        from minitorch import factories

        return factories.empty(
            *size, dtype=dtype or self.dtype, device=device or self.device, requires_grad=requires_grad
        )

    def new_full(
        self, size: Any, fill_value: Any, *, dtype: Any = None, device: Any = None, requires_grad: builtins.bool = False
    ) -> Tensor:
        """``fill_value`` everywhere in ``size``, with this tensor's dtype and device unless given."""
        from minitorch import factories

        return factories.full(
            size, fill_value, dtype=dtype or self.dtype, device=device or self.device, requires_grad=requires_grad
        )

    def nelement(self) -> int:
        """Total number of elements (``numel``)."""
        return int(self.data.size)

    def element_size(self) -> int:
        """Bytes per element."""
        return int(self.data.itemsize)

    @property
    def itemsize(self) -> int:
        """Bytes per element."""
        return int(self.data.itemsize)

    @property
    def nbytes(self) -> int:
        """Bytes of all the elements."""
        return int(self.data.size * self.data.itemsize)


def _link_ops() -> None:
    """Import what the methods above call; run by ``tensor.py`` right after ``Tensor`` exists.

    The ops import ``Tensor`` themselves, so they cannot be imported before it is defined.
    """
    global _ops, run_backward, as_operand, cast, Tensor
    from minitorch import functions as _ops
    from minitorch.autograd.engine import run_backward
    from minitorch.functions.promotion import as_operand, cast
    from minitorch.tensor import Tensor
