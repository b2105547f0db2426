"""The ``"mpi"`` backend: collectives on NumPy arrays through mpi4py.

mpi4py's upper-case methods (``Iallreduce``, ``Ibcast``...) read and write array memory
directly, without pickling. ``MPI.IN_PLACE`` makes each rank's buffer both the input and
the output, as PyTorch's in-place ``all_reduce``.

Every collective first agrees with the other ranks on what it is about to do, and every
wait is bounded by the group's timeout (``agreement.py``): so each one is started
non-blocking (``I...``) and polled, never a blocking call that could wait forever.
"""

from __future__ import annotations

import pickle
from typing import Any

import numpy as np

from minitorch.distributed.agreement import DEFAULT_TIMEOUT_S, Agreement
from minitorch.distributed.base import ProcessGroup, ReduceOp, Work, import_mpi
from minitorch.distributed.pairwise import Pairwise, Transfer


class MPIGroup(ProcessGroup):
    """MPI's world communicator (or another one given as ``comm``)."""

    backend = "mpi"
    device = "cpu"

    def __init__(self, comm: Any = None, timeout_s: float = DEFAULT_TIMEOUT_S) -> None:
        self.MPI = import_mpi()
        self.comm = comm if comm is not None else self.MPI.COMM_WORLD
        self.rank, self.size = int(self.comm.Get_rank()), int(self.comm.Get_size())
        self.agreement = Agreement(self.comm, timeout_s)
        self.pairs = Pairwise(self.comm, timeout_s)  # sends and receives between two ranks
        self._ops = {ReduceOp.SUM: self.MPI.SUM, ReduceOp.PRODUCT: self.MPI.PROD,
                     ReduceOp.MAX: self.MPI.MAX, ReduceOp.MIN: self.MPI.MIN}

    def allreduce(self, buf: Any, op: ReduceOp) -> None:
        self.iallreduce(buf, op).wait()

    def iallreduce(self, buf: Any, op: ReduceOp) -> Work:
        self.agreement.agree("all_reduce", buf, reduce_op=op.value)
        request = self.comm.Iallreduce(self.MPI.IN_PLACE, buf, op=self._ops[op])
        # Test() also gives MPI a chance to move the data along while Python computes.
        return Work(lambda: self.agreement.wait("all_reduce", request), request.Test)

    def broadcast(self, buf: Any, src: int) -> None:
        self.agreement.agree("broadcast", buf, src=src)
        self.agreement.wait("broadcast", self.comm.Ibcast(buf, root=src))

    def allgather(self, buf: Any, out: Any) -> None:
        self.agreement.agree("all_gather", buf)
        self.agreement.wait("all_gather", self.comm.Iallgather(buf, out))

    def allgather_object(self, obj: Any) -> list[Any]:
        # Pickled, as mpi4py's lower-case allgather does, but in two bounded steps: the sizes,
        # then the bytes. (Only the program's own objects travel here, never a file's.)
        data = np.frombuffer(pickle.dumps(obj), dtype=np.uint8)
        self.agreement.agree("allgather_object")
        sizes = np.zeros(self.size, dtype=np.int64)
        self.agreement.wait("allgather_object", self.comm.Iallgather(np.array([data.size], np.int64), sizes))
        everything = np.empty(int(sizes.sum()), dtype=np.uint8)
        starts = np.concatenate([[0], np.cumsum(sizes)]).tolist()
        request = self.comm.Iallgatherv(data, [everything, (sizes.tolist(), starts[:-1]), self.MPI.BYTE])
        self.agreement.wait("allgather_object", request)
        return [pickle.loads(everything[a:b].tobytes()) for a, b in zip(starts[:-1], starts[1:])]

    def barrier(self) -> None:
        self.agreement.agree("barrier")
        self.agreement.wait("barrier", self.comm.Ibarrier())

    def isend(self, buf: Any, dst: int, what: str) -> Transfer:
        return self.pairs.isend(buf, dst, what)

    def irecv(self, src: int, what: str, shape: Any = None, dtype: Any = None) -> Transfer:
        return self.pairs.irecv(src, what, shape, dtype)

    def abort(self, code: int = 1) -> None:
        """End every rank of the job now (``MPI_Abort``): what an uncaught exception does."""
        self.MPI.COMM_WORLD.Abort(code)

    def close(self) -> None:
        self.agreement.close()
        self.pairs.close()
