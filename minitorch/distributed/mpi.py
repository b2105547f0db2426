"""The ``"mpi"`` backend: collectives on NumPy arrays through mpi4py.

mpi4py's upper-case methods (``Allreduce``, ``Iallreduce``, ``Bcast``...) read and write
array memory directly, without pickling. ``MPI.IN_PLACE`` makes each rank's buffer both
the input and the output, as PyTorch's in-place ``all_reduce``.
"""

from __future__ import annotations

from typing import Any

from minitorch.distributed.base import ProcessGroup, ReduceOp, Work, import_mpi


class MPIGroup(ProcessGroup):
    """MPI's world communicator (or another one given as ``comm``)."""

    backend = "mpi"
    device = "cpu"

    def __init__(self, comm: Any = None) -> None:
        self.MPI = import_mpi()
        self.comm = comm if comm is not None else self.MPI.COMM_WORLD
        self.rank, self.size = int(self.comm.Get_rank()), int(self.comm.Get_size())
        self._ops = {ReduceOp.SUM: self.MPI.SUM, ReduceOp.PRODUCT: self.MPI.PROD,
                     ReduceOp.MAX: self.MPI.MAX, ReduceOp.MIN: self.MPI.MIN}

    def allreduce(self, buf: Any, op: ReduceOp) -> None:
        self.comm.Allreduce(self.MPI.IN_PLACE, buf, op=self._ops[op])

    def iallreduce(self, buf: Any, op: ReduceOp) -> Work:
        request = self.comm.Iallreduce(self.MPI.IN_PLACE, buf, op=self._ops[op])
        # Test() also gives MPI a chance to move the data along while Python computes.
        return Work(request.Wait, request.Test)

    def broadcast(self, buf: Any, src: int) -> None:
        self.comm.Bcast(buf, root=src)

    def allgather(self, buf: Any, out: Any) -> None:
        self.comm.Allgather(buf, out)

    def allgather_object(self, obj: Any) -> list[Any]:
        return list(self.comm.allgather(obj))

    def barrier(self) -> None:
        self.comm.Barrier()
