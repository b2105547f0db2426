"""``detect_anomaly()``: find the op whose backward produced NaN or Inf.

While it is on, every op remembers the stack at which it was created in forward, and
the engine checks each gradient a backward returns. The first non-finite one raises an
error that names the op and shows the forward line that created it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from minitorch.hints import Array
from minitorch.switches import SWITCHES

if TYPE_CHECKING:
    from minitorch.autograd.function import BackwardNode


class detect_anomaly:
    """Context manager: check every backward for NaN/Inf and name the op at fault."""

    def __init__(self, check_nan: bool = True) -> None:
        self.check_nan = check_nan

    def __enter__(self) -> detect_anomaly:
        self.prev = SWITCHES.anomaly
        SWITCHES.anomaly = self.check_nan
        return self

    def __exit__(self, *exc: Any) -> Literal[False]:
        SWITCHES.anomaly = self.prev
        return False


def is_anomaly_enabled() -> bool:
    """True inside ``detect_anomaly()``."""
    return SWITCHES.anomaly


def check_gradient(node: BackwardNode, index: int, grad: Array | None, xp: Any) -> None:
    """Raise if ``grad`` (input ``index`` of ``node``'s backward) holds NaN or Inf."""
    if grad is None or bool(xp.isfinite(grad).all()):
        return
    kind = "nan" if bool(xp.isnan(grad).any()) else "inf"
    where = ""
    if node.created_at:
        # The last frames are MiniTorch's own; the learner's line is the last one outside it.
        user_frames = [f for f in node.created_at if "/minitorch/" not in f]
        frame = (user_frames or node.created_at)[-1]
        where = "\nThe op was created in forward at:\n" + frame.rstrip()
    raise RuntimeError(
        f"Function '{type(node).__name__}' returned {kind} values in its gradient for "
        f"input {index}.{where}"
    )
