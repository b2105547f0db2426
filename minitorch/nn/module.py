"""``Module``: a piece of a network that owns parameters, buffers and sub-modules.

Assigning an attribute is enough to register it, as in PyTorch::

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.hidden = nn.Linear(64, 128)   # a sub-module: registered
            self.out = nn.Linear(128, 10)

        def forward(self, x):
            return self.out(self.hidden(x).relu())

``__setattr__`` sorts each value into ``_parameters`` (a ``Parameter``), ``_modules`` (a
``Module``) or ``_buffers`` (state saved but not trained, like BatchNorm's running mean).
Everything else (``parameters()``, ``state_dict()``, ``to(device)``) walks those three.
"""

from __future__ import annotations

import warnings
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

import numpy as np

from minitorch import backends
from minitorch.dtypes import get_dtype
from minitorch.errors import MiniTorchError
from minitorch.hints import Array
from minitorch.jit import compile as compile_step
from minitorch.nn.hooks import RemovableHandle, add_hook, call_with_hooks
from minitorch.nn.state_loading import IncompatibleKeys, load_into
from minitorch.tensor import Tensor
from minitorch.trace_hooks import replay_methods, replayed


class Parameter(Tensor):
    """A Tensor that a Module registers as trainable (``requires_grad=True`` by default).

    ``Parameter(t)`` shares ``t``'s data, as in PyTorch.
    """

    def __init__(self, data: Any = None, requires_grad: bool = True) -> None:
        if data is None:
            data = np.empty(0, dtype=np.float32)
        if isinstance(data, Tensor):
            array = data.data
        elif backends.is_backend_array(data):
            array = data
        else:
            array = Tensor(data).data
        self._init_leaf(array, requires_grad)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()


class RawInputError(TypeError):
    """A Module was called on a NumPy array, a list or a number instead of a Tensor."""


def _raw_input_message(module: Module, x: Any) -> str:
    kind = "numpy.ndarray" if isinstance(x, np.ndarray) else type(x).__name__
    fix = "minitorch.tensor(x)"
    if isinstance(x, np.ndarray) and x.dtype == np.float64:
        fix = "minitorch.tensor(x, dtype=minitorch.float32) (a float64 array gives a float64 tensor)"
    elif isinstance(x, (list, tuple)) and x and all(isinstance(v, Tensor) for v in x):
        fix = "minitorch.stack(x) (or call the layer on each tensor)"
    return f"{type(module).__name__}: the input must be a Tensor, got a {kind}: wrap it with {fix} first"


class Module:
    """Base class of every layer and model: subclass it, assign layers, write ``forward``."""

    training = True
    _tensor_input = False  # the built-in layers set True: their first input must be a Tensor
    _optional_state: tuple[str, ...] = ()  # own state_dict keys a loaded dict may leave out
    # Forward hooks (nn/hooks.py): None until the first one is registered on the instance.
    _forward_pre_hooks: dict[int, Any] | None = None
    _forward_hooks: dict[int, Any] | None = None
    # Filled in by __init__ (through object.__setattr__, which skips the sorting below).
    _parameters: OrderedDict[str, Parameter | None]
    _buffers: OrderedDict[str, Tensor | None]
    _non_persistent: set[str]
    _modules: OrderedDict[str, Any]  # Module values (None where a sub-module was set to None)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        replay_methods(cls, "zero_grad")  # a module's own zero_grad is replayed by minitorch.compile too

    def __init__(self) -> None:
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_non_persistent", set())
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "training", True)

    # ------------------------------------------------------------------ registration
    def __setattr__(self, name: str, value: Any) -> None:
        if "_parameters" not in self.__dict__:
            raise MiniTorchError(
                f"cannot assign {name!r} before Module.__init__() ran: call super().__init__() "
                f"first in {type(self).__name__}.__init__"
            )
        params, modules, buffers = self._parameters, self._modules, self._buffers
        if isinstance(value, Parameter):
            modules.pop(name, None)
            buffers.pop(name, None)
            params[name] = value
        elif isinstance(value, Module):
            params.pop(name, None)
            buffers.pop(name, None)
            modules[name] = value
        elif name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign a {type(value).__name__} to parameter {name!r} of "
                    f"{type(self).__name__}: wrap it as nn.Parameter(...) (or assign None)"
                )
            params[name] = None
        elif name in buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign a {type(value).__name__} to buffer {name!r}: expected a Tensor")
            buffers[name] = value
        elif name in modules:
            if value is not None:
                raise TypeError(f"cannot assign a {type(value).__name__} to sub-module {name!r}")
            modules[name] = None
        elif isinstance(value, (list, tuple)) and value and all(isinstance(v, Module) for v in value):
            warnings.warn(
                f"{type(self).__name__}.{name} is a plain {type(value).__name__} of modules: their "
                "parameters are NOT registered (parameters(), state_dict() and to() will not see "
                "them). Use nn.ModuleList(...) or nn.Sequential(...) instead.",
                stacklevel=2,
            )
        # Also a plain attribute, so reading ``self.weight`` is an ordinary (fast) lookup.
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        for registry in (self._parameters, self._buffers, self._modules):
            registry.pop(name, None)
        self._non_persistent.discard(name)
        object.__delattr__(self, name)

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Add a parameter (or None, for an optional one like a missing bias)."""
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"register_parameter({name!r}): expected a Parameter or None, got {type(param).__name__}")
        self._parameters[name] = param
        object.__setattr__(self, name, param)

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Add state that is saved in ``state_dict`` and moved by ``to()`` but not trained."""
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"register_buffer({name!r}): expected a Tensor or None, got {type(tensor).__name__}")
        self._buffers[name] = tensor
        if not persistent:
            self._non_persistent.add(name)
        object.__setattr__(self, name, tensor)

    def add_module(self, name: str, module: Module | None) -> None:
        """Register ``module`` as a sub-module called ``name``."""
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"add_module({name!r}): expected a Module, got {type(module).__name__}")
        self._modules[name] = module
        object.__setattr__(self, name, module)

    # ------------------------------------------------------------------ calling
    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """The computation of this module; every subclass defines it."""
        raise NotImplementedError(f"{type(self).__name__} must define forward()")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        # Built-in layers take a Tensor: one isinstance test (the training hot path) turns a NumPy
        # array or a list into a clear error, where it would fail deep inside or even pass.
        if self._tensor_input and args and not isinstance(args[0], Tensor):
            raise RawInputError(_raw_input_message(self, args[0]))
        if self._forward_pre_hooks or self._forward_hooks:  # only once a hook was registered
            return call_with_hooks(self, args, kwargs)
        return self.forward(*args, **kwargs)

    def compile(self, *args: Any, **kwargs: Any) -> None:
        """Compile this module's ``forward`` in place, as PyTorch's ``Module.compile()``.

        ``model(x)`` then traces once per signature and replays (``minitorch.compile``
        takes the same arguments). A forward alone returns tensors whose graph is used
        after the call (``loss.backward()`` outside), which a replay can't give: those
        calls run eagerly. Compile the whole training step to replay training.
        """

        previous = self.__dict__.get("_compiled_forward")
        forward = previous.fn if previous is not None else self.forward
        compiled = compile_step(forward, *args, **kwargs)
        object.__setattr__(self, "_compiled_forward", compiled)
        object.__setattr__(self, "forward", compiled)

    def register_forward_pre_hook(
        self, hook: Callable[..., Any], *, prepend: bool = False, with_kwargs: bool = False
    ) -> RemovableHandle:
        """Call ``hook(module, args)`` before every ``forward``; it may return new args (see nn/hooks.py)."""
        return add_hook(self, "_forward_pre_hooks", hook, prepend, with_kwargs)

    def register_forward_hook(
        self, hook: Callable[..., Any], *, prepend: bool = False, with_kwargs: bool = False
    ) -> RemovableHandle:
        """Call ``hook(module, args, output)`` after every ``forward``; it may return a new output."""
        return add_hook(self, "_forward_hooks", hook, prepend, with_kwargs)

    # ------------------------------------------------------------------ traversal
    def named_modules(
        self, prefix: str = "", memo: set[int] | None = None, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Module]]:
        """(dotted name, module) for this module and every module inside it, each once
        (a shared one under each of its names with ``remove_duplicate=False``)."""
        if memo is None:
            memo = set()
        if remove_duplicate and id(self) in memo:
            return
        memo.add(id(self))
        yield prefix, self
        for name, module in self._modules.items():
            if module is not None:
                yield from module.named_modules(f"{prefix}.{name}" if prefix else name, memo, remove_duplicate)

    def modules(self) -> Iterator[Module]:
        """This module and every module inside it."""
        for _, module in self.named_modules():
            yield module

    def named_children(self) -> Iterator[tuple[str, Module]]:
        """(name, module) for the direct sub-modules."""
        for name, module in self._modules.items():
            if module is not None:
                yield name, module

    def children(self) -> Iterator[Module]:
        """The direct sub-modules."""
        for _, module in self.named_children():
            yield module

    def _named_members(
        self, registry: str, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Any]]:
        seen = set()
        modules: Iterable[tuple[str, Module]] = (
            self.named_modules(prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
        )
        for module_prefix, module in modules:
            for name, value in getattr(module, registry).items():
                if value is None or (remove_duplicate and id(value) in seen):
                    continue
                seen.add(id(value))
                yield (f"{module_prefix}.{name}" if module_prefix else name), value

    def named_parameters(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Parameter]]:
        """(dotted name, parameter) pairs, e.g. ``('0.weight', ...)``; shared ones once. PyTorch's arguments."""
        return self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        """Every trainable parameter, each once (what you hand to an optimizer)."""
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Tensor]]:
        """(dotted name, buffer) pairs."""
        return self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        """Every buffer (non-trainable state such as running statistics)."""
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    # ------------------------------------------------------------------ modes and grads
    def train(self, mode: bool = True) -> Module:
        """Training mode (dropout active, BatchNorm uses batch statistics); returns self."""
        for module in self.modules():
            object.__setattr__(module, "training", bool(mode))
        return self

    def eval(self) -> Module:
        """Evaluation mode: ``train(False)``."""
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        """Freeze (False) or unfreeze every parameter; returns self."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def apply(self, fn: Callable[[Module], Any]) -> Module:
        """Call ``fn`` on every submodule, children first and then self (as PyTorch); returns self.

        The usual use: ``model.apply(init_weights)`` to re-initialise every layer.
        """
        for child in self.children():
            child.apply(fn)
        fn(self)
        return self

    @replayed  # minitorch.compile makes this call again on every replay of a step
    def zero_grad(self, set_to_none: bool = True) -> None:
        """Clear every parameter's ``.grad`` (to None by default, as PyTorch 2 does)."""
        for p in self.parameters():
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                p.grad.data[...] = 0

    # ------------------------------------------------------------------ devices and dtypes
    def _apply_to_arrays(self, fn: Callable[[Array], Array]) -> Module:
        """Replace the data of every parameter, gradient and buffer by ``fn(data)`` in place.

        The Parameter objects stay the same, so an optimizer built earlier still holds them.
        """
        for module in self.modules():
            for p in module._parameters.values():
                if p is None:
                    continue
                p.data = fn(p.data)
                if p.grad is not None:
                    p.grad.data = fn(p.grad.data)
            for b in module._buffers.values():
                if b is not None:
                    b.data = fn(b.data)
        return self

    def to(self, *args: Any, device: Any = None, dtype: Any = None) -> Module:
        """Move parameters and buffers to a device and/or floating dtype, in place; returns self."""
        for arg in args:
            if isinstance(arg, str) or hasattr(arg, "type"):
                device = arg
            else:
                dtype = arg
        if device is not None:
            target = backends.normalize_device(device)
            self._apply_to_arrays(lambda a: backends.to_device(a, target))
        if dtype is not None:
            np_dtype = get_dtype(dtype).np_dtype
            if np_dtype.kind != "f":
                raise TypeError(f"Module.to(): only floating dtypes are allowed, got {dtype} (as PyTorch)")
            self._apply_to_arrays(lambda a: a.astype(np_dtype) if a.dtype.kind == "f" else a)
        return self

    def cpu(self) -> Module:
        """Move everything to the CPU."""
        return self.to("cpu")

    def cuda(self) -> Module:
        """Move everything to the GPU."""
        return self.to("cuda")

    def float(self) -> Module:
        """Convert floating parameters and buffers to float32."""
        return self.to(dtype="float32")

    def double(self) -> Module:
        """Convert floating parameters and buffers to float64."""
        return self.to(dtype="float64")

    def half(self) -> Module:
        """Convert floating parameters and buffers to float16 (prefer autocast to train)."""
        return self.to(dtype="float16")

    # ------------------------------------------------------------------ state dict
    def state_dict(self, prefix: str = "", keep_vars: bool = False) -> OrderedDict[str, Tensor]:
        """Parameters and persistent buffers by dotted name, named exactly as PyTorch names them.

        The values share memory with the module (detached unless ``keep_vars``).
        """
        out: OrderedDict[str, Tensor] = OrderedDict()
        self._fill_state_dict(out, prefix, keep_vars)
        return out

    def _fill_state_dict(self, out: OrderedDict[str, Tensor], dot: str, keep_vars: bool) -> None:
        # Not named_modules(): a module used twice (``seq[1] = seq[0]``) appears under each
        # of its names, as in PyTorch, so PyTorch checkpoints of such models load strictly.
        for name, p in self._parameters.items():
            if p is not None:
                out[dot + name] = p if keep_vars else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent:
                out[dot + name] = b if keep_vars else b.detach()
        for name, module in self._modules.items():
            if module is not None:
                module._fill_state_dict(out, f"{dot}{name}.", keep_vars)

    def load_state_dict(self, state_dict: Mapping[str, Any], strict: bool = True) -> IncompatibleKeys:
        """Copy values from ``state_dict`` into this module's parameters and buffers in place.

        Values may be Tensors or arrays (so ``{k: v.numpy() for k, v in torch_sd.items()}``
        loads as-is). With ``strict`` (the default) missing or unexpected keys are an error;
        a wrong shape is always an error. Returns ``(missing_keys, unexpected_keys)``.
        (The checks and the copy are in ``minitorch.nn.state_loading``.)
        """
        optional: set[str] = set()  # keys a module lets a loaded dict leave out (a BatchNorm's counter)
        for prefix, module in self.named_modules(remove_duplicate=False):
            optional.update(f"{prefix}.{key}" if prefix else key for key in module._optional_state)
        return load_into(self, self.state_dict(keep_vars=True), state_dict, strict, optional)

    # ------------------------------------------------------------------ finding by dotted name
    def get_submodule(self, target: str) -> Module:
        """The sub-module at the dotted path ``target`` (``"encoder.layers.0"``); ``""`` is the module itself.

        An AttributeError names the module that has no such attribute, as PyTorch's.
        """
        if target == "":
            return self
        mod: Any = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(f"{type(mod).__name__} has no attribute `{item}`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return mod

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at the dotted path ``target`` (``"encoder.0.weight"``), as in ``named_parameters()``."""
        _, name, param = self._member_at(target)
        if not isinstance(param, Parameter):
            raise AttributeError(f"`{name}` is not an nn.Parameter")
        return param

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at the dotted path ``target`` (``"bn.running_mean"``), as in ``named_buffers()``."""
        mod, name, buffer = self._member_at(target)
        if name not in mod._buffers:
            raise AttributeError(f"`{name}` is not a buffer")
        return buffer

    def _member_at(self, target: str) -> tuple[Module, str, Any]:
        """(owning module, name, value) of the attribute at the dotted path ``target``."""
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, name):
            raise AttributeError(f"{type(mod).__name__} has no attribute `{name}`")
        return mod, name, getattr(mod, name)

    # ------------------------------------------------------------------ printing
    def extra_repr(self) -> str:
        """The text inside the parentheses of this module's repr (its settings)."""
        return ""

    def __repr__(self) -> str:
        lines = []
        extra = self.extra_repr()
        if extra:
            lines.extend(extra.split("\n"))
        for name, module in self._modules.items():
            child = repr(module).replace("\n", "\n  ")
            lines.append(f"({name}): {child}")
        if not lines:
            return f"{type(self).__name__}()"
        if len(lines) == 1 and not self._modules:
            return f"{type(self).__name__}({lines[0]})"
        return f"{type(self).__name__}(\n  " + "\n  ".join(lines) + "\n)"

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()))
