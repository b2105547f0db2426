"""``Optimizer``: what every optimizer shares -- parameter groups, per-parameter state, the step loop.

An optimizer holds ``param_groups``, a list of dicts each with ``'params'`` and its own
hyperparameters (``'lr'``, ...), and ``state``, a dict from parameter to its running
buffers (momentum, Adam's moments). ``step()`` updates every ``p.data`` in place with
plain array arithmetic: no graph is recorded and the Parameter objects never change.

Each optimizer (``sgd.py``, ``adam.py``, ...) writes two things, both for ONE parameter:

- ``_update_parameter(p, grad, state, group)``: its update rule, the formula of its
  module docstring line by line (PyTorch's "single-tensor" implementation);
- ``_init_state(p, group, state)``: the buffers that rule keeps (zeros, step 0).

Everything else is here, once: ``step(closure)`` (a template method, as in PyTorch: it calls
``closure()`` with grad mode on, then ``_update()``, and returns the closure's loss),
gathering each group's parameters that have a gradient with their state (``_init_group``),
and the choice of how the group's step runs (``_choose_kernel``):

- by default, the formula, one parameter after the other;
- or a *bulk update kernel* that ``minitorch.kernels`` registered for the optimizer's
  class and the group's device, if one applies: the same rule for the whole group at once
  (``foreach``: its parameters as one flat NumPy array; ``fused``: one GPU kernel per
  parameter). These are speed only, never other numbers; ``foreach=False`` in a group, or
  ``SWITCHES.fast_kernels`` off (``MINITORCH_FAST_KERNELS=0``), runs the formula.

Every hyperparameter is checked when the optimizer is built, when a group is added and
when a state_dict is loaded, as PyTorch checks them (``if not 0.0 <= lr``), so a NaN or a
negative value is refused instead of turning every weight into NaN. Parameters that do not
require grad (a frozen layer) are accepted and skipped by ``step()``, as in PyTorch.
"""

from __future__ import annotations

import copy
import math
import numbers
import warnings
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np

from minitorch import backends
from minitorch.autograd.grad_mode import enable_grad
from minitorch.errors import MiniTorchError, MiniTorchValueError
from minitorch.switches import SWITCHES
from minitorch.tensor import Tensor
from minitorch.trace_hooks import replay_methods, replayed


# ---------------------------------------------------------------------- hyperparameter checks
def check_number(owner: str, name: str, value: Any) -> Any:
    """``value`` if it is a real number (a one-element Tensor becomes a float), else a TypeError."""
    if isinstance(value, Tensor) and value.numel() == 1:
        return float(value.item())
    if not isinstance(value, numbers.Real):
        raise TypeError(f"{owner}: {name} must be a number, got {type(value).__name__} {value!r}")
    return value


def check_non_negative(owner: str, name: str, value: Any, label: str) -> Any:
    """PyTorch's ``if not 0.0 <= value: raise ValueError("Invalid <label>: value")``, which refuses NaN too."""
    value = check_number(owner, name, value)
    if not 0.0 <= value:
        why = "it is NaN: check the computation that produced it" if math.isnan(value) else f"{name} must be >= 0"
        raise ValueError(f"{owner}: Invalid {label}: {value} ({why})")
    return value


def check_foreach(owner: str, value: Any) -> bool | None:
    """``foreach`` as None, True or False (a NumPy bool becomes a bool); anything else is a TypeError."""
    if value is None or isinstance(value, (bool, np.bool_)):
        return None if value is None else bool(value)
    raise TypeError(f"{owner}: foreach must be None, True or False, got {type(value).__name__} {value!r}")


def check_flag(owner: str, name: str, value: Any) -> bool:
    """A True/False setting (``maximize``, ``amsgrad``, ...) as a bool; anything else is a TypeError."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise TypeError(f"{owner}: {name} must be True or False, got {type(value).__name__} {value!r}")


def _not_a_params_iterable(owner: str, params: Any) -> str | None:
    """Why ``params`` cannot be the first argument of an optimizer, or None if it can."""
    kind = type(params).__name__
    if isinstance(params, Tensor):
        return f"got a single Tensor: wrap it in a list, {owner}([t], ...)"
    if callable(getattr(params, "parameters", None)) and callable(getattr(params, "forward", None)):
        return f"got the module {kind} itself: pass model.parameters(), e.g. {owner}(model.parameters(), lr=0.1)"
    if callable(params) and not hasattr(params, "__iter__"):
        return f"got the method {getattr(params, '__name__', kind)} itself: call it, model.parameters()"
    if isinstance(params, (str, bytes, Mapping)):
        return f"got a {kind}: pass model.parameters(), or a list of dicts for parameter groups"
    if not hasattr(params, "__iter__"):
        return f"got {kind} {params!r}"
    return None


class Optimizer:
    """Base class: subclasses pass their ``defaults``, check them in ``_check_hyperparameters``,
    and write ``_update_parameter`` (the update rule) and ``_init_state`` (its buffers).

    (A hand-written optimizer may instead override ``step()`` itself, as in PyTorch.)
    """

    # The buffers step() keeps for each parameter (load_state_dict checks a checkpoint has them).
    state_keys: tuple[str, ...] = ()
    # The bulk update kernels of this class (and, inherited, of its subclasses), in the order
    # they are tried. minitorch.kernels registers them (update_registry.py): optim/ never
    # imports the kernels, they attach themselves here.
    _update_kernels: tuple[Any, ...] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        replay_methods(cls, "step", "zero_grad")  # a subclass's own step is replayed by compile too

    def __init__(self, params: Iterable[Tensor] | Iterable[dict[str, Any]], defaults: dict[str, Any]) -> None:
        name = type(self).__name__
        self.defaults = self._check_hyperparameters(dict(defaults))
        self.state: dict[Tensor, dict[str, Any]] = {}  # per parameter: its buffers ("momentum_buffer", ...)
        self.param_groups: list[dict[str, Any]] = []  # each: {"params": [...], "lr": ..., ...}
        problem = _not_a_params_iterable(name, params)
        if problem is not None:
            raise TypeError(
                f"{name}: params must be an iterable of Tensors or dicts (e.g. model.parameters()); {problem}"
            )
        groups: list[Any] = list(params)
        if not groups:
            raise ValueError(
                f"{name}: optimizer got an empty parameter list (a model without parameters, or a "
                "model.parameters() generator that was already used up: call model.parameters() again)"
            )
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def _check_hyperparameters(self, group: dict[str, Any]) -> dict[str, Any]:
        """Check (and return) the hyperparameters in ``group``; subclasses add theirs."""
        if "lr" in group:
            group["lr"] = check_non_negative(type(self).__name__, "lr", group["lr"], "learning rate")
        name = type(self).__name__
        if "foreach" in group:
            group["foreach"] = check_foreach(name, group["foreach"])
        if "fused" in group:  # a speed setting, as foreach (see _choose_kernel)
            group["fused"] = check_foreach(name, group["fused"])
        if group.get("fused") and group.get("foreach"):
            raise MiniTorchError(
                f"{name}: `fused` and `foreach` cannot be `True` together (they name two different "
                "implementations of the step); pass one of them, or neither for the default"
            )
        if "weight_decay" in group:
            group["weight_decay"] = check_non_negative(
                name, "weight_decay", group["weight_decay"], "weight_decay value"
            )
        if "maximize" in group:  # step along +grad (gradient ascent)
            group["maximize"] = check_flag(name, "maximize", group["maximize"])
        for key, why in (
            ("differentiable", "step() is never recorded by autograd here"),
            ("capturable", "there are no CUDA graphs to capture the step in"),
        ):
            if key in group and check_flag(name, key, group[key]):
                raise MiniTorchValueError(f"{name}: {key}=True is not supported ({why}); leave it False")
        return group

    def add_param_group(self, group: dict[str, Any]) -> None:
        """Add a dict ``{'params': [...], 'lr': ..., ...}``; missing settings take the defaults."""
        name = type(self).__name__
        if not isinstance(group, dict):
            raise TypeError(
                f"{name}: a parameter group must be a dict {{'params': [...], ...}}, got {type(group).__name__} "
                "(don't mix Tensors and dicts in one list)"
            )
        if "params" not in group:
            raise KeyError(f"{name}: a parameter group needs a 'params' entry, got the keys {sorted(group)}")
        group = dict(group)
        params = group["params"]
        problem = _not_a_params_iterable(name, params) if not isinstance(params, Tensor) else None
        if problem is not None:
            raise TypeError(f"{name}: a group's 'params' must be an iterable of Tensors; {problem}")
        group["params"] = [params] if isinstance(params, Tensor) else list(params)
        if group["params"] and all(isinstance(p, tuple) and len(p) == 2 for p in group["params"]):
            # model.named_parameters(): PyTorch keeps the names in the group as 'param_names'
            group["param_names"] = [n for n, _ in group["params"]]
            group["params"] = [p for _, p in group["params"]]
        for i, p in enumerate(group["params"]):
            if not isinstance(p, Tensor):
                hint = " (wrap it with minitorch.tensor(..., requires_grad=True))" if hasattr(p, "shape") else ""
                raise TypeError(f"{name} can only optimize Tensors, but parameter {i} is a {type(p).__name__}{hint}")
            if p.grad_fn is not None:
                raise ValueError(
                    f"{name}: can't optimize a non-leaf Tensor (parameter {i}, shape {tuple(p.shape)}, made by "
                    f"{type(p.grad_fn).__name__}): optimize the leaf tensors it was computed from"
                )
        if len({id(p) for p in group["params"]}) != len(group["params"]):
            warnings.warn(
                f"{name}: a parameter group lists the same parameter twice; it would be updated twice per step",
                stacklevel=3,
            )
        for key, value in self.defaults.items():
            group.setdefault(key, value)
        self._check_hyperparameters(group)
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        if any(id(p) in seen for p in group["params"]):
            raise ValueError(f"{name}: some parameters appear in more than one parameter group")
        self.param_groups.append(group)

    @replayed  # minitorch.compile makes this call again on every replay of a step
    def zero_grad(self, set_to_none: bool = True) -> None:
        """Clear the gradients of every parameter (to None by default, as PyTorch 2 does)."""
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    if set_to_none:
                        p.grad = None
                    else:
                        p.grad.data[...] = 0

    @replayed  # its numbers (the learning rate, Adam's step count) change from step to step
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Update every parameter from its ``.grad``; with a ``closure``, call it first and return its loss.

        ``closure`` re-evaluates the model: ``opt.zero_grad(); loss = loss_fn(model(x), y);
        loss.backward(); return loss``. It runs with grad mode on (even inside ``no_grad``),
        as PyTorch runs it under ``torch.enable_grad()``. Without a closure, returns None.
        """
        if closure is None:  # the hot path: one test and one call more than _update() itself
            self._update()
            return None
        with enable_grad():
            loss = closure()
        self._update()
        return loss

    def _update(self) -> None:
        """One update of every parameter that has a gradient, group by group."""
        for group in self.param_groups:
            params, grads, states = self._init_group(group)
            if not params:
                continue
            kernel = self._choose_kernel(group, params, grads, states) if self._update_kernels else None
            if kernel is not None:  # the same rule for the whole group at once
                kernel.step(self, group, params, grads, states)
                continue
            for p, grad, state in zip(params, grads, states):
                self._update_parameter(p, grad, state, group)
                p._bump_version()  # p changed in place: a graph that saved it is now stale

    def _update_parameter(self, p: Tensor, grad: Any, state: dict[str, Any], group: dict[str, Any]) -> None:
        """The update rule, for one parameter: change ``p.data`` (and ``state``) in place from ``grad``.

        ``grad`` is ``p.grad``'s array, ``state`` the parameter's buffers (``self.state[p]``,
        made by ``_init_state``), ``group`` its parameter group (``group["lr"]``, ...).
        """
        raise NotImplementedError(
            f"{type(self).__name__} must define _update_parameter(p, grad, state, group) (the update rule "
            "that _update() applies to each parameter) or override step() itself"
        )

    def _init_state(self, p: Tensor, group: dict[str, Any], state: dict[str, Any]) -> None:
        """Put into ``state`` the buffers the rule needs for ``p`` with ``group``'s settings, where missing.

        Called before every update, so a setting switched on later (``amsgrad``) gets its
        buffer too. A state that stays empty is not kept (SGD without momentum has none).
        """

    def _init_group(self, group: dict[str, Any]) -> tuple[list[Tensor], list[Any], list[dict[str, Any]]]:
        """The group's parameters that have a gradient, their gradient arrays and their state (made if new)."""
        params, grads, states = [], [], []
        all_states = self.state
        for p in group["params"]:
            grad = p.grad
            if grad is None:
                continue
            state = all_states.get(p)
            if state is None:
                state = {}
                self._init_state(p, group, state)
                if state:
                    all_states[p] = state
            else:
                self._init_state(p, group, state)
            params.append(p)
            grads.append(grad.data)
            states.append(state)
        return params, grads, states

    def _choose_kernel(
        self, group: dict[str, Any], params: list[Tensor], grads: list[Any], states: list[dict[str, Any]]
    ) -> Any:
        """The bulk update kernel that runs this group's step, or None: the formula, parameter by parameter.

        The first kernel registered for this class on the group's device (that of its first
        parameter) whose ``applies(self, group, params, grads, states)`` is true. PyTorch's
        settings choose among them: ``foreach=False`` asks for the single-tensor formula,
        ``fused=False`` rules out the fused kernels. ``foreach=True`` or ``fused=True`` where no
        such kernel applies (``fused=True`` on the CPU) runs what the default would instead of
        raising: these settings choose the speed, never the numbers. A subclass that changes
        the rule (its own ``_update_parameter``) takes no kernel: they compute the old one.
        """
        if not SWITCHES.fast_kernels or group.get("foreach") is False:
            return None
        fused_allowed = group.get("fused") is not False
        device = backends.device_of(params[0].data)
        rule = type(self)._update_parameter
        for kernel in self._update_kernels:
            if (
                kernel.device == device
                and kernel.rule is rule
                and (fused_allowed or kernel.kind != "fused")
                and kernel.applies(self, group, params, grads, states)
            ):
                return kernel
        return None

    # ------------------------------------------------------------------ saving
    def state_dict(self) -> dict[str, Any]:
        """``{'state': {index: {...}}, 'param_groups': [...]}`` with parameters as indices, as PyTorch."""
        index: dict[int, int] = {}
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            packed["params"] = []
            for p in group["params"]:
                index.setdefault(id(p), len(index))
                packed["params"].append(index[id(p)])
            groups.append(packed)
        state: dict[int, dict[str, Any]] = {}
        for group in self.param_groups:
            for p in group["params"]:
                if p in self.state:
                    state[index[id(p)]] = {
                        k: (Tensor._make(v.copy(), None, False) if backends.is_backend_array(v) else v)
                        for k, v in self.state[p].items()
                    }
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: Mapping[str, Any]) -> None:
        """Restore hyperparameters and buffers saved by ``state_dict()`` (same parameter order).

        Everything is checked before anything changes: the number of groups and of parameters
        in each, the hyperparameters, and each saved buffer's shape against its parameter's.
        """
        name = f"{type(self).__name__}.load_state_dict"
        _check_is_optimizer_state(name, state_dict)
        groups, saved_state = state_dict["param_groups"], state_dict["state"]
        if len(groups) != len(self.param_groups):
            raise ValueError(
                f"{name}: the saved state has {len(groups)} parameter group(s), this optimizer has "
                f"{len(self.param_groups)}"
            )
        by_index: dict[int, Tensor] = {}
        new_settings = []
        for g, (saved, group) in enumerate(zip(groups, self.param_groups)):
            if not isinstance(saved, Mapping) or "params" not in saved:
                raise ValueError(f"{name}: saved parameter group {g} is not a dict with a 'params' entry")
            if len(saved["params"]) != len(group["params"]):
                raise ValueError(
                    f"{name}: saved parameter group {g} has {len(saved['params'])} parameters, this "
                    f"optimizer's group {g} has {len(group['params'])} (was it built from another model?)"
                )
            for i, p in zip(saved["params"], group["params"]):
                by_index[int(i)] = p
            settings = {k: copy.deepcopy(v) for k, v in saved.items() if k != "params"}
            new_settings.append(self._check_hyperparameters({**group, **settings}))
        new_state = {}
        for i, buffers in saved_state.items():
            index = int(i)
            if index not in by_index:
                raise ValueError(
                    f"{name}: the saved state has buffers for parameter {index}, but this optimizer has "
                    f"parameters 0 to {len(by_index) - 1}"
                )
            new_state[by_index[index]] = self._restore_buffers(name, index, by_index[index], buffers)
        for group, settings in zip(self.param_groups, new_settings):
            group.update({k: v for k, v in settings.items() if k != "params"})
        self.state = new_state

    def _restore_buffers(self, name: str, index: int, p: Tensor, buffers: Mapping[str, Any]) -> dict[str, Any]:
        """The saved buffers of parameter ``index``, checked against ``p`` and moved to its device and dtype."""
        missing = [k for k in self.state_keys if k not in buffers]
        if missing:
            raise ValueError(
                f"{name}: the saved state of parameter {index} has {sorted(buffers)}, but "
                f"{type(self).__name__} keeps {list(self.state_keys)}: was it saved by another optimizer?"
            )
        restored: dict[str, Any] = {}
        for key, value in buffers.items():
            array = value.data if isinstance(value, Tensor) else value
            if not backends.is_backend_array(array) and hasattr(array, "__array__"):
                # another framework's tensor (a PyTorch optimizer's state_dict): read it through NumPy
                array = np.asarray(array.detach() if callable(getattr(array, "detach", None)) else array)
            if backends.is_backend_array(array):
                if key == "step":
                    restored[key] = int(array)
                    continue
                if tuple(array.shape) != tuple(p.shape):
                    raise ValueError(
                        f"{name}: the saved {key!r} of parameter {index} has shape {tuple(array.shape)}, but "
                        f"parameter {index} has shape {tuple(p.shape)}: the checkpoint belongs to a different "
                        "model, or the parameters were passed in a different order"
                    )
                array = backends.to_device(array, p.device)
                array = array.astype(p.data.dtype if array.dtype.kind == "f" else array.dtype).copy()
            restored[key] = array
        return restored

    def __repr__(self) -> str:
        lines = [f"{type(self).__name__} ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for key in sorted(k for k in group if k != "params"):
                lines.append(f"    {key}: {group[key]}")
        lines.append(")")
        return "\n".join(lines)


def _check_is_optimizer_state(name: str, state_dict: Any) -> None:
    """A TypeError/ValueError saying what ``state_dict`` is, if it is not an optimizer's state_dict."""
    if not isinstance(state_dict, Mapping):
        kind = type(state_dict).__name__
        hint = {
            "str": ": load the file first, opt.load_state_dict(minitorch.load(path))",
        }.get(kind, ": pass what optimizer.state_dict() returned")
        if callable(getattr(state_dict, "state_dict", None)):
            hint = ": pass its state_dict(), saved from the same kind of optimizer"
        raise TypeError(f"{name}: expected a dict (what optimizer.state_dict() returned), got {kind}{hint}")
    missing = [k for k in ("state", "param_groups") if k not in state_dict]
    if missing:
        looks = " (this looks like a model's state_dict: load it with model.load_state_dict)" if state_dict else ""
        raise ValueError(
            f"{name}: the dict has no {' or '.join(repr(k) for k in missing)} entry: expected what "
            f"optimizer.state_dict() returned{looks}"
        )
