"""``Function``: one differentiable operation, its forward and its backward side by side.

Every op in MiniTorch -- ``Add``, ``MatMul``, ``Sum``... -- is a ``Function`` subclass, and
so is any op a learner writes::

    class Mul(Function):
        @staticmethod
        def forward(ctx, a, b):             # a, b: NumPy (or CuPy) arrays
            ctx.save_for_backward(a, b)
            return a * b

        @staticmethod
        def backward(ctx, grad_output):     # one gradient per input of forward
            a, b = ctx.saved_tensors
            return grad_output * b, grad_output * a

    y = Mul.apply(x, w)                     # Tensors in, a Tensor out, graph recorded

``apply`` unwraps the tensors, runs ``forward`` on their arrays and, when some input
requires grad, records a backward node: an instance of ``MulBackward``, which is also
the ``ctx`` that forward saw. The node remembers where each input's gradient must go
(``next_nodes``) and is what ``y.grad_fn`` returns. ``ctx.xp`` is the array library
of the inputs' device (``numpy`` or ``cupy``), so one forward serves every device.

Built-in ops register themselves by name (``registry.py``), where a lesson can plug a
learner's backward into one with ``override_backward(Mul, fn)``.
"""

from __future__ import annotations

import traceback
from typing import TYPE_CHECKING, Any, NoReturn

import numpy as np

from minitorch import backends
from minitorch.autograd.graph_arrays import GraphArray, wrap
from minitorch.autograd.registry import register
from minitorch.errors import MiniTorchError, device_mismatch_message
from minitorch.hints import Array, Gradients, Shape
from minitorch.size import broadcast_shape
from minitorch.switches import SWITCHES
from minitorch.tensor_base import Hook, TensorBase

_CPU = backends.CPU


class BackwardNode:
    """The recorded backward step of one op call, and the ``ctx`` its forward filled in.

    ``next_nodes`` holds, per input of forward, where that input's gradient goes: the
    input's own ``BackwardNode`` when it was computed by an op, the input Tensor itself
    when it is a leaf that requires grad (the gradient accumulates into its ``.grad``), or
    None when no gradient is needed. ``needs_input_grad`` and ``is_tensor_input`` say, per
    input, whether it needs a gradient and whether it was a Tensor at all (a setting such
    as an axis or a shape is not).
    """

    # Slots for what the engine reads on every node; ``__dict__`` keeps ``ctx.anything =``
    # working for the values an op wants to remember.
    __slots__ = (
        "next_nodes",
        "needs_input_grad",
        "is_tensor_input",
        "_saved",
        "_versions",
        "_freed",
        "fast_kernel",
        "_kernel_saved",
        "_saved_roles",
        "xp",
        "out_shape",
        "out_dtype",
        "_pre_hooks",
        "created_at",
        "__dict__",
        "__weakref__",
    )

    # What each slot holds (``Function.apply`` fills them in).
    next_nodes: tuple[BackwardNode | TensorBase | None, ...]  # per input: where its gradient goes
    needs_input_grad: tuple[bool, ...]
    is_tensor_input: tuple[bool, ...]
    _saved: tuple[Any, ...]
    # (version counter, version at save time, input index or -1 for the output, position in
    # _saved) per saved tensor, checked before backward; None when nothing needs checking
    _versions: tuple[tuple[Any, int, int, int], ...] | None
    _freed: bool
    # the fast kernel whose backward runs this node (minitorch/kernels/), or None: the op's own
    # (not ``kernel``: an op's forward may keep its own ``ctx.kernel``, a convolution's size)
    fast_kernel: Any
    _kernel_saved: tuple[Any, ...]  # what that kernel's forward kept for its backward (save_for_kernel)
    # per saved value: the index of the input whose array it is, -1 for the output, -2 for the
    # output in another shape (a keepdim reduction's), None for anything else (what gradients
    # of gradients need to put the graph back around it)
    _saved_roles: tuple[int | None, ...]
    xp: Any  # the array library of the inputs' device: numpy or cupy
    out_shape: Shape
    out_dtype: Any  # the NumPy (or CuPy) dtype of the output
    _pre_hooks: list[Hook] | None  # register_hook functions of the op's output tensor
    created_at: list[str] | None  # the forward stack, under detect_anomaly()

    function: Any = None  # the Function subclass this node belongs to (set per subclass)

    if TYPE_CHECKING:
        # An op keeps its own values on ctx (``ctx.a_shape = ...``), so any attribute goes.
        def __getattr__(self, name: str) -> Any: ...
        def __setattr__(self, name: str, value: Any) -> None: ...

    def save_for_backward(self, *arrays: Any) -> None:
        """Keep arrays (or anything) for backward; released after backward unless retained."""
        self._saved = arrays

    def save_for_kernel(self, *arrays: Any) -> None:
        """For fast kernels (``minitorch/kernels/``): keep arrays that only the kernel's own
        backward reads, beside what the op's forward would save. Released with the rest."""
        self._kernel_saved = arrays

    @property
    def kernel_saved(self) -> tuple[Any, ...]:
        """What a fast kernel's forward passed to ``save_for_kernel``, as a tuple."""
        if self._freed:
            return self.saved_tensors  # raises the "second time" error
        return self._kernel_saved

    def release_saved(self) -> None:
        """Let go of everything saved for backward (after backward, unless the graph is retained)."""
        self._saved, self._kernel_saved, self._versions, self._freed = (), (), None, True

    @property
    def freed(self) -> bool:
        """True once a backward without ``retain_graph`` released what forward saved."""
        return self._freed

    @property
    def saved_roles(self) -> tuple[int | None, ...]:
        """Per saved value: the input it is (its index), the output (-1), or None (``_saved_roles``)."""
        return self._saved_roles

    @property
    def has_hooks(self) -> bool:
        """True when ``register_hook`` functions of the op's output run before this node's backward."""
        return self._pre_hooks is not None

    @property
    def saved_tensors(self) -> tuple[Any, ...]:
        """What forward passed to ``save_for_backward``, as a tuple."""
        if self._freed:
            raise RuntimeError(
                f"{type(self).__name__}: trying to backward through the graph a second time "
                "(its saved values were freed after the first backward). Call "
                ".backward(retain_graph=True) the first time if you need to go back twice."
            )
        return self._saved

    @property
    def next_functions(self) -> tuple[tuple[Any, int], ...]:
        """PyTorch's view of ``next_nodes``: ``((node, 0), ...)``, a leaf as its ``AccumulateGrad``.

        MiniTorch's engine walks the simpler ``next_nodes``; this form is for code written
        for PyTorch (``loss.grad_fn.next_functions[0][0]``).
        """
        pairs = zip(self.next_nodes, self.is_tensor_input)  # settings (axes, shapes) have no entry
        return tuple((_accumulate_grad_of(n) if isinstance(n, TensorBase) else n, 0) for n, tensor in pairs if tensor)

    def name(self) -> str:
        """The node's class name, e.g. ``'MulBackward'`` (as in PyTorch)."""
        return type(self).__name__

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"


class AccumulateGrad:
    """PyTorch's node for "add this gradient into the leaf's ``.grad``": ``.variable`` is the leaf."""

    __slots__ = ("variable", "__weakref__")
    next_functions: tuple[tuple[Any, int], ...] = ()

    def __init__(self, variable: TensorBase) -> None:
        self.variable = variable

    def name(self) -> str:
        """``'AccumulateGrad'``, as in PyTorch."""
        return "AccumulateGrad"

    def __repr__(self) -> str:
        return "<AccumulateGrad>"


def _accumulate_grad_of(leaf: TensorBase) -> AccumulateGrad:
    """The leaf's AccumulateGrad node (one per leaf, made when first asked for)."""
    node = leaf.__dict__.get("_accumulate_grad")
    if node is None:
        node = leaf.__dict__["_accumulate_grad"] = AccumulateGrad(leaf)
    return node


class _FunctionMeta(type):
    """Gives each Function subclass its own BackwardNode subclass, named ``<Op>Backward``."""

    def __init__(cls, name: str, bases: tuple[type, ...], namespace: dict[str, Any]) -> None:
        super().__init__(name, bases, namespace)
        node_cls = type(name + "Backward", (BackwardNode,), {"__slots__": (), "function": cls})
        node_cls.__module__ = cls.__module__
        cls._node_cls = node_cls
        # Fast kernels for this op (minitorch/kernels/ registers them; none for a learner's op).
        # Each class has its own tuple, so a subclass never inherits its parent's kernels.
        cls._kernels = ()
        if bases:
            cls.reference_backward = namespace.get("backward", getattr(cls, "backward", None))
            cls.backward_overridden = False
            if cls.__module__.startswith("minitorch."):
                register(cls)  # a built-in op: found by name (duplicates are refused)


class Function(metaclass=_FunctionMeta):
    """Base class of every differentiable op: subclass it and write forward and backward."""

    _kernels: tuple[Any, ...] = ()  # its fast kernels (minitorch/kernels/registry.py), tried in order

    @staticmethod
    def forward(ctx: BackwardNode, *args: Any) -> Array:
        """Compute the output array from input arrays (tensors arrive unwrapped)."""
        raise NotImplementedError("a Function subclass must define forward(ctx, *args)")

    @staticmethod
    def backward(ctx: BackwardNode, grad_output: Array) -> Gradients:
        """Return one gradient array per input of forward (None where none is needed)."""
        raise NotImplementedError("a Function subclass must define backward(ctx, grad_output)")

    @classmethod
    def apply(cls, *args: Any) -> Any:
        """Run the op on Tensors (or plain values) and record it for backward when needed.

        Returns a tensor of the face class (Any to the type checker, as in PyTorch: the op
        functions that call ``apply`` say ``-> T``, the class of the tensors they were given).
        """
        switches = SWITCHES
        tracer = switches.tracer
        if tracer is not None and tracer.recording:  # minitorch.compile writes the call down (trace_hooks.py)
            return tracer.record_op(cls, args)
        arrays: list[Any] = []
        next_nodes: list[BackwardNode | TensorBase | None] = []
        needs: list[bool] = []
        is_tensor: list[bool] = []
        any_needs = False
        record = switches.grad_enabled
        backend = None  # the backend of the tensor inputs; they must all agree
        for arg in args:
            if isinstance(arg, TensorBase):
                data = arg.data
                arrays.append(data)
                is_tensor.append(True)
                owner = _CPU if type(data) is np.ndarray else backends.of(data)  # CPU checked without a call
                if backend is None:
                    backend = owner
                elif owner is not backend:
                    _raise_device_mismatch(cls, args)
                if record and arg.requires_grad:
                    any_needs = True
                    needs.append(True)
                    next_nodes.append(arg if arg.grad_fn is None else arg.grad_fn)
                    continue
            elif type(arg) is GraphArray:  # a backward under create_graph calling another op
                return _apply_to_graph_arrays(cls, args)
            else:
                arrays.append(arg)
                is_tensor.append(False)
            needs.append(False)
            next_nodes.append(None)

        ctx = cls._node_cls()
        ctx._saved = ctx._kernel_saved = ctx._saved_roles = ()
        ctx._versions = None
        ctx._freed = False
        ctx._pre_hooks = None
        xp: Any  # numpy or cupy (Backend.xp is None only for an unusable backend)
        xp = ctx.xp = np if backend is None else backend.xp
        # The op's own forward, or a fast kernel registered for it that takes these arguments.
        kernel = fast_kernel(cls, "cpu" if backend is None else backend.name, arrays) if cls._kernels else None
        forward = cls.forward if kernel is None or kernel.forward is None else kernel.forward
        try:
            out = forward(ctx, *arrays)
        except MiniTorchError:
            raise
        except Exception as exc:
            raise _op_error(cls, args, exc) from exc
        if type(out) is not xp.ndarray:  # a NumPy scalar from a reduction, say
            returned = out
            out = np.asarray(out) if isinstance(out, np.generic) else _as_array(cls, out)
            if ctx._saved:  # a saved output is the output array (create_graph tells it by identity)
                ctx._saved = tuple(out if value is returned else value for value in ctx._saved)
        # An integer or bool result (x.long(), x.bool()) is a constant, as in PyTorch: only
        # floating-point tensors can require grad.
        if not any_needs or out.dtype.kind != "f":
            result = TensorBase._make(out, None, False)
            if out.base is not None:
                _share_counter_with_viewed_input(result, args)
            return result
        ctx.fast_kernel = kernel if kernel is not None and kernel.backward is not None else None
        ctx.next_nodes = tuple(next_nodes)
        ctx.needs_input_grad = tuple(needs)
        ctx.is_tensor_input = tuple(is_tensor)
        ctx.out_shape = out.shape
        ctx.out_dtype = out.dtype
        ctx.created_at = traceback.format_stack()[:-1] if switches.anomaly else None
        result = TensorBase._make(out, ctx, True)
        if out.base is not None:
            _share_counter_with_viewed_input(result, args)
        if ctx._saved:
            ctx._versions, ctx._saved_roles = _saved_versions(ctx, args, result)
        return result


def new_node(cls: type[Function], xp: Any) -> BackwardNode:
    """A fresh node of op ``cls`` (the ``ctx`` its forward fills in) for arrays of library ``xp``,
    as ``Function.apply`` makes it before calling forward (apply does it inline: it is the hot
    path). For code that runs an op's forward itself: ``minitorch.compile``'s replay."""
    ctx = cls._node_cls()
    ctx._saved = ctx._kernel_saved = ctx._saved_roles = ()
    ctx._versions = None
    ctx._freed = False
    ctx._pre_hooks = None
    ctx.xp = xp
    return ctx


def connect_node(
    ctx: BackwardNode, next_nodes: tuple[BackwardNode | TensorBase | None, ...], saved_roles: tuple[int | None, ...]
) -> None:
    """Give a node made outside ``apply`` (``new_node``) the edges and saved roles ``apply`` records:
    where each input's gradient goes, and which saved value is which input or the output. A
    compiled step's replay does this before it runs a backward with ``create_graph=True`` on it."""
    ctx.next_nodes = next_nodes
    ctx._saved_roles = saved_roles


def _apply_to_graph_arrays(cls: type[Function], args: tuple[Any, ...]) -> Any:
    """``cls.apply`` called from a backward run with create_graph=True on GraphArrays: on their
    Tensors, the result again a GraphArray (so an op's backward may use other Functions)."""
    return wrap(cls.apply(*(arg.tensor if type(arg) is GraphArray else arg for arg in args)))


def fast_kernel(cls: type[Function], device: str, arrays: list[Any] | tuple[Any, ...]) -> Any:
    """The first fast kernel registered for ``cls`` on this device that takes ``arrays``, or None.

    None as well when ``SWITCHES.fast_kernels`` is off (everything runs the ops as written
    in ``functions/``) or a learner's backward replaced the op's (it must see what the op's
    own forward saved).
    """
    if not SWITCHES.fast_kernels or cls.backward_overridden:
        return None
    kernel: Any  # a minitorch.kernels.Kernel (that package sits above this one)
    for kernel in cls._kernels:
        if kernel.device == device and kernel.applies(*arrays):
            return kernel
    return None


def _as_array(cls: type[Function], out: Any) -> Array:
    """What forward returned, as an array of its library.

    NumPy returns scalars, not 0-d arrays, from reductions and ufuncs on 0-d input; ToDevice
    returns an array of the *other* library (kept where it is). A tuple is a mistake.
    """
    if isinstance(out, np.generic):
        return np.asarray(out)
    if isinstance(out, (tuple, list)):
        raise MiniTorchError(
            f"{cls.__name__}.forward returned a {type(out).__name__} of {len(out)} values; a MiniTorch "
            "Function returns one array. Write one Function per output (or stack the outputs "
            "into one array and index the result)"
        )
    return backends.module_of(out).asarray(out)


def _owner(array: Any) -> Any:
    """The array that owns ``array``'s memory (NumPy and CuPy keep one level of ``.base``)."""
    base = getattr(array, "base", None)
    return array if base is None else base


def _share_counter_with_viewed_input(result: TensorBase, args: tuple[Any, ...]) -> None:
    """A view (reshape, transpose, basic indexing, ...) shares its input's version counter."""
    owner = _owner(result.data)
    for arg in args:
        if isinstance(arg, TensorBase) and _owner(arg.data) is owner:
            counter = arg._counter()
            counter.shared = True
            result._version_counter = counter
            return


def _saved_versions(
    ctx: BackwardNode, args: tuple[Any, ...], result: TensorBase
) -> tuple[tuple[Any, ...] | None, tuple[int | None, ...]]:
    """The version of every tensor whose memory ``ctx`` saved, to check before backward, and
    each saved value's role: the input it is (its index), the output (-1), the output in
    another shape (-2: a reduction saves it with the reduced axes kept), or None."""
    records = []
    roles: list[int | None] = []
    out = result.data
    for position, saved in enumerate(ctx._saved):
        if saved is out:
            tensor, index = result, -1
            roles.append(-1)
        else:
            for i, arg in enumerate(args):  # the common case: the saved array is an input's own
                if isinstance(arg, TensorBase) and arg.data is saved:
                    tensor, index = arg, i
                    break
            else:
                if _is_output_reshaped(saved, out):  # the output with its reduced axes kept (keepdim)
                    tensor, index = result, -1
                    roles.append(-2)
                else:
                    tensor, index = _input_holding(saved, args)
                    roles.append(None)  # a view of an input at most: not the input itself
                    if tensor is None:
                        continue
            if len(roles) == position:
                roles.append(index)
        counter = tensor._version_counter
        if counter is None:
            counter = tensor._counter()
        records.append((counter, counter.value, index, position))
    return tuple(records) or None, tuple(roles)


def _is_output_reshaped(saved: Any, out: Any) -> bool:
    """Whether the output array is a view of ``saved`` holding all of it (``saved`` reshaped)."""
    return getattr(out, "base", None) is saved and getattr(saved, "size", None) == out.size


def _input_holding(saved: Any, args: tuple[Any, ...]) -> tuple[Any, int]:
    """The input tensor whose memory ``saved`` is a view of, with its position."""
    if getattr(saved, "base", None) is None:
        return None, -1  # a new array (or not an array at all): nothing can change it
    owner = saved.base
    for i, arg in enumerate(args):
        if isinstance(arg, TensorBase) and _owner(arg.data) is owner:
            return arg, i
    return None, -1


def describe_operand(value: Any) -> str:
    """``'(3, 4) float32'`` for a tensor or array, the value's type otherwise (for errors)."""
    data = value.data if isinstance(value, TensorBase) else value
    shape = getattr(data, "shape", None)
    if shape is None:
        return f"{type(value).__name__} {value!r}"
    device = backends.device_of(data)
    where = "" if device == "cpu" else f" on {device}"
    return f"{tuple(shape)} {data.dtype}{where}"


def _raise_device_mismatch(cls: type[Function], args: tuple[Any, ...]) -> NoReturn:
    devices = [(i, backends.of(a.data).name) for i, a in enumerate(args) if isinstance(a, TensorBase)]
    raise MiniTorchError(device_mismatch_message(cls.__name__, devices))


def _op_error(cls: type[Function], args: tuple[Any, ...], exc: Exception) -> Exception:
    """Wrap an error from forward in one that names the op and its operands."""
    operands = ", ".join(describe_operand(a) for a in args if not isinstance(a, (tuple, list)))
    message = str(exc)
    if "broadcast" in message:
        shapes = [tuple(a.shape) for a in args if isinstance(a, TensorBase)]
        try:
            broadcast_shape(*shapes, op=cls.__name__)
        except MiniTorchError as nicer:
            return nicer
    error_type = type(exc) if isinstance(exc, (IndexError, TypeError, NotImplementedError)) else RuntimeError
    try:
        return error_type(f"{cls.__name__}: {message} (inputs: {operands})")
    except Exception:
        return RuntimeError(f"{cls.__name__}: {message} (inputs: {operands})")
