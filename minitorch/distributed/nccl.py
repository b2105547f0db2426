"""The ``"nccl"`` backend: collectives on CuPy arrays through NCCL (``cupy.cuda.nccl``).

Each rank uses GPU ``rank % device_count``. NCCL needs every rank to share one unique id
before it can build its communicator; MPI (which started the ranks) carries it, so this
backend still runs under ``mpiexec -n N`` and uses MPI for barriers and small checks.

NCCL calls take raw device pointers and element counts and are queued on a CUDA stream:
this backend uses the current stream, so a collective runs after the kernels that produced
its buffer, and ``Work.wait()`` synchronises that stream.

Tested only against the fake CuPy of the test suite: unverified on real GPUs.
"""

from __future__ import annotations

import time
from typing import Any

from minitorch import cuda
from minitorch.distributed.agreement import DEFAULT_TIMEOUT_S, GroupTimeoutError
from minitorch.distributed.base import DistributedError, ProcessGroup, ReduceOp, Work, import_mpi
from minitorch.distributed.mpi import MPIGroup

_DTYPES = {"float16": "NCCL_FLOAT16", "float32": "NCCL_FLOAT32", "float64": "NCCL_FLOAT64",
           "int8": "NCCL_INT8", "uint8": "NCCL_UINT8", "int32": "NCCL_INT32", "int64": "NCCL_INT64"}
_OPS = {ReduceOp.SUM: "NCCL_SUM", ReduceOp.PRODUCT: "NCCL_PROD", ReduceOp.MAX: "NCCL_MAX",
        ReduceOp.MIN: "NCCL_MIN"}


def _cupy() -> Any:
    """CuPy with a usable GPU, or an error saying why not."""
    cupy = cuda.cupy_module()
    if cupy is None:
        raise DistributedError(f"init_process_group('nccl') needs a GPU: {cuda.unavailable_reason()}")
    return cupy


def pointer(array: Any) -> int:
    """The device address of a CuPy array's first element (what NCCL calls take)."""
    return int(array.__cuda_array_interface__["data"][0])


class NCCLGroup(ProcessGroup):
    """An NCCL communicator over one GPU per rank, bootstrapped through MPI."""

    backend = "nccl"
    device = "cuda"

    def __init__(self, timeout_s: float = DEFAULT_TIMEOUT_S) -> None:
        import_mpi()  # a clear message when mpi4py is missing
        self.mpi = MPIGroup(timeout_s=timeout_s)  # also agrees on each collective before NCCL runs it
        self.agreement = self.mpi.agreement
        self.rank, self.size = self.mpi.rank, self.mpi.size
        self.cupy = _cupy()
        try:
            self.nccl = self.cupy.cuda.nccl
        except AttributeError as exc:
            raise DistributedError("this CuPy build has no NCCL (cupy.cuda.nccl); install a CuPy wheel "
                                   "for your CUDA version, which bundles it") from exc
        count = int(self.cupy.cuda.runtime.getDeviceCount())
        self.cupy.cuda.Device(self.rank % count).use()
        uid = self.nccl.get_unique_id() if self.rank == 0 else None
        uid = self.mpi.allgather_object(uid)[0]  # every rank needs rank 0's id (a bounded exchange)
        self.comm = self.nccl.NcclCommunicator(self.size, uid, self.rank)

    def _dtype(self, buf: Any) -> Any:
        name = _DTYPES.get(str(buf.dtype))
        if name is None:
            raise DistributedError(f"the nccl backend cannot reduce {buf.dtype} tensors "
                                   f"(it supports {', '.join(_DTYPES)})")
        return getattr(self.nccl, name)

    def _stream(self) -> Any:
        return self.cupy.cuda.get_current_stream()

    def _wait_stream(self, op: str, stream: Any) -> None:
        """Wait for the stream, at most the group's timeout (a stuck NCCL kernel would block forever)."""
        deadline = time.monotonic() + self.agreement.timeout_s
        check_departures = self.agreement._check_departures(op)  # a rank that left never launches its part
        while not getattr(stream, "done", True):
            check_departures()
            if time.monotonic() >= deadline:
                self.agreement.broken = f"an earlier {op} timed out on the GPU"
                raise GroupTimeoutError(f"{op}: every rank agreed to it, but NCCL did not finish within "
                                        f"{self.agreement.timeout_s:g} s")
            time.sleep(1e-4)
        stream.synchronize()

    def allreduce(self, buf: Any, op: ReduceOp) -> None:
        self.iallreduce(buf, op).wait()

    def iallreduce(self, buf: Any, op: ReduceOp) -> Work:
        self.agreement.agree("all_reduce", buf, reduce_op=op.value)
        stream = self._stream()
        ptr = pointer(buf)
        self.comm.allReduce(ptr, ptr, buf.size, self._dtype(buf), getattr(self.nccl, _OPS[op]), stream.ptr)
        return Work(lambda: self._wait_stream("all_reduce", stream), lambda: bool(getattr(stream, "done", False)))

    def broadcast(self, buf: Any, src: int) -> None:
        self.agreement.agree("broadcast", buf, src=src)
        stream = self._stream()
        self.comm.bcast(pointer(buf), buf.size, self._dtype(buf), src, stream.ptr)
        self._wait_stream("broadcast", stream)

    def allgather(self, buf: Any, out: Any) -> None:
        self.agreement.agree("all_gather", buf)
        stream = self._stream()
        self.comm.allGather(pointer(buf), pointer(out), buf.size, self._dtype(buf), stream.ptr)
        self._wait_stream("all_gather", stream)

    def allgather_object(self, obj: Any) -> list[Any]:
        return self.mpi.allgather_object(obj)

    def barrier(self) -> None:
        self._stream().synchronize()
        self.mpi.barrier()

    def abort(self, code: int = 1) -> None:
        self.mpi.abort(code)

    def leave(self, how: str, look_s: float = 0.0) -> tuple[dict[int, str], list[int]]:
        return self.mpi.leave(how, look_s)

    def close(self) -> None:
        self.mpi.close()
        comm, self.comm = getattr(self, "comm", None), None
        if comm is not None and hasattr(comm, "destroy"):
            comm.destroy()
