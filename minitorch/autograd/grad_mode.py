"""Switching graph recording on and off: ``no_grad``, ``enable_grad``, ``set_grad_enabled``."""

import functools

# One flag for the whole process. A list so that other modules can read it without a
# function call on the hot path (``_STATE[0]``).
_STATE = [True]


def is_grad_enabled():
    """True when operations record the graph for backward."""
    return _STATE[0]


class set_grad_enabled:
    """Turn graph recording on or off; as a call or as a context manager."""

    def __init__(self, mode):
        self.prev = _STATE[0]
        _STATE[0] = bool(mode)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _STATE[0] = self.prev
        return False


class _GradModeContext:
    """Base of no_grad / enable_grad: set a mode on enter, restore it on exit."""

    mode = True

    def __enter__(self):
        self.prev = _STATE[0]
        _STATE[0] = self.mode
        return self

    def __exit__(self, *exc):
        _STATE[0] = self.prev
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
