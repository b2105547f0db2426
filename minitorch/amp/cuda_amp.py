"""``minitorch.cuda.amp``, as ``torch.cuda.amp``: the older spelling of ``amp`` for the GPU.

``torch.cuda.amp.GradScaler(enabled=...)`` and ``torch.cuda.amp.autocast()`` are
``torch.amp.GradScaler("cuda", ...)`` and ``torch.amp.autocast("cuda", ...)`` (PyTorch
marks them deprecated, and so the same classes are used here). Without a GPU the scaler
warns and disables itself, as PyTorch's does, so ``scaler.scale(loss).backward()`` then
runs the plain float32 step.
"""

from typing import Any

from minitorch.amp.autocast_mode import autocast as _autocast
from minitorch.amp.grad_scaler import GradScaler as _GradScaler


class GradScaler(_GradScaler):
    """``amp.GradScaler`` on the ``"cuda"`` device."""

    def __init__(self, init_scale: float = 2.0**16, growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True) -> None:
        super().__init__("cuda", init_scale, growth_factor, backoff_factor, growth_interval, enabled)


class autocast(_autocast):  # noqa: N801 (PyTorch's name)
    """``amp.autocast`` on the ``"cuda"`` device."""

    def __init__(self, enabled: bool = True, dtype: Any = None, cache_enabled: Any = None) -> None:
        super().__init__("cuda", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


__all__ = ["GradScaler", "autocast"]
