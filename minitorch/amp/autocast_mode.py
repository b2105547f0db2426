"""``minitorch.autocast``: run the ops that profit in float16, the rest in float32.

    with minitorch.autocast("cpu"):          # or "cuda"
        loss = F.cross_entropy(model(x), y)  # linear in float16, the loss in float32
    loss.backward()                          # outside: gradients reach float32 parameters

Which op runs in which dtype is decided in ``minitorch/functions/autocast_policy.py``.
Only tensors on the autocast device are affected; outside the block nothing changes.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from minitorch.backends import normalize_device
from minitorch.dtypes import float16, get_dtype
from minitorch.switches import SWITCHES


class autocast:  # noqa: N801 (PyTorch's name)
    """Context manager (and decorator): mixed precision for the ops on ``device_type``."""

    def __init__(self, device_type: str, dtype: Any = None, enabled: bool = True, cache_enabled: Any = None) -> None:
        self.device_type = normalize_device(device_type)
        if str(dtype).rpartition(".")[2] == "bfloat16":  # "bfloat16", or torch.bfloat16 passed by mistake
            raise ValueError(
                f"autocast(device_type={device_type!r}): dtype {dtype!r} is not supported: MiniTorch's autocast "
                "runs in float16 only (NumPy has no bfloat16); use autocast(device_type) or dtype=minitorch.float16"
            )
        self.dtype = float16 if dtype is None else get_dtype(dtype)
        if self.dtype is not float16:
            raise ValueError(
                f"autocast(device_type={device_type!r}): dtype {self.dtype} is not supported: MiniTorch's autocast "
                "runs in float16 only (bfloat16 does not exist in NumPy); use dtype=minitorch.float16"
            )
        if not isinstance(enabled, bool):
            raise TypeError(f"autocast: enabled must be True or False, got {enabled!r}")
        self.enabled = enabled
        self._previous: list[tuple[str, str] | None] = []

    def __enter__(self) -> autocast:
        self._previous.append(SWITCHES.autocast)
        SWITCHES.autocast = (self.device_type, self.dtype.name) if self.enabled else None
        return self

    def __exit__(self, *exc: Any) -> None:
        SWITCHES.autocast = self._previous.pop()

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self:
                return fn(*args, **kwargs)

        return wrapper


def is_autocast_enabled(device_type: str | None = None) -> bool:
    """True inside an enabled ``autocast`` block (for ``device_type``, when given)."""
    state = SWITCHES.autocast
    if state is None:
        return False
    return device_type is None or normalize_device(device_type) == state[0]
