"""Who is told about each communication: the watchers behind ``CommDebugMode``.

Every collective and point-to-point call of ``minitorch.distributed`` calls
``note(op, nbytes)`` once, on the rank that makes it. A watcher (a function of ``op`` and
``nbytes``) added with ``watch`` sees them until ``unwatch``; with none, a note costs one
empty loop.
"""

from __future__ import annotations

from collections.abc import Callable

Watcher = Callable[[str, int], None]
_WATCHERS: list[Watcher] = []


def note(op: str, nbytes: int) -> None:
    """Tell every watcher that this rank started ``op`` on a buffer of ``nbytes`` bytes."""
    for watcher in _WATCHERS:
        watcher(op, int(nbytes))


def watch(watcher: Watcher) -> None:
    """Call ``watcher(op, nbytes)`` for every communication from now on."""
    _WATCHERS.append(watcher)


def unwatch(watcher: Watcher) -> None:
    """Stop calling ``watcher``."""
    _WATCHERS.remove(watcher)
