"""Switching graph recording on and off: ``no_grad``, ``enable_grad``, ``set_grad_enabled``."""

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
