"""The Tensor: an n-dimensional array plus what autograd needs to know about it.

A Tensor wraps a backend array (``.data``: a NumPy array on the CPU, a CuPy array on a
GPU) and adds ``requires_grad``, ``.grad`` and ``.grad_fn``. Every operation is a
``Function`` (see ``minitorch/functions/``); the methods here only pick the right one,
promote dtypes the way PyTorch does, and call ``Function.apply``.
"""

import weakref

import numpy as np

from minitorch import backend
from minitorch.dtypes import (
    DEFAULT_FLOAT,
    DType,
    dtype_of_array,
    get_dtype,
    int64,
    result_dtype,
    scalar_category,
)
from minitorch.errors import MiniTorchError

_SCALAR_TYPES = (int, float, bool, np.number, np.bool_)


class Tensor:
    """An n-dimensional array that can record the operations applied to it."""

    __slots__ = ("data", "requires_grad", "grad", "grad_fn", "_hooks", "__dict__", "__weakref__")

    # Make NumPy hand ``ndarray * tensor`` over to Tensor.__rmul__ instead of converting.
    __array_ufunc__ = None
    __array_priority__ = 1000

    def __init__(self, data, dtype=None, device=None, requires_grad=False):
        """Same as ``minitorch.tensor(data, dtype, device, requires_grad)``."""
        self._init_leaf(_to_array(data, dtype, device), requires_grad)

    def _init_leaf(self, array, requires_grad):
        """Set the fields of a new leaf tensor around a backend ``array`` (Parameter uses it too)."""
        self.data = array
        self.grad = None
        self.grad_fn = None
        self._hooks = None
        self.requires_grad = False
        if requires_grad:
            self.requires_grad_(True)

    @classmethod
    def _make(cls, data, grad_fn, requires_grad):
        """Fast constructor used by ops: ``data`` is already a backend array."""
        t = object.__new__(cls)
        t.data = data
        t.grad_fn = grad_fn
        t.requires_grad = requires_grad
        t.grad = None
        t._hooks = None
        return t

    # ------------------------------------------------------------------ attributes
    @property
    def shape(self):
        """The size of each dimension, as a tuple."""
        return self.data.shape

    @property
    def ndim(self):
        """Number of dimensions."""
        return self.data.ndim

    @property
    def dtype(self):
        """The element type: ``minitorch.float32``, ``float64``, ``int64`` or ``bool``."""
        return dtype_of_array(self.data)

    @property
    def device(self):
        """``"cpu"`` or ``"cuda"``."""
        return backend.device_of(self.data)

    @property
    def is_leaf(self):
        """True for tensors not produced by a recorded op (inputs and parameters)."""
        return self.grad_fn is None

    @property
    def is_cuda(self):
        """True when the data lives on a GPU."""
        return self.device == backend.CUDA

    @property
    def T(self):
        """The transpose of a 2-D tensor (dimensions reversed for other ranks)."""
        if self.data.ndim < 2:
            return self
        return self.permute(*reversed(range(self.data.ndim)))

    @property
    def mT(self):
        """The last two dimensions swapped (a batch of transposed matrices)."""
        return self.transpose(-2, -1)

    def size(self, dim=None):
        """The shape, or the size of dimension ``dim``."""
        if dim is None:
            return self.data.shape
        return self.data.shape[_check_dim("size", dim, self.data.ndim)]

    def numel(self):
        """Total number of elements."""
        return int(self.data.size)

    def dim(self):
        """Number of dimensions (same as ``ndim``)."""
        return self.data.ndim

    def stride(self, dim=None):
        """Steps, in elements, between neighbours along each dimension (PyTorch's units)."""
        shape = self.data.shape
        strides = [s // self.data.itemsize for s in self.data.strides]
        # NumPy gives a new size-1 axis (``t[None]``, ``unsqueeze``, ``expand``) stride 0;
        # PyTorch gives it the stride it would have in a contiguous layout of what follows.
        for i in reversed(range(len(strides))):
            if shape[i] == 1 and strides[i] == 0:
                strides[i] = strides[i + 1] * shape[i + 1] if i + 1 < len(strides) else 1
        strides = tuple(strides)
        if dim is None:
            return strides
        return strides[_check_dim("stride", dim, self.data.ndim)]

    def is_contiguous(self):
        """True when the elements lie in memory in row-major order with no gaps."""
        return bool(self.data.flags.c_contiguous)

    def is_floating_point(self):
        """True for float32 and float64 tensors."""
        return self.data.dtype.kind == "f"

    # ------------------------------------------------------------------ conversions
    def item(self):
        """The single value of a one-element tensor as a Python number."""
        if self.data.size != 1:
            raise MiniTorchError(
                f"item(): a Tensor with {self.data.size} elements (shape {tuple(self.shape)}) "
                "cannot be converted to a Python number; only one-element tensors can"
            )
        return self.data.item()

    def tolist(self):
        """The values as (nested) Python lists, or a number for a 0-d tensor."""
        return self.data.tolist()

    def numpy(self):
        """The data as a NumPy array sharing memory with this tensor (CPU only)."""
        if self.device != backend.CPU:
            raise MiniTorchError(
                "numpy(): this tensor is on cuda; copy it to the host first with .cpu().numpy()"
            )
        if self.requires_grad:
            raise MiniTorchError(
                "numpy(): can't call numpy() on a tensor that requires grad; use "
                "tensor.detach().numpy() instead"
            )
        return self.data

    def __array__(self, dtype=None, copy=None):
        if self.device != backend.CPU:
            # NumPy asking for our data must not copy from the GPU behind the user's back.
            raise MiniTorchError(
                "can't convert a cuda tensor to a NumPy array implicitly; copy it to the host "
                "first with .cpu() (e.g. np.asarray(t.cpu()) or t.cpu().numpy())"
            )
        data = self.data
        return data if dtype is None else data.astype(dtype)

    def detach(self):
        """A tensor sharing this one's data but cut off from the graph."""
        return Tensor._make(self.data, None, False)

    def clone(self):
        """A copy of the data that stays in the graph (gradients flow back to this tensor)."""
        from minitorch.functions.shape import Clone

        return Clone.apply(self)

    def contiguous(self):
        """This tensor if contiguous, else a contiguous (row-major) copy."""
        if self.data.flags.c_contiguous:
            return self
        return self.clone()

    def requires_grad_(self, requires_grad=True):
        """Start (or stop) recording operations on this leaf tensor; returns self."""
        if requires_grad and self.data.dtype.kind != "f":
            raise MiniTorchError(
                f"requires_grad_(): only tensors of floating point dtype can require gradients, "
                f"got {self.dtype}; convert first with .float()"
            )
        if not requires_grad and self.grad_fn is not None:
            raise MiniTorchError(
                "requires_grad_(False): you can only change requires_grad of leaf tensors; "
                "use .detach() to get a tensor outside the graph"
            )
        self.requires_grad = bool(requires_grad)
        return self

    def to(self, *args, dtype=None, device=None):
        """Move to a device (``"cpu"``/``"cuda"``) and/or convert to a dtype; differentiable."""
        for arg in args:
            if isinstance(arg, str) or (hasattr(arg, "type") and not isinstance(arg, DType)):
                device = arg
            elif isinstance(arg, Tensor):
                device, dtype = arg.device, arg.dtype
            else:
                dtype = arg
        out = self
        if device is not None:
            target = backend.normalize_device(device)
            if target == backend.CUDA:
                backend.require_cuda("move a tensor to 'cuda'")
            if target != out.device:
                from minitorch.functions.shape import ToDevice

                out = ToDevice.apply(out, target)
        if dtype is not None:
            out = _cast(out, get_dtype(dtype))
        return out

    def cpu(self):
        """A copy on the CPU (or self when already there)."""
        return self.to(backend.CPU)

    def cuda(self):
        """A copy on the GPU (or self when already there)."""
        return self.to(backend.CUDA)

    def float(self):
        """Convert to float32."""
        return _cast(self, DEFAULT_FLOAT)

    def double(self):
        """Convert to float64."""
        from minitorch.dtypes import float64

        return _cast(self, float64)

    def long(self):
        """Convert to int64."""
        return _cast(self, int64)

    def bool(self):
        """Convert to bool."""
        from minitorch.dtypes import bool_

        return _cast(self, bool_)

    def type_as(self, other):
        """Convert to the dtype of ``other``."""
        return _cast(self, other.dtype)

    # ------------------------------------------------------------------ autograd
    def backward(self, gradient=None, retain_graph=False):
        """Compute d self / d leaf for every leaf that requires grad, into ``leaf.grad``."""
        from minitorch.autograd.engine import run_backward

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
            grad = backend.module_of(self.data).ones_like(self.data)
        else:
            grad = gradient.data if isinstance(gradient, Tensor) else gradient
            if backend.is_backend_array(grad) and backend.device_of(grad) != self.device:
                raise MiniTorchError(
                    f"backward(): gradient is on {backend.device_of(grad)} but the tensor is on "
                    f"{self.device}; move the gradient with .to('{self.device}')"
                )
            # A copy: the caller's array must never end up shared with some leaf's .grad.
            grad = backend.module_of(self.data).array(grad, dtype=self.data.dtype, copy=True)
            if grad.shape != self.data.shape:
                raise MiniTorchError(
                    f"backward(): gradient has shape {tuple(grad.shape)} but the tensor has "
                    f"shape {tuple(self.shape)}; they must match"
                )
        run_backward(self, grad, retain_graph=retain_graph)

    def retain_grad(self):
        """Keep ``.grad`` for this non-leaf tensor too after backward."""
        if not self.requires_grad:
            raise MiniTorchError("retain_grad(): can't retain_grad on a tensor that does not require grad")
        if self.grad_fn is None:
            return
        if self.__dict__.get("_retains_grad"):
            return
        self._retains_grad = True
        target = weakref.ref(self)

        def keep(grad):
            tensor = target()
            if tensor is not None:
                if tensor.grad is None:
                    tensor.grad = Tensor._make(grad.data.copy(), None, False)  # its own memory
                else:
                    tensor.grad = Tensor._make(tensor.grad.data + grad.data, None, False)

        self._retain_hook = keep
        self._add_hook(keep)

    @property
    def retains_grad(self):
        """True after ``retain_grad()`` on a non-leaf tensor."""
        return bool(self.__dict__.get("_retains_grad"))

    def register_hook(self, hook):
        """Call ``hook(grad)`` when this tensor's gradient is computed; it may return a new one.

        Returns a handle whose ``remove()`` unregisters the hook.
        """
        if not self.requires_grad:
            raise MiniTorchError("register_hook(): cannot register a hook on a tensor that doesn't require grad")
        return self._add_hook(hook)

    def _add_hook(self, hook):
        if self.grad_fn is None:
            if self._hooks is None:
                self._hooks = []
            hooks = self._hooks
        else:
            if self.grad_fn._pre_hooks is None:
                self.grad_fn._pre_hooks = []
            hooks = self.grad_fn._pre_hooks
        keep = self.__dict__.get("_retain_hook")
        if keep is not None and keep in hooks:
            # retain_grad's hook stays last, so .grad shows the gradient after every hook
            # (as in PyTorch, whatever the order they were registered in).
            hooks.insert(hooks.index(keep), hook)
        else:
            hooks.append(hook)
        return _HookHandle(hooks, hook)

    # ------------------------------------------------------------------ in-place updates
    def _check_inplace(self, op):
        from minitorch.autograd.grad_mode import _STATE

        if _STATE[0] and self.requires_grad:
            raise MiniTorchError(
                f"{op}: a tensor that requires grad can't be changed in place while the graph is "
                "recorded; update parameters inside `with minitorch.no_grad():`"
            )

    def _inplace(self, op, ufunc_name, other):
        self._check_inplace(op)
        value = other.data if isinstance(other, Tensor) else other
        if backend.is_backend_array(value) and backend.device_of(value) != self.device:
            from minitorch.autograd.function import device_mismatch_message

            raise MiniTorchError(device_mismatch_message(op, [(0, self.device), (1, backend.device_of(value))]))
        xp = backend.module_of(self.data)
        getattr(xp, ufunc_name)(self.data, value, out=self.data, casting="unsafe")
        return self

    def __iadd__(self, other):
        return self._inplace("+=", "add", other)

    def __isub__(self, other):
        return self._inplace("-=", "subtract", other)

    def __imul__(self, other):
        return self._inplace("*=", "multiply", other)

    def __itruediv__(self, other):
        return self._inplace("/=", "true_divide", other)

    def add_(self, other, alpha=1):
        """In-place ``self += alpha * other``."""
        return self._inplace("add_", "add", other * alpha if alpha != 1 else other)

    def sub_(self, other, alpha=1):
        """In-place ``self -= alpha * other``."""
        return self._inplace("sub_", "subtract", other * alpha if alpha != 1 else other)

    def mul_(self, other):
        """In-place ``self *= other``."""
        return self._inplace("mul_", "multiply", other)

    def zero_(self):
        """Fill with zeros in place."""
        self._check_inplace("zero_")
        self.data[...] = 0
        return self

    def fill_(self, value):
        """Fill with ``value`` in place."""
        self._check_inplace("fill_")
        self.data[...] = value.data if isinstance(value, Tensor) else value
        return self

    def copy_(self, src):
        """Copy ``src``'s values into this tensor in place (broadcasting allowed)."""
        self._check_inplace("copy_")
        value = src.data if isinstance(src, Tensor) else src
        self.data[...] = backend.to_device(backend.module_of(value).asarray(value), self.device)
        return self

    def __setitem__(self, index, value):
        self._check_inplace("__setitem__ (t[...] = value)")
        self.data[_index_to_arrays(index)] = value.data if isinstance(value, Tensor) else value

    # ------------------------------------------------------------------ python protocol
    __hash__ = object.__hash__

    def __len__(self):
        if self.data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.data.shape[0]

    def __iter__(self):
        if self.data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self.data.shape[0]))

    def __bool__(self):
        if self.data.size != 1:
            raise MiniTorchError(
                f"the truth value of a tensor with {self.data.size} elements is ambiguous; "
                "use .any() or .all()"
            )
        return bool(self.data.item())

    def __float__(self):
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __index__(self):
        if self.data.dtype.kind not in "iub" or self.data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.data.item())

    def __format__(self, spec):
        if self.data.size == 1 and spec:
            return format(self.item(), spec)
        return object.__format__(self, spec) if spec else repr(self)

    def __repr__(self):
        from minitorch.printing import tensor_repr

        return tensor_repr(self)

    def any(self):
        """True when any element is non-zero (a bool tensor)."""
        return Tensor._make(backend.module_of(self.data).asarray(self.data.any()), None, False)

    def all(self):
        """True when every element is non-zero (a bool tensor)."""
        return Tensor._make(backend.module_of(self.data).asarray(self.data.all()), None, False)

    # ------------------------------------------------------------------ operators
    def _binary(self, fn, other, reverse=False):
        other = as_tensor_operand(other, self)
        if other is None:
            return NotImplemented
        return fn(other, self) if reverse else fn(self, other)

    def __add__(self, other):
        return self._binary(_ops.add, other)

    def __radd__(self, other):
        return self._binary(_ops.add, other, reverse=True)

    def __sub__(self, other):
        return self._binary(_ops.sub, other)

    def __rsub__(self, other):
        return self._binary(_ops.sub, other, reverse=True)

    def __mul__(self, other):
        return self._binary(_ops.mul, other)

    def __rmul__(self, other):
        return self._binary(_ops.mul, other, reverse=True)

    def __truediv__(self, other):
        return self._binary(_ops.div, other)

    def __rtruediv__(self, other):
        return self._binary(_ops.div, other, reverse=True)

    def __pow__(self, other):
        return self._binary(_ops.pow, other)

    def __rpow__(self, other):
        return self._binary(_ops.pow, other, reverse=True)

    def __matmul__(self, other):
        return self._binary(_ops.matmul, other)

    def __rmatmul__(self, other):
        return self._binary(_ops.matmul, other, reverse=True)

    def __neg__(self):
        if self.data.dtype.kind == "b":
            raise MiniTorchError("neg: negation (-) of a bool tensor is not supported; use ~ (logical not) instead")
        return _ops.Neg.apply(self)

    def __pos__(self):
        return self

    def __abs__(self):
        return _ops.abs(self)

    def __floordiv__(self, other):
        return self._no_grad_binary("floor_divide", other)

    def __mod__(self, other):
        return self._no_grad_binary("remainder", other)

    def _no_grad_binary(self, ufunc_name, other):
        """``//`` and ``%``: computed on the data, outside the graph (not differentiable)."""
        value = other.data if isinstance(other, Tensor) else other
        out = getattr(backend.module_of(self.data), ufunc_name)(self.data, value)
        return Tensor._make(backend.module_of(self.data).asarray(out), None, False)

    def _compare(self, ufunc_name, other):
        """Elementwise comparison: a bool tensor, never part of the graph."""
        if isinstance(other, Tensor):
            value = other.data
        elif isinstance(other, _SCALAR_TYPES) or backend.is_backend_array(other):
            value = other
        else:
            return NotImplemented
        xp = backend.module_of(self.data)
        try:
            out = getattr(xp, ufunc_name)(self.data, value)
        except ValueError as exc:
            from minitorch.functions.broadcast import broadcast_shape

            broadcast_shape(self.shape, getattr(value, "shape", ()), op=ufunc_name)
            raise exc
        return Tensor._make(xp.asarray(out), None, False)

    def __eq__(self, other):
        return self._compare("equal", other)

    def __ne__(self, other):
        return self._compare("not_equal", other)

    def __lt__(self, other):
        return self._compare("less", other)

    def __le__(self, other):
        return self._compare("less_equal", other)

    def __gt__(self, other):
        return self._compare("greater", other)

    def __ge__(self, other):
        return self._compare("greater_equal", other)

    def eq(self, other):
        """Elementwise ``==`` (a bool tensor)."""
        return self.__eq__(other)

    def ne(self, other):
        """Elementwise ``!=``."""
        return self.__ne__(other)

    def lt(self, other):
        """Elementwise ``<``."""
        return self.__lt__(other)

    def le(self, other):
        """Elementwise ``<=``."""
        return self.__le__(other)

    def gt(self, other):
        """Elementwise ``>``."""
        return self.__gt__(other)

    def ge(self, other):
        """Elementwise ``>=``."""
        return self.__ge__(other)

    def __invert__(self):
        if self.data.dtype.kind != "b":
            raise MiniTorchError(f"~ (logical not) needs a bool tensor, got {self.dtype}")
        return Tensor._make(~self.data, None, False)

    def __and__(self, other):
        return Tensor._make(self.data & (other.data if isinstance(other, Tensor) else other), None, False)

    def __or__(self, other):
        return Tensor._make(self.data | (other.data if isinstance(other, Tensor) else other), None, False)

    def __getitem__(self, index):
        return _ops.getitem(self, index)

    # ------------------------------------------------------------------ op methods
    def add(self, other):
        """``self + other``."""
        return _ops.add(self, other)

    def sub(self, other):
        """``self - other``."""
        return _ops.sub(self, other)

    def mul(self, other):
        """``self * other``."""
        return _ops.mul(self, other)

    def div(self, other):
        """``self / other``."""
        return _ops.div(self, other)

    def neg(self):
        """``-self``."""
        return _ops.Neg.apply(self)

    def pow(self, exponent):
        """``self ** exponent``."""
        return _ops.pow(self, exponent)

    def matmul(self, other):
        """``self @ other``."""
        return _ops.matmul(self, other)

    def exp(self):
        """e ** self, elementwise."""
        return _ops.exp(self)

    def log(self):
        """Natural logarithm, elementwise."""
        return _ops.log(self)

    def sqrt(self):
        """Square root, elementwise."""
        return _ops.sqrt(self)

    def sin(self):
        """Sine, elementwise."""
        return _ops.sin(self)

    def cos(self):
        """Cosine, elementwise."""
        return _ops.cos(self)

    def tanh(self):
        """Hyperbolic tangent, elementwise."""
        return _ops.tanh(self)

    def sigmoid(self):
        """Logistic sigmoid, elementwise."""
        return _ops.sigmoid(self)

    def relu(self):
        """max(self, 0), elementwise."""
        return _ops.relu(self)

    def abs(self):
        """Absolute value, elementwise."""
        return _ops.abs(self)

    def clamp(self, min=None, max=None):
        """Limit every element to [min, max]."""
        return _ops.clamp(self, min, max)

    clip = clamp

    def maximum(self, other):
        """Elementwise maximum with ``other``."""
        return _ops.maximum(self, other)

    def minimum(self, other):
        """Elementwise minimum with ``other``."""
        return _ops.minimum(self, other)

    def sum(self, dim=None, keepdim=False, dtype=None):
        """Sum of all elements or over ``dim``."""
        return _ops.sum(self, dim, keepdim, dtype)

    def mean(self, dim=None, keepdim=False):
        """Mean of all elements or over ``dim``."""
        return _ops.mean(self, dim, keepdim)

    def amax(self, dim=None, keepdim=False):
        """Largest value over ``dim``."""
        return _ops.amax(self, dim, keepdim)

    def amin(self, dim=None, keepdim=False):
        """Smallest value over ``dim``."""
        return _ops.amin(self, dim, keepdim)

    def max(self, dim=None, keepdim=False):
        """The largest element, or (values, indices) along ``dim``."""
        return _ops.max(self, dim, keepdim)

    def min(self, dim=None, keepdim=False):
        """The smallest element, or (values, indices) along ``dim``."""
        return _ops.min(self, dim, keepdim)

    def var(self, dim=None, unbiased=True, keepdim=False, correction=None):
        """Variance over ``dim`` (unbiased by default)."""
        return _ops.var(self, dim, unbiased, keepdim, correction)

    def std(self, dim=None, unbiased=True, keepdim=False, correction=None):
        """Standard deviation over ``dim``."""
        return _ops.std(self, dim, unbiased, keepdim, correction)

    def logsumexp(self, dim, keepdim=False):
        """log(sum(exp(self), dim)), computed stably."""
        return _ops.logsumexp(self, dim, keepdim)

    def argmax(self, dim=None, keepdim=False):
        """Index of the largest element."""
        return _ops.argmax(self, dim, keepdim)

    def argmin(self, dim=None, keepdim=False):
        """Index of the smallest element."""
        return _ops.argmin(self, dim, keepdim)

    def softmax(self, dim):
        """exp(self) normalised to sum to 1 along ``dim``."""
        from minitorch.nn import functional as F

        return F.softmax(self, dim)

    def log_softmax(self, dim):
        """log(softmax(self, dim)), computed stably."""
        from minitorch.nn import functional as F

        return F.log_softmax(self, dim)

    def reshape(self, *shape):
        """Same elements, new shape (a view when possible)."""
        return _ops.reshape(self, *shape)

    def view(self, *shape):
        """Same memory, new shape (contiguous layouts only)."""
        return _ops.view(self, *shape)

    def view_as(self, other):
        """``self.view(other.shape)``."""
        return _ops.view(self, other.shape)

    def reshape_as(self, other):
        """``self.reshape(other.shape)``."""
        return _ops.reshape(self, other.shape)

    def transpose(self, dim0, dim1):
        """Swap two dimensions (a view)."""
        return _ops.transpose(self, dim0, dim1)

    def t(self):
        """Transpose of a 2-D tensor."""
        return _ops.transpose(self, 0, 1) if self.ndim == 2 else self

    def permute(self, *dims):
        """Reorder dimensions (a view)."""
        return _ops.permute(self, *dims)

    def unsqueeze(self, dim):
        """Insert a size-1 dimension at ``dim``."""
        return _ops.unsqueeze(self, dim)

    def squeeze(self, dim=None):
        """Remove size-1 dimensions."""
        return _ops.squeeze(self, dim)

    def expand(self, *sizes):
        """Repeat size-1 dimensions without copying."""
        return _ops.expand(self, *sizes)

    def expand_as(self, other):
        """``self.expand(other.shape)``."""
        return _ops.expand_as(self, other)

    def flatten(self, start_dim=0, end_dim=-1):
        """Merge dimensions start_dim..end_dim into one."""
        return _ops.flatten(self, start_dim, end_dim)

    def where(self, condition, other):
        """``where(condition, self, other)``."""
        return _ops.where(condition, self, other)


class _HookHandle:
    """What ``register_hook`` returns: ``handle.remove()`` unregisters the hook."""

    def __init__(self, hooks, hook):
        self._hooks, self._hook = hooks, hook

    def remove(self):
        """Unregister the hook (safe to call twice)."""
        if self._hook in self._hooks:
            self._hooks.remove(self._hook)


# ---------------------------------------------------------------------- helpers
def _check_dim(op, dim, ndim):
    """Normalise a possibly negative dim, with a clear error when it is out of range."""
    low, high = -max(ndim, 1), max(ndim, 1) - 1
    if not low <= dim <= high:
        raise IndexError(f"{op}: dimension {dim} is out of range for a {ndim}-d tensor (expected {low} to {high})")
    return dim % max(ndim, 1)


def _to_array(data, dtype=None, device=None):
    """Build the backend array for ``minitorch.tensor(data, dtype, device)`` (always a copy)."""
    if isinstance(data, Tensor):
        array = data.data.copy()
    elif backend.is_backend_array(data):
        array = data.copy()
    else:
        if isinstance(data, (list, tuple)):
            data = _unwrap_nested(data)
        array = np.array(data)
        if dtype is None and array.dtype == np.float64 and not isinstance(data, (np.ndarray, np.floating)):
            # Python floats make float32 tensors, as in PyTorch; NumPy float64 stays float64.
            array = array.astype(np.float32)
        if array.dtype.kind not in "biuf":
            raise TypeError(
                f"tensor(): could not make a tensor from {type(data).__name__} data (NumPy made "
                f"dtype {array.dtype}); pass numbers, nested lists of numbers or an array"
            )
    target = get_dtype(dtype) if dtype is not None else dtype_of_array(array)
    if array.dtype != target.np_dtype:
        array = array.astype(target.np_dtype)
    if device is not None:
        array = backend.to_device(array, backend.normalize_device(device))
    return array


def _unwrap_nested(data):
    """Replace Tensors inside nested lists by their values (``tensor([t1, t2])``)."""
    out = []
    for item in data:
        if isinstance(item, Tensor):
            out.append(backend.to_device(item.data, backend.CPU))
        elif isinstance(item, (list, tuple)):
            out.append(_unwrap_nested(item))
        else:
            out.append(item)
    return out


def _cast(t, dtype):
    """``t`` converted to ``dtype`` (a recorded op, so gradients flow back), or t itself."""
    if t.data.dtype == dtype.np_dtype:
        return t
    from minitorch.functions.shape import Cast

    return Cast.apply(t, dtype.np_dtype)


def _index_to_arrays(index):
    """Turn Tensors inside an index into backend arrays (NumPy indexes with those)."""
    if isinstance(index, Tensor):
        return index.data
    if isinstance(index, tuple):
        return tuple(i.data if isinstance(i, Tensor) else i for i in index)
    if isinstance(index, list):
        return np.asarray([i.item() if isinstance(i, Tensor) else i for i in index])
    return index


def as_tensor_operand(value, like):
    """A Tensor or a Python scalar for a binary op with ``like``; None if not supported."""
    if isinstance(value, Tensor):
        return value
    if isinstance(value, _SCALAR_TYPES):
        return value
    if backend.is_backend_array(value):
        return Tensor._make(value, None, False)
    return None


def promote(a, b):
    """Cast two operands of a binary op to PyTorch's common dtype.

    ``a`` and ``b`` are Tensors or Python scalars; scalars stay scalars (NumPy keeps the
    array's dtype for them) and only tensors are cast.
    """
    a_t, b_t = isinstance(a, Tensor), isinstance(b, Tensor)
    if a_t and b_t and a.data.dtype == b.data.dtype:
        return a, b
    # A NumPy scalar (np.float64 from x.mean().item()'s cousins, np.sqrt(2), ...) counts as a
    # Python number, as in PyTorch: left as is, NumPy would let an np.float64 turn a float32
    # array into float64.
    if isinstance(a, np.generic):
        a = a.item()
    if isinstance(b, np.generic):
        b = b.item()
    shaped, zero_dim, scalars = [], [], []
    for v in (a, b):
        if isinstance(v, Tensor):
            (shaped if v.data.ndim else zero_dim).append(v.dtype)
        else:
            scalars.append(scalar_category(v))
    target = result_dtype(shaped, zero_dim, scalars)
    if a_t:
        a = _cast(a, target)
    if b_t:
        b = _cast(b, target)
    return a, b


# The ops live in minitorch.functions, which itself needs Tensor: import it last. The
# methods above look ``_ops`` up when called, by which time it is set.
from minitorch import functions as _ops  # noqa: E402
