"""The two small records a tensor keeps beside its data: its version counter and the
handles of its gradient hooks (``tensor_base.py`` uses both)."""

from __future__ import annotations

from typing import Any


class VersionCounter:
    """How many times a tensor's memory was changed in place; views of it share one counter.

    An op that saves a tensor for backward records the counter and its value; backward
    refuses to run if the value changed since (the saved values are not the ones forward
    used any more), instead of computing a silently wrong gradient.
    """

    __slots__ = ("value", "shared")

    def __init__(self) -> None:
        self.value = 0
        self.shared = False  # True once a second tensor (a view, a detach) uses this counter


class HookHandle:
    """What ``register_hook`` returns: ``handle.remove()`` unregisters the hook."""

    def __init__(self, hooks: list[Any], hook: Any) -> None:
        self._hooks, self._hook = hooks, hook

    def remove(self) -> None:
        """Unregister the hook (safe to call twice)."""
        if self._hook in self._hooks:
            self._hooks.remove(self._hook)
