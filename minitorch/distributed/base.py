"""What every backend provides: ``ProcessGroup`` (collectives on arrays), ``Work``, ``ReduceOp``.

The backends (``mpi.py``, ``nccl.py``) subclass ``ProcessGroup``; ``group.py`` keeps the
one that ``init_process_group`` set up.
"""

from __future__ import annotations

import enum
import importlib
from collections.abc import Callable
from typing import Any

from minitorch.errors import MiniTorchError

# The exact command that installs MPI from PyPI (no system MPI needed).
PIP_COMMAND = 'pip install "mpi4py>=4" "mpich>=4"'
BACKENDS = ("mpi", "nccl")


class DistributedError(MiniTorchError):
    """A misuse of ``minitorch.distributed``: not initialised, missing MPI, ranks that disagree."""


class ReduceOp(enum.Enum):
    """How ``all_reduce`` combines the ranks' values, element by element."""

    SUM = "sum"
    PRODUCT = "product"
    MAX = "max"
    MIN = "min"
    AVG = "avg"  # SUM, then divided by the world size


class Work:
    """A collective that was started and may still be running: ``wait()`` finishes it.

    ``then`` runs once after completion (AVG divides there, since MPI has no average).
    """

    def __init__(self, wait: Callable[[], Any], test: Callable[[], bool], then: Callable[[], Any] | None = None):
        self._wait, self._test, self._then = wait, test, then
        self._done = False

    def wait(self) -> bool:
        """Block until the collective has finished (and its result is in the buffer)."""
        if not self._done:
            self._wait()
            self._finish()
        return True

    def is_completed(self) -> bool:
        """True when the collective has finished; also lets MPI make progress on it."""
        if not self._done and self._test():
            self._finish()
        return self._done

    def _finish(self) -> None:
        self._done = True
        if self._then is not None:
            self._then()


class ProcessGroup:
    """What a backend provides, on arrays of its device (``xp`` is their array library)."""

    backend: str = ""
    rank: int = 0
    size: int = 1
    device: str = "cpu"

    def allreduce(self, buf: Any, op: ReduceOp) -> None:
        """Combine ``buf`` over all ranks, in place (op is never AVG here)."""
        raise NotImplementedError

    def iallreduce(self, buf: Any, op: ReduceOp) -> Work:
        """Start ``allreduce`` and return at once; ``buf`` must stay untouched until ``wait()``."""
        raise NotImplementedError

    def broadcast(self, buf: Any, src: int) -> None:
        """Overwrite ``buf`` on every rank with rank ``src``'s."""
        raise NotImplementedError

    def allgather(self, buf: Any, out: Any) -> None:
        """``out[i] = buf of rank i``; ``out`` has shape ``(size, *buf.shape)``."""
        raise NotImplementedError

    def allgather_object(self, obj: Any) -> list[Any]:
        """Every rank's small Python object, as a list indexed by rank (for checks)."""
        raise NotImplementedError

    def barrier(self) -> None:
        """Return only when every rank has reached this call."""
        raise NotImplementedError

    def isend(self, buf: Any, dst: int, what: str) -> Any:
        """Start sending ``buf`` to rank ``dst`` (``pairwise.Transfer``); ``what`` names it in errors."""
        raise DistributedError(f"send {what}: the {self.backend} backend has no point-to-point transfers; "
                               "use the mpi backend (CPU tensors)")

    def irecv(self, src: int, what: str, shape: Any = None, dtype: Any = None) -> Any:
        """Start receiving ``what`` from rank ``src``; the transfer's ``wait()`` returns the array."""
        raise DistributedError(f"receive {what}: the {self.backend} backend has no point-to-point transfers; "
                               "use the mpi backend (CPU tensors)")

    def abort(self, code: int = 1) -> None:
        """End every rank of the job at once (after an uncaught exception on this one)."""
        raise SystemExit(code)

    def close(self) -> None:
        """Release what the backend holds (MPI itself is finalised when Python exits)."""


def import_mpi() -> Any:
    """``mpi4py.MPI``, or an error that gives the exact pip command."""
    try:
        return importlib.import_module("mpi4py.MPI")
    except ImportError as exc:
        raise DistributedError(
            f"minitorch.distributed needs mpi4py and an MPI library ({type(exc).__name__}: {exc}). "
            f"Install both from PyPI, no system MPI needed: {PIP_COMMAND}   "
            "(or pip install -e '.[dist]' in the course repository)"
        ) from exc
