"""The process group: which backend, this process's rank, how many ranks there are.

``init_process_group("mpi")`` wraps MPI's world communicator (the processes ``mpiexec -n N``
started); ``init_process_group("nccl")`` adds an NCCL communicator over the GPUs, set up
through MPI. Everything else in ``minitorch.distributed`` asks ``current_group()`` for it,
which says "call init_process_group first" when there is none.

A group works on arrays; ``collectives.py`` puts the Tensor-level API on top.
"""

from __future__ import annotations

import importlib.util
from typing import Any

from minitorch.distributed.base import BACKENDS, DistributedError, ProcessGroup

_STATE: dict[str, ProcessGroup | None] = {"group": None}


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
                       **unused: Any) -> None:
    """Join the ranks that ``mpiexec -n N`` started: ``backend`` is ``"mpi"`` or ``"nccl"``.

    ``rank`` and ``world_size`` are optional checks: MPI already knows both. Other PyTorch
    arguments (``init_method``, ``timeout``) are accepted and ignored: mpiexec did that work.
    """
    if _STATE["group"] is not None:
        raise DistributedError("init_process_group: the process group is already initialized "
                               "(call destroy_process_group() first to start again)")
    name = str(backend).lower()
    if name not in BACKENDS:
        raise DistributedError(f"init_process_group: unknown backend {backend!r}; use 'mpi' (CPU tensors) "
                               "or 'nccl' (GPU tensors, through CuPy)")
    group: ProcessGroup
    if name == "mpi":
        from minitorch.distributed.mpi import MPIGroup

        group = MPIGroup()
    else:
        from minitorch.distributed.nccl import NCCLGroup

        group = NCCLGroup()
    for arg, given, actual in (("rank", rank, group.rank), ("world_size", world_size, group.size)):
        if given is not None and given != actual:
            group.close()
            raise DistributedError(f"init_process_group: {arg}={given}, but MPI says this process has {arg} "
                                   f"{actual}; launch with mpiexec -n N and leave {arg} out")
    _STATE["group"] = group


def destroy_process_group() -> None:
    """Leave the group; ``init_process_group`` may be called again afterwards."""
    group = _STATE["group"]
    _STATE["group"] = None
    if group is not None:
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
