"""``torch.nn.modules.utils``'s path to ``_pair``, the helper older layer code imports."""

from typing import Any


def _pair(value: Any) -> tuple[Any, Any]:
    """``(value, value)`` for a single value; a pair (or any sequence) as a tuple, unchanged."""
    if isinstance(value, (tuple, list)):
        return tuple(value)
    return (value, value)


__all__ = ["_pair"]
