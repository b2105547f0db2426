"""``Optimizer``: the base of SGD and Adam -- parameter groups, per-parameter state, zero_grad.

An optimizer holds ``param_groups``, a list of dicts each with ``'params'`` and its own
hyperparameters (``'lr'``, ...), and ``state``, a dict from parameter to its running
buffers (momentum, Adam's moments). ``step()`` updates every ``p.data`` in place with
plain array arithmetic: no graph is recorded and the Parameter objects never change.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

from minitorch import backends
from minitorch.errors import MiniTorchError
from minitorch.tensor import Tensor


class Optimizer:
    """Base class: subclasses set ``defaults`` and write ``step()``."""

    def __init__(self, params: Iterable[Tensor] | Iterable[dict[str, Any]], defaults: dict[str, Any]) -> None:
        self.defaults = dict(defaults)
        self.state: dict[Tensor, dict[str, Any]] = {}  # per parameter: its buffers ("momentum_buffer", ...)
        self.param_groups: list[dict[str, Any]] = []  # each: {"params": [...], "lr": ..., ...}
        if isinstance(params, Tensor):
            raise TypeError("params must be an iterable of Tensors (e.g. model.parameters()), got a single Tensor")
        groups: list[Any] = list(params)
        if not groups:
            raise MiniTorchError(f"{type(self).__name__} got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def add_param_group(self, group: dict[str, Any]) -> None:
        """Add a dict ``{'params': [...], 'lr': ..., ...}``; missing settings take the defaults."""
        group = dict(group)
        params = group["params"]
        group["params"] = [params] if isinstance(params, Tensor) else list(params)
        for p in group["params"]:
            if not isinstance(p, Tensor):
                raise TypeError(f"{type(self).__name__} can only optimize Tensors, got {type(p).__name__}")
            if not p.requires_grad or p.grad_fn is not None:
                raise MiniTorchError(
                    f"{type(self).__name__}: can't optimize a tensor that is not a leaf requiring grad "
                    f"(shape {tuple(p.shape)})"
                )
        for key, value in self.defaults.items():
            group.setdefault(key, value)
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        if any(id(p) in seen for p in group["params"]):
            raise MiniTorchError("some parameters appear in more than one parameter group")
        self.param_groups.append(group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Clear the gradients of every parameter (to None by default, as PyTorch 2 does)."""
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    if set_to_none:
                        p.grad = None
                    else:
                        p.grad.data[...] = 0

    def step(self) -> None:
        """Update every parameter from its ``.grad``."""
        raise NotImplementedError

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

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore hyperparameters and buffers saved by ``state_dict()`` (same parameter order)."""
        groups = state_dict["param_groups"]
        if len(groups) != len(self.param_groups):
            raise MiniTorchError(
                f"{type(self).__name__}.load_state_dict: the saved state has {len(groups)} parameter "
                f"group(s), this optimizer has {len(self.param_groups)}"
            )
        by_index: dict[int, Tensor] = {}
        for saved, group in zip(groups, self.param_groups):
            if len(saved["params"]) != len(group["params"]):
                raise MiniTorchError(
                    f"{type(self).__name__}.load_state_dict: a saved group has {len(saved['params'])} "
                    f"parameters, this optimizer's has {len(group['params'])}"
                )
            for i, p in zip(saved["params"], group["params"]):
                by_index[int(i)] = p
            for key, value in saved.items():
                if key != "params":
                    group[key] = copy.deepcopy(value)
        self.state = {}
        for i, buffers in state_dict["state"].items():
            p = by_index[int(i)]
            restored = {}
            for key, value in buffers.items():
                array = value.data if isinstance(value, Tensor) else value
                if backends.is_backend_array(array):
                    array = backends.to_device(array, p.device).astype(
                        p.data.dtype if array.dtype.kind == "f" and key != "step" else array.dtype
                    )
                    array = array.copy()
                restored[key] = array
            self.state[p] = restored

    def __repr__(self) -> str:
        lines = [f"{type(self).__name__} ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for key in sorted(k for k in group if k != "params"):
                lines.append(f"    {key}: {group[key]}")
        lines.append(")")
        return "\n".join(lines)
