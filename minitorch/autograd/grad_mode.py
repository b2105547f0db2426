"""Switching graph recording on and off: ``no_grad``, ``enable_grad``, ``set_grad_enabled``."""

import functools

from minitorch.switches import SWITCHES


def is_grad_enabled():
    """True when operations record the graph for backward."""
    return SWITCHES.grad_enabled


class set_grad_enabled:
    """Turn graph recording on or off; as a call or as a context manager."""

    def __init__(self, mode):
        self.prev = SWITCHES.grad_enabled
        SWITCHES.grad_enabled = bool(mode)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        SWITCHES.grad_enabled = self.prev
        return False


class _GradModeContext:
    """Base of no_grad / enable_grad: set a mode on enter, restore it on exit."""

    mode = True

    def __enter__(self):
        self.prev = SWITCHES.grad_enabled
        SWITCHES.grad_enabled = self.mode
        return self

    def __exit__(self, *exc):
        SWITCHES.grad_enabled = self.prev
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with type(self)():
                return fn(*args, **kwargs)

        return wrapper


class no_grad(_GradModeContext):
    """Inside ``with minitorch.no_grad():`` no graph is recorded (evaluation, updates)."""

    mode = False


class enable_grad(_GradModeContext):
    """Turn graph recording back on inside a ``no_grad`` block."""

    mode = True
