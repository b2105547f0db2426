"""Mixed precision: ``autocast`` (float16 where it is safe) and ``GradScaler`` (loss scaling).

See lesson 14 for why both are needed: float16 overflows at 65,504 and rounds gradients
below about 6e-8 to zero.
"""

from minitorch.amp.autocast_mode import autocast, is_autocast_enabled
from minitorch.amp.grad_scaler import GradScaler

__all__ = ["GradScaler", "autocast", "is_autocast_enabled"]
