"""``TensorBase``: a tensor's own state, below the ops and the engine.

A tensor wraps a backend array (``.data``: a NumPy array on the CPU, a CuPy array on a
GPU) and adds what autograd needs: ``requires_grad``, ``.grad``, ``.grad_fn``, gradient
hooks and a version counter for in-place changes. This file holds that state, the
conversions to Python and NumPy, and the Python protocols (``len``, ``bool``, ``repr``).

The ops (``minitorch/functions/``) and the engine (``minitorch/autograd/``) import only
this class: they make new tensors with ``TensorBase._make``. The class users meet,
``minitorch.Tensor`` (``minitorch/tensor/``), stands above the ops: it adds one method line
per op (``exp``, ``sum``, ``+`` ...) and registers itself here as the class that
``_make`` creates (``class Tensor(TensorBase, ..., face=True)``). So the imports go one
way: from the face down to the ops, to the engine, to this state.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any, ClassVar, TypeAlias, TypeVar

import numpy as np

from minitorch import backends
from minitorch.backends.device import device, device_of_tensor_data
from minitorch.dtypes import DType, dtype_of_array
from minitorch.errors import MiniTorchError, check_dim
from minitorch.hints import Array, DTypeLike
from minitorch.printing import tensor_repr
from minitorch.python_data import to_array
from minitorch.size import Size
from minitorch.switches import SWITCHES
from minitorch.tensor_records import HookHandle, VersionCounter

# "The tensor class it was given": ``def exp(a: T) -> T`` says that ``exp`` of a ``Tensor`` is a
# ``Tensor``, so the ops below the face annotate their results without naming the face above them
# (which would tie the layers into one circle, if only for the type checker).
T = TypeVar("T", bound="TensorBase")

# The node of the op that made a tensor (its ``grad_fn``): a ``BackwardNode`` of
# autograd/function.py. This layer sits below autograd and imports nothing of it, not even for
# the type checker, so here a node is Any (as an op's own values on a BackwardNode are there).
Node: TypeAlias = Any


class TensorBase:
    """The state of an n-dimensional array that can record the operations applied to it."""

    __slots__ = ("data", "requires_grad", "_grad", "grad_fn", "_hooks", "_version_counter", "__dict__", "__weakref__")

    # Make NumPy hand ``ndarray * tensor`` over to Tensor.__rmul__ instead of converting.
    __array_ufunc__ = None
    __array_priority__ = 1000

    # The fields (see __slots__), with what each holds.
    data: Array  # the values: a NumPy array on the CPU, a CuPy array on a GPU
    requires_grad: bool
    _grad: TensorBase | None  # ``.grad``: filled in by backward, for leaves (and retain_grad tensors)
    grad_fn: Node | None  # the node of the op that made it (autograd/function.py); None for a leaf
    _hooks: list[Hook] | None  # register_hook functions of a leaf
    _version_counter: VersionCounter | None  # in-place changes to .data; made on first need

    def __init__(
        self, data: Any, dtype: DTypeLike | None = None, device: Any = None, requires_grad: bool = False
    ) -> None:
        """Same as ``minitorch.tensor(data, dtype, device, requires_grad)``."""
        self._init_leaf(to_array(data, dtype, device, TensorBase), requires_grad)

    def _init_leaf(self, array: Array, requires_grad: bool) -> None:
        """Set the fields of a new leaf tensor around a backend ``array`` (Parameter uses it too)."""
        self.data = array
        self._grad = None
        self.grad_fn = None
        self._hooks = None
        self._version_counter = None
        self.requires_grad = False
        if requires_grad:
            self.requires_grad_(True)

    # The class ``_make`` creates: ``minitorch.Tensor`` once it is defined (it passes
    # ``face=True``), so the ops return tensors with every method without importing them.
    _face: ClassVar[type[TensorBase]]

    def __init_subclass__(cls, face: bool = False, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if face:
            TensorBase._face = cls

    @staticmethod
    def _make(data: Array, grad_fn: Node | None, requires_grad: bool) -> Any:
        """Fast constructor used by ops and the engine: ``data`` is already a backend array.

        It returns an instance of the face class (``minitorch.Tensor``), which this layer cannot
        name: to the type checker the result is Any, and the ops' ``-> T`` annotations say what it is.
        """
        t = object.__new__(TensorBase._face)
        t.data = data
        t.grad_fn = grad_fn
        t.requires_grad = requires_grad
        t._grad = None
        t._hooks = None
        t._version_counter = None
        if SWITCHES.tracer is not None:  # minitorch.compile is recording: a tensor made outside an op?
            SWITCHES.tracer.tensor_made(t, False)
        return t

    @staticmethod
    def _from_data(
        data: Any, dtype: DTypeLike | None = None, device: Any = None, requires_grad: bool = False
    ) -> Any:
        """A new leaf tensor (of the face class) from data, as ``minitorch.tensor(...)`` makes it."""
        t = object.__new__(TensorBase._face)
        t._init_leaf(to_array(data, dtype, device, TensorBase), requires_grad)
        if SWITCHES.tracer is not None:  # minitorch.compile is recording: a tensor made in the step
            SWITCHES.tracer.tensor_made(t, True)
        return t

    # ------------------------------------------------------------------ attributes
    @property
    def shape(self) -> Size:
        """The size of each dimension: a ``minitorch.Size`` (a tuple that prints as one)."""
        return Size(self.data.shape)

    @property
    def ndim(self) -> int:
        """Number of dimensions."""
        return self.data.ndim

    @property
    def dtype(self) -> DType:
        """The element type: ``minitorch.float32``, ``float64``, ``int64`` or ``bool``."""
        return dtype_of_array(self.data)

    @property
    def device(self) -> device:
        """Where the data lives: ``device(type='cpu')`` or ``device(type='cuda', index=0)``.

        A ``minitorch.device`` is also a str, so ``t.device == "cpu"`` works.
        """
        return device_of_tensor_data(backends.device_of(self.data))

    @property
    def is_leaf(self) -> bool:
        """True for tensors not produced by a recorded op (inputs and parameters)."""
        return self.grad_fn is None

    @property
    def is_cuda(self) -> bool:
        """True when the data lives on a GPU."""
        return self.device == "cuda"

    def size(self, dim: int | None = None) -> Any:
        """The shape (a ``minitorch.Size``), or the size of dimension ``dim``."""
        if dim is None:
            return Size(self.data.shape)
        return self.data.shape[check_dim("size", dim, self.data.ndim)]

    def numel(self) -> int:
        """Total number of elements."""
        return int(self.data.size)

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

    def dim(self) -> int:
        """Number of dimensions (same as ``ndim``)."""
        return self.data.ndim

    def stride(self, dim: int | None = None) -> Any:
        """Steps, in elements, between neighbours along each dimension (PyTorch's units)."""
        shape = self.data.shape
        steps = [s // self.data.itemsize for s in self.data.strides]
        # NumPy gives a new size-1 axis (``t[None]``, ``unsqueeze``, ``expand``) stride 0;
        # PyTorch gives it the stride it would have in a contiguous layout of what follows.
        for i in reversed(range(len(steps))):
            if shape[i] == 1 and steps[i] == 0:
                steps[i] = steps[i + 1] * shape[i + 1] if i + 1 < len(steps) else 1
        strides = tuple(steps)
        if dim is None:
            return strides
        return strides[check_dim("stride", dim, self.data.ndim)]

    def is_contiguous(self) -> bool:
        """True when the elements lie in memory in row-major order with no gaps."""
        return bool(self.data.flags.c_contiguous)

    def is_floating_point(self) -> bool:
        """True for float32 and float64 tensors."""
        return self.data.dtype.kind == "f"

    # ------------------------------------------------------------------ conversions
    def item(self) -> Any:
        """The single value of a one-element tensor as a Python number."""
        if SWITCHES.tracer is not None:  # minitorch.compile is recording: the value leaves the step
            SWITCHES.tracer.value_read("item")
        if self.data.size != 1:
            raise MiniTorchError(
                f"item(): a Tensor with {self.data.size} elements (shape {tuple(self.shape)}) "
                "cannot be converted to a Python number; only one-element tensors can"
            )
        return _on_host(self.data).item()

    def tolist(self) -> Any:
        """The values as (nested) Python lists, or a number for a 0-d tensor."""
        if SWITCHES.tracer is not None:  # minitorch.compile is recording: the value leaves the step
            SWITCHES.tracer.value_read("tolist")
        return _on_host(self.data).tolist()

    def numpy(self) -> np.ndarray:
        """The data as a NumPy array sharing memory with this tensor (CPU only)."""
        if SWITCHES.tracer is not None:  # minitorch.compile is recording: the value leaves the step
            SWITCHES.tracer.value_read("numpy")
        if self.device != "cpu":
            raise MiniTorchError("numpy(): this tensor is on cuda; copy it to the host first with .cpu().numpy()")
        if self.requires_grad:
            raise MiniTorchError(
                "numpy(): can't call numpy() on a tensor that requires grad; use tensor.detach().numpy() instead"
            )
        return self.data

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        if SWITCHES.tracer is not None:  # minitorch.compile is recording: the value leaves the step
            SWITCHES.tracer.value_read("__array__")
        if self.device != "cpu":
            # NumPy asking for our data must not copy from the GPU behind the user's back.
            raise MiniTorchError(
                "can't convert a cuda tensor to a NumPy array implicitly; copy it to the host "
                "first with .cpu() (e.g. np.asarray(t.cpu()) or t.cpu().numpy())"
            )
        data = self.data
        return data if dtype is None else data.astype(dtype)

    def detach(self: T) -> T:
        """A tensor sharing this one's data (and version counter) but cut off from the graph."""
        out = TensorBase._make(self.data, None, False)
        out._version_counter = self._counter()
        out._version_counter.shared = True
        return out

    def requires_grad_(self: T, requires_grad: bool = True) -> T:
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

    # ------------------------------------------------------------------ autograd
    @property
    def grad(self: T) -> T | None:
        """The gradient that backward computed for this tensor (None before the first backward)."""
        if SWITCHES.tracer is not None:  # minitorch.compile is recording the step
            SWITCHES.tracer.grad_read(self)
        return self._grad  # type: ignore[return-value]  # the face's .grad is a face tensor

    @grad.setter
    def grad(self, value: TensorBase | None) -> None:
        # As in PyTorch: a gradient must match its tensor, or the next optimizer step would
        # silently broadcast it (a (1,) gradient spread over a (3, 4) weight).
        if value is not None:
            _check_assigned_grad(self, value)
        if SWITCHES.tracer is not None:  # minitorch.compile is recording the step
            SWITCHES.tracer.grad_set(self, value)
        self._grad = value

    @property
    def _version(self) -> int:
        """How many times this tensor's memory was changed in place (PyTorch's ``t._version``)."""
        counter = self._version_counter
        return 0 if counter is None else counter.value

    def _counter(self) -> VersionCounter:
        """This tensor's version counter, made on first need (views share their base's)."""
        counter = self._version_counter
        if counter is None:
            counter = self._version_counter = VersionCounter()
        return counter

    def _bump_version(self) -> None:
        """Record one in-place change (backward then refuses values saved before it)."""
        if SWITCHES.tracer is not None:  # minitorch.compile is recording the step
            SWITCHES.tracer.in_place(self)
        self._counter().value += 1

    def retain_grad(self) -> None:
        """Keep ``.grad`` for this non-leaf tensor too after backward."""
        if not self.requires_grad:
            raise MiniTorchError("retain_grad(): can't retain_grad on a tensor that does not require grad")
        if self.grad_fn is None:
            return
        if self.__dict__.get("_retains_grad"):
            return
        self._retains_grad = True
        target = weakref.ref(self)

        def keep(grad: TensorBase) -> None:
            tensor = target()
            if tensor is not None:
                if tensor.grad is None:
                    tensor.grad = TensorBase._make(grad.data.copy(), None, False)  # its own memory
                else:
                    tensor.grad = TensorBase._make(tensor.grad.data + grad.data, None, False)

        self._retain_hook = keep
        self._add_hook(keep)

    @property
    def retains_grad(self) -> bool:
        """True after ``retain_grad()`` on a non-leaf tensor."""
        return bool(self.__dict__.get("_retains_grad"))

    def register_hook(self, hook: Hook) -> HookHandle:
        """Call ``hook(grad)`` when this tensor's gradient is computed; it may return a new one.

        Returns a handle whose ``remove()`` unregisters the hook.
        """
        if not self.requires_grad:
            raise MiniTorchError("register_hook(): cannot register a hook on a tensor that doesn't require grad")
        return self._add_hook(hook)

    def register_post_accumulate_grad_hook(self: T, hook: Callable[[T], None]) -> HookHandle:
        """Call ``hook(tensor)`` right after backward added into this leaf's ``.grad``.

        It fires during backward, as soon as the leaf's gradient is complete (distributed
        training starts averaging a parameter's gradient there). Returns a removable handle.
        """
        if self.grad_fn is not None:
            raise MiniTorchError(
                "register_post_accumulate_grad_hook(): only leaf tensors have .grad accumulated; "
                "use register_hook on a non-leaf tensor"
            )
        if not self.requires_grad:
            raise MiniTorchError(
                "register_post_accumulate_grad_hook(): cannot register a hook on a tensor that doesn't require grad"
            )
        hooks = self.__dict__.setdefault("_post_accumulate_hooks", [])
        hooks.append(hook)
        return HookHandle(hooks, hook)

    def _add_hook(self, hook: Hook) -> HookHandle:
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
        return HookHandle(hooks, hook)

    # ------------------------------------------------------------------ python protocol
    __hash__ = object.__hash__

    def __len__(self) -> int:
        if self.data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.data.shape[0]

    def __bool__(self) -> bool:
        if SWITCHES.tracer is not None:  # minitorch.compile is recording: the value leaves the step
            SWITCHES.tracer.value_read("__bool__")
        if self.data.size != 1:
            raise MiniTorchError(
                f"the truth value of a tensor with {self.data.size} elements is ambiguous; use .any() or .all()"
            )
        return bool(self.data.item())

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __index__(self) -> int:
        if SWITCHES.tracer is not None:  # minitorch.compile is recording: the value leaves the step
            SWITCHES.tracer.value_read("__index__")
        if self.data.dtype.kind not in "iub" or self.data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.data.item())

    def __format__(self, spec: str) -> str:
        if self.data.size == 1 and spec:
            return format(self.item(), spec)
        return object.__format__(self, spec) if spec else repr(self)

    def __repr__(self) -> str:
        if SWITCHES.tracer is not None:  # minitorch.compile is recording: the value leaves the step
            SWITCHES.tracer.value_read("__repr__")
        return tensor_repr(self)

    def any(self: T) -> T:
        """True when any element is non-zero (a bool tensor)."""
        return TensorBase._make(backends.module_of(self.data).asarray(self.data.any()), None, False)

    def all(self: T) -> T:
        """True when every element is non-zero (a bool tensor)."""
        return TensorBase._make(backends.module_of(self.data).asarray(self.data.all()), None, False)


def _on_host(data: Array) -> Array:
    """``data`` in host memory. A GPU array goes through its backend's download, the sync
    point where checks deferred on the device (a class label out of range) are reported."""
    return data if type(data) is np.ndarray else backends.to_device(data, "cpu")


def _check_assigned_grad(tensor: TensorBase, grad: Any) -> None:
    """``tensor.grad = grad`` is allowed only for a Tensor of the same shape, dtype and device."""
    if not isinstance(grad, TensorBase):
        raise TypeError(
            f"assigned grad expected to be a Tensor or None but got grad of type {type(grad).__name__}; "
            "wrap it with minitorch.tensor(...)"
        )
    if grad.device != tensor.device:
        raise MiniTorchError(f"assigned grad has data located on {grad.device}, but the tensor is on {tensor.device}")
    if grad.data.dtype != tensor.data.dtype:
        raise MiniTorchError(
            f"assigned grad has data of a different type: the tensor is {tensor.dtype}, the grad {grad.dtype}; "
            f"convert it with .to({tensor.dtype})"
        )
    if grad.data.shape != tensor.data.shape:
        raise MiniTorchError(
            f"assigned grad has data of a different size: the tensor has shape {tuple(tensor.shape)}, "
            f"the grad {tuple(grad.shape)}"
        )


# A gradient hook: called with the gradient, returns a replacement or None (register_hook).
Hook = Callable[[TensorBase], "TensorBase | None"]


TensorBase._face = TensorBase  # until minitorch.Tensor registers itself
