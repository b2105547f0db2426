"""A fake ``cupy.cuda.nccl`` on top of the fake CuPy, for the ``"nccl"`` backend's logic without GPUs.

``install(fake_cupy)`` adds to a ``tests/devices/fake_cupy.FakeCupy``:

- ``cupy.cuda.nccl``: ``get_unique_id``, the ``NCCL_*`` constants and ``NcclCommunicator``,
  whose calls take raw pointers and element counts, as NCCL's do. The fake reads and writes
  the memory behind those pointers (with ctypes) and does the reduction with MPI between
  the ranks, so a wrong pointer, count or dtype gives wrong numbers here too.
- ``__cuda_array_interface__`` on the fake device arrays (their host address), a current
  stream and ``Device(i).use()``.

What it cannot show: real NCCL's behaviour on GPUs (streams, ordering, performance).
"""

import ctypes
import types

import numpy as np
from fake_cupy import FakeDeviceArray

DTYPES = {0: np.int8, 1: np.uint8, 2: np.int32, 4: np.int64, 6: np.float16, 7: np.float32, 8: np.float64}
NAMES = {"NCCL_INT8": 0, "NCCL_UINT8": 1, "NCCL_INT32": 2, "NCCL_INT64": 4, "NCCL_FLOAT16": 6,
         "NCCL_FLOAT32": 7, "NCCL_FLOAT64": 8, "NCCL_SUM": 0, "NCCL_PROD": 1, "NCCL_MAX": 2, "NCCL_MIN": 3}
CALLS = []  # (name, count) of every NCCL call, for the tests


def _memory(ptr, count, datatype):
    """A NumPy view of ``count`` elements of ``datatype`` at address ``ptr``."""
    dtype = np.dtype(DTYPES[datatype])
    raw = (ctypes.c_char * (count * dtype.itemsize)).from_address(ptr)
    return np.frombuffer(raw, dtype=dtype)


class FakeNcclCommunicator:
    """NCCL's communicator: ``(ndev, unique_id, rank)``; collectives done through MPI."""

    def __init__(self, ndev, uid, rank):
        from mpi4py import MPI

        self.MPI, self.comm = MPI, MPI.COMM_WORLD
        assert ndev == self.comm.Get_size() and rank == self.comm.Get_rank(), (ndev, rank)
        assert self.comm.allgather(uid) == [uid] * ndev, "ranks got different unique ids"
        self.ops = {0: MPI.SUM, 1: MPI.PROD, 2: MPI.MAX, 3: MPI.MIN}

    def allReduce(self, sendbuf, recvbuf, count, datatype, op, stream):  # noqa: N802
        CALLS.append(("allReduce", count))
        send = _memory(sendbuf, count, datatype).copy()
        self.comm.Allreduce(send, _memory(recvbuf, count, datatype), op=self.ops[op])

    def bcast(self, buff, count, datatype, root, stream):
        CALLS.append(("bcast", count))
        self.comm.Bcast(_memory(buff, count, datatype), root=root)

    def allGather(self, sendbuf, recvbuf, count, datatype, stream):  # noqa: N802
        CALLS.append(("allGather", count))
        send = _memory(sendbuf, count, datatype).copy()
        self.comm.Allgather(send, _memory(recvbuf, count * self.comm.Get_size(), datatype))

    def destroy(self):
        CALLS.append(("destroy", 0))


class _Stream:
    ptr = 0
    done = True

    def synchronize(self):
        pass


class _Device:
    def __init__(self, index=0):
        self.index = index

    def use(self):
        CALLS.append(("use", self.index))

    def synchronize(self):
        pass


def _interface(array):
    return {"data": (array.__array_interface__["data"][0], False), "shape": array.shape,
            "typestr": array.dtype.str, "version": 3}


def install(fake):
    """Give ``fake`` (a FakeCupy) an NCCL module, streams and device selection; returns it."""
    FakeDeviceArray.__cuda_array_interface__ = property(_interface)
    stream = _Stream()
    fake.cuda.nccl = types.SimpleNamespace(
        get_unique_id=lambda: (b"fake-nccl-id",), NcclCommunicator=FakeNcclCommunicator, **NAMES
    )
    fake.cuda.get_current_stream = lambda: stream
    fake.cuda.Device = _Device
    return fake
