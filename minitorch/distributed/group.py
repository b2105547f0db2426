"""The process group: which backend, this process's rank, how many ranks there are.

``init_process_group("mpi")`` wraps MPI's world communicator (the processes ``mpiexec -n N``
started); ``init_process_group("nccl")`` adds an NCCL communicator over the GPUs, set up
through MPI. Everything else in ``minitorch.distributed`` asks ``current_group()`` for it,
which says "call init_process_group first" when there is none.

A group works on arrays; ``collectives.py`` puts the Tensor-level API on top.
"""

from __future__ import annotations

import datetime
import importlib.util
import sys
import time
from typing import Any

from minitorch.distributed.agreement import DEFAULT_TIMEOUT_S
from minitorch.distributed.base import BACKENDS, DistributedError, ProcessGroup

ABORT_GRACE_S = 0.5  # seconds between printing a dying rank's traceback and MPI_Abort
_STATE: dict[str, Any] = {"group": None, "previous_excepthook": None}


class NotInitializedError(DistributedError, AssertionError):
    """``destroy_process_group`` without a group (PyTorch raises an AssertionError)."""


def is_available() -> bool:
    """True when mpi4py can be imported, so ``init_process_group("mpi")`` can work."""
    try:
        return importlib.util.find_spec("mpi4py") is not None
    except (ImportError, ValueError):
        return False


def is_initialized() -> bool:
    """True between ``init_process_group`` and ``destroy_process_group``."""
    return _STATE["group"] is not None


def init_process_group(backend: str = "mpi", rank: int | None = None, world_size: int | None = None,
                       timeout: datetime.timedelta | float | None = None, **unused: Any) -> None:
    """Join the ranks that ``mpiexec -n N`` started: ``backend`` is ``"mpi"`` or ``"nccl"``.

    ``timeout`` (a ``datetime.timedelta`` or seconds; PyTorch's default of 30 minutes) bounds
    every wait of every collective: a rank that does not arrive in time is named in a
    ``GroupTimeoutError``. With more than one rank, an uncaught exception on any rank prints
    its traceback and ends the whole job (``MPI_Abort``), so no other rank waits for it.

    ``rank`` and ``world_size`` are optional checks: MPI already knows both. Other PyTorch
    arguments (``init_method``, ``store``...) are accepted and ignored: mpiexec did that work.
    """
    if _STATE["group"] is not None:
        raise DistributedError("init_process_group: the process group is already initialized "
                               "(call destroy_process_group() first to start again)")
    name = str(backend).lower()
    if name not in BACKENDS:
        raise DistributedError(f"init_process_group: unknown backend {backend!r}; use 'mpi' (CPU tensors) "
                               "or 'nccl' (GPU tensors, through CuPy)")
    timeout_s = _seconds(timeout)
    group: ProcessGroup
    if name == "mpi":
        from minitorch.distributed.mpi import MPIGroup

        group = MPIGroup(timeout_s=timeout_s)
    else:
        from minitorch.distributed.nccl import NCCLGroup

        group = NCCLGroup(timeout_s=timeout_s)
    for arg, given, actual in (("rank", rank, group.rank), ("world_size", world_size, group.size)):
        if given is not None and given != actual:
            group.close()
            raise DistributedError(f"init_process_group: {arg}={given}, but MPI says this process has {arg} "
                                   f"{actual}; launch with mpiexec -n N and leave {arg} out")
    _STATE["group"] = group
    if group.size > 1:
        _abort_the_job_on_an_uncaught_exception(group)


def _seconds(timeout: Any) -> float:
    """``timeout`` as a positive number of seconds (None: PyTorch's default, 30 minutes)."""
    if timeout is None:
        return DEFAULT_TIMEOUT_S
    seconds = timeout.total_seconds() if isinstance(timeout, datetime.timedelta) else timeout
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not seconds > 0:
        raise DistributedError(f"init_process_group: timeout must be a positive datetime.timedelta or number of "
                               f"seconds, got {timeout!r}")
    return float(seconds)


def _abort_the_job_on_an_uncaught_exception(group: ProcessGroup) -> None:
    """Install a ``sys.excepthook`` that prints the traceback, then ends every rank.

    Without it, a rank that dies leaves the others waiting in their next collective until
    the timeout (mpi4py's ``python -m mpi4py script.py`` does the same).
    """
    previous = sys.excepthook

    def print_then_abort(kind: Any, value: Any, tb: Any) -> None:
        previous(kind, value, tb)  # the traceback, as Python prints it
        sys.stderr.write(f"minitorch.distributed: rank {group.rank} of {group.size} raised {kind.__name__}; "
                         "ending every rank of the job (MPI_Abort), since none could finish without it\n")
        sys.stdout.flush()
        sys.stderr.flush()
        # mpiexec forwards each rank's output through its own processes; MPI_Abort ends them
        # too, and the end of the traceback was sometimes lost on the way (1 run in 3, measured
        # on 2 cores). A moment for the forwarding costs nothing next to a job that failed.
        time.sleep(ABORT_GRACE_S)
        group.abort(1)

    _STATE["previous_excepthook"] = previous
    sys.excepthook = print_then_abort


def destroy_process_group() -> None:
    """Leave the group; ``init_process_group`` may be called again afterwards.

    Without a group it raises, as PyTorch does (it would hide a missing ``init_process_group``).
    """
    group = _STATE["group"]
    if group is None:
        raise NotInitializedError("destroy_process_group: there is no process group to destroy (Process group "
                                  "cannot be None): call init_process_group() first")
    _STATE["group"] = None
    if _STATE["previous_excepthook"] is not None:
        sys.excepthook = _STATE["previous_excepthook"]
        _STATE["previous_excepthook"] = None
    group.close()


def current_group() -> ProcessGroup:
    """The group set up by ``init_process_group``; an error saying so when there is none."""
    group = _STATE["group"]
    if group is None:
        raise DistributedError(
            "Default process group has not been initialized: call "
            "minitorch.distributed.init_process_group('mpi') first (and launch with mpiexec -n N)"
        )
    return group


def get_rank() -> int:
    """This process's number, 0 .. world_size - 1 (rank 0 usually prints and saves)."""
    return current_group().rank


def get_world_size() -> int:
    """How many processes (ranks) take part."""
    return current_group().size


def get_backend() -> str:
    """The name of the initialised backend: ``"mpi"`` or ``"nccl"``."""
    return current_group().backend
