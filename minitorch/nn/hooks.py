"""Forward hooks: functions a Module calls before and after its ``forward``, as in PyTorch.

    def show(module, args, output):
        print(type(module).__name__, tuple(output.shape))

    handle = model.hidden.register_forward_hook(show)   # every call of model.hidden prints
    model(x)
    handle.remove()                                      # and stops

A *pre*-hook ``hook(module, args)`` runs before ``forward`` and may return new arguments
(a tuple, or a single value); a hook ``hook(module, args, output)`` runs after it and may
return a new output. With ``with_kwargs=True`` they also get the keyword arguments:
``hook(module, args, kwargs)`` returning None or ``(args, kwargs)``, and
``hook(module, args, kwargs, output)``. Hooks run in the order they were registered
(``prepend=True`` puts one first). Lessons use them to look inside a network while it
runs: the activations of every layer, without changing the model's code.

A module without hooks never comes here: ``Module.__call__`` checks two attributes and
calls ``forward`` directly (the training hot path stays as fast as before).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

_IDS = itertools.count()


class RemovableHandle:
    """What ``register_forward_hook`` / ``register_forward_pre_hook`` return.

    ``handle.remove()`` unregisters the hook (safe to call twice); ``with handle:`` removes
    it at the end of the block.
    """

    def __init__(self, hooks: dict[int, tuple[Callable[..., Any], bool]]) -> None:
        self.id = next(_IDS)
        self._hooks = hooks

    def remove(self) -> None:
        """Unregister the hook."""
        self._hooks.pop(self.id, None)

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.remove()


def add_hook(module: Any, field: str, hook: Callable[..., Any], prepend: bool, with_kwargs: bool) -> RemovableHandle:
    """Register ``hook`` in ``module.<field>`` (a dict id -> (hook, with_kwargs), made on first use)."""
    if not callable(hook):
        raise TypeError(f"{type(module).__name__}: a hook must be callable, got {type(hook).__name__}")
    hooks = module.__dict__.get(field)
    if hooks is None:
        hooks = {}
        object.__setattr__(module, field, hooks)  # not a parameter, buffer or sub-module
    handle = RemovableHandle(hooks)
    if prepend:
        rest = dict(hooks)
        hooks.clear()
        hooks[handle.id] = (hook, with_kwargs)
        hooks.update(rest)
    else:
        hooks[handle.id] = (hook, with_kwargs)
    return handle


def call_with_hooks(module: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``module.forward(*args, **kwargs)`` with its pre-hooks before and its hooks after."""
    for hook, with_kwargs in list((module._forward_pre_hooks or {}).values()):
        if with_kwargs:
            result = hook(module, args, kwargs)
            if result is not None:
                if not (isinstance(result, tuple) and len(result) == 2):
                    raise RuntimeError(
                        f"forward pre-hook must return None or a tuple of (new_args, new_kwargs), but got {result!r}"
                    )
                args, kwargs = result
        else:
            result = hook(module, args)
            if result is not None:
                args = result if isinstance(result, tuple) else (result,)
    output = module.forward(*args, **kwargs)
    for hook, with_kwargs in list((module._forward_hooks or {}).values()):
        result = hook(module, args, kwargs, output) if with_kwargs else hook(module, args, output)
        if result is not None:
            output = result
    return output
