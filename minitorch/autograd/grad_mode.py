"""Switching graph recording on and off: ``no_grad``, ``enable_grad``, ``set_grad_enabled``, ``inference_mode``."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Literal

from minitorch.switches import SWITCHES


def is_grad_enabled() -> bool:
    """True when operations record the graph for backward."""
    return SWITCHES.grad_enabled


class set_grad_enabled:
    """Turn graph recording on or off; as a call or as a context manager."""

    def __init__(self, mode: bool) -> None:
        self.prev = SWITCHES.grad_enabled
        SWITCHES.grad_enabled = bool(mode)

    def __enter__(self) -> set_grad_enabled:
        return self

    def __exit__(self, *exc: Any) -> Literal[False]:
        SWITCHES.grad_enabled = self.prev
        return False


class _GradModeContext:
    """Base of no_grad / enable_grad: set a mode on enter, restore it on exit."""

    mode = True

    def __enter__(self) -> _GradModeContext:
        self.prev = SWITCHES.grad_enabled
        SWITCHES.grad_enabled = self.mode
        return self

    def __exit__(self, *exc: Any) -> Literal[False]:
        SWITCHES.grad_enabled = self.prev
        return False

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """Used as a decorator (``@no_grad()``): run ``fn`` in this mode."""

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with type(self)():
                return fn(*args, **kwargs)

        return wrapper


class no_grad(_GradModeContext):
    """Inside ``with minitorch.no_grad():`` no graph is recorded (evaluation, updates)."""

    mode = False


class enable_grad(_GradModeContext):
    """Turn graph recording back on inside a ``no_grad`` block."""

    mode = True


class inference_mode(_GradModeContext):
    """``torch.inference_mode()``: no graph is recorded inside, as under ``no_grad``.

    PyTorch also marks the tensors made inside as "inference tensors" that autograd
    later refuses; MiniTorch has no such tensors, so here it is ``no_grad`` under
    PyTorch's name. ``inference_mode(False)`` leaves recording as it is.
    """

    def __init__(self, mode: bool = True) -> None:
        self.enabled = bool(mode)

    def __enter__(self) -> inference_mode:
        self.prev = SWITCHES.grad_enabled
        if self.enabled:
            SWITCHES.grad_enabled = False
        return self

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """Used as a decorator (``@inference_mode()``): run ``fn`` in this mode."""
        enabled = self.enabled

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with inference_mode(enabled):
                return fn(*args, **kwargs)

        return wrapper
