"""``CommDebugMode``: count the communication a block of code makes on this rank.

    with CommDebugMode() as comm_mode:
        y = model(x)
    comm_mode.get_comm_counts()     # {"all_reduce": 1}
    comm_mode.get_comm_bytes()      # {"all_reduce": 160}   (MiniTorch: the bytes each call sent)

As PyTorch's, it counts the calls this rank makes (collectives, sends and receives), keyed
here by their names. ``get_comm_bytes`` is MiniTorch's: the size of each call's buffer.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from minitorch.distributed import comm_log


class CommDebugMode:
    """A context manager that counts every collective and transfer started inside it."""

    def __init__(self) -> None:
        self.comm_counts: Counter[str] = Counter()
        self.comm_bytes: Counter[str] = Counter()

    def _note(self, op: str, nbytes: int) -> None:
        self.comm_counts[op] += 1
        self.comm_bytes[op] += nbytes

    def __enter__(self) -> CommDebugMode:
        self.comm_counts.clear()
        self.comm_bytes.clear()
        comm_log.watch(self._note)
        return self

    def __exit__(self, *exc: Any) -> None:
        comm_log.unwatch(self._note)

    def get_comm_counts(self) -> dict[str, int]:
        """How many times each kind of communication ran: ``{"all_reduce": 2, ...}``."""
        return dict(self.comm_counts)

    def get_total_counts(self) -> int:
        """How many communications ran in all."""
        return sum(self.comm_counts.values())

    def get_comm_bytes(self) -> dict[str, int]:
        """Bytes of the buffers each kind of communication carried (MiniTorch's addition)."""
        return dict(self.comm_bytes)
