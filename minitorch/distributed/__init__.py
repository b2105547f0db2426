"""``minitorch.distributed``: several processes train one model together (data parallelism).

Launch N copies of a script with MPI, ``mpiexec -n 4 python train.py``; in the script::

    import minitorch.distributed as dist
    dist.init_process_group("mpi")            # or "nccl" for GPU tensors, through CuPy
    rank, world = dist.get_rank(), dist.get_world_size()
    dist.all_reduce(t, op=dist.ReduceOp.SUM)  # every rank now holds the sum, in place

The collectives (``all_reduce``, ``broadcast``, ``all_gather``, ``barrier``) must be called
by every rank, in the same order (``send``/``recv``: by the two ranks of the transfer). Each
one checks that: the ranks first agree on the collective (or transfer), the shape, the dtype
and the sequence number, and any difference raises the same ``DistributedError`` on every
rank (on both ranks of a transfer). ``init_process_group(timeout=...)`` (30 minutes by
default, as PyTorch) bounds every wait (``GroupTimeoutError`` names the ranks that did not
arrive), and an uncaught exception on one rank ends the whole job with its traceback.
``nn.parallel.DistributedDataParallel`` uses them to average gradients;
``data.DistributedSampler`` gives each rank its share of the data.

MPI comes from PyPI (``pip install "mpi4py>=4" "mpich>=4"``), so no system MPI is needed;
``import minitorch`` works without it, and ``init_process_group`` says how to install it.
The ``"nccl"`` backend has been tested only with a fake CuPy, never on real GPUs.
"""

from minitorch import cuda
from minitorch.distributed import differentiable  # noqa: F401  (its ops register when minitorch loads)
from minitorch.distributed.agreement import GroupTimeoutError
from minitorch.distributed.base import PIP_COMMAND, DistributedError, ProcessGroup, ReduceOp, Work
from minitorch.distributed.collectives import all_gather, all_reduce, barrier, broadcast, check_same_on_all_ranks
from minitorch.distributed.group import (
    current_group,
    destroy_process_group,
    get_backend,
    get_rank,
    get_world_size,
    init_process_group,
    is_available,
    is_initialized,
)
from minitorch.distributed.point_to_point import irecv, isend, recv, send


def is_mpi_available() -> bool:
    """True when mpi4py can be imported."""
    return is_available()


def is_nccl_available() -> bool:
    """True when CuPy with NCCL and a GPU are usable (and mpi4py, which sets NCCL up)."""
    cupy = cuda.cupy_module()
    return is_available() and cupy is not None and hasattr(cupy.cuda, "nccl")


__all__ = [
    "PIP_COMMAND",
    "DistributedError",
    "GroupTimeoutError",
    "ProcessGroup",
    "ReduceOp",
    "Work",
    "all_gather",
    "all_reduce",
    "barrier",
    "broadcast",
    "check_same_on_all_ranks",
    "current_group",
    "destroy_process_group",
    "get_backend",
    "get_rank",
    "get_world_size",
    "init_process_group",
    "irecv",
    "is_available",
    "is_initialized",
    "is_mpi_available",
    "is_nccl_available",
    "isend",
    "recv",
    "send",
]
