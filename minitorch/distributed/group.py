"""The process group: which backend, this process's rank, how many ranks there are.

``init_process_group("mpi")`` wraps MPI's world communicator (the processes ``mpiexec -n N``
started); ``init_process_group("nccl")`` adds an NCCL communicator over the GPUs, set up
through MPI. Everything else in ``minitorch.distributed`` asks ``current_group()`` for it,
which says "call init_process_group first" when there is none.

A group works on arrays; ``collectives.py`` puts the Tensor-level API on top.
"""

from __future__ import annotations

import atexit
import datetime
import importlib.util
import sys
import time
from typing import Any

from minitorch.distributed.agreement import DEFAULT_TIMEOUT_S
from minitorch.distributed.base import BACKENDS, DistributedError, ProcessGroup
from minitorch.distributed.leaving import LOOK_S

ABORT_GRACE_S = 0.5  # seconds between printing a dying rank's traceback and MPI_Abort
_STATE: dict[str, Any] = {"group": None, "previous_excepthook": None, "atexit": False}
ENDED_HOW = ("its program ended before destroy_process_group(): the end of the script, a return from main, "
             "sys.exit() or a SystemExit")


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

    ``timeout`` (a ``datetime.timedelta`` or seconds; 5 minutes by default, PyTorch's is 30)
    bounds every wait of every collective: a rank that does not arrive in time is named in a
    ``GroupTimeoutError``. With more than one rank, an uncaught exception on any rank prints
    its traceback and ends the whole job (``MPI_Abort``), so no other rank waits for it; a
    rank that leaves otherwise (``sys.exit``, the end of its script, ``destroy_process_group``)
    tells the others, and a rank whose process ended is noticed: the collectives that need it
    raise ``RankLeftError`` at once, naming it (``leaving.py``).

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
        if not _STATE["atexit"]:
            # registered after mpi4py's own exit handler, so it runs before MPI is finalised
            atexit.register(_leave_at_exit)
            _STATE["atexit"] = True


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


def _leave_at_exit() -> None:
    """At exit with the group still initialised: tell the other ranks, and say so when any is still at work.

    A ``SystemExit`` (``sys.exit(1)``, argparse) never reaches ``sys.excepthook``, and neither
    does a ``return`` from main: without this, a rank still calling collectives would wait for
    this one until the timeout. It only prints when another rank is waiting or still running.
    """
    group = _STATE["group"]
    if group is None:
        return
    _STATE["group"] = None
    waiting, running = group.leave(ENDED_HOW, look_s=LOOK_S)
    who = f"minitorch.distributed: rank {group.rank} of {group.size} left the process group ({ENDED_HOW})"
    if waiting:
        where = "; ".join(f"rank {r} waits for it in {op}" for r, op in sorted(waiting.items()))
        sys.stderr.write(f"{who} while {where}: told, they stop with a RankLeftError naming rank {group.rank} "
                         "instead of waiting.\n")
    elif running:
        sys.stderr.write(f"{who} while rank(s) {', '.join(map(str, running))} still run: told, their next "
                         f"collective raises a RankLeftError naming rank {group.rank} instead of waiting. (If they "
                         "are about to end too, end every rank with destroy_process_group().)\n")
    sys.stderr.flush()


def destroy_process_group() -> None:
    """Leave the group (telling the other ranks); ``init_process_group`` may be called again afterwards.

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
    group.leave("destroy_process_group()")
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
