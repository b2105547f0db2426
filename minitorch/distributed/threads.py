"""Ranks as threads in one process, for the lesson's exercises: ``run_ranks(fn, per_rank_args)``.

``fn(comm, *args)`` runs once per rank, each in its own thread, with a ``comm`` that speaks
the small part of mpi4py's lower-case API the lessons use: ``comm.rank``, ``comm.size``,
``send``, ``recv``, ``sendrecv``, ``allreduce`` (a sum), ``bcast`` and ``barrier``. So a function
checked here runs unchanged under ``mpiexec`` with ``MPI.COMM_WORLD``.

Messages are copied (as MPI copies them between processes), and a rank waiting for a
message that never comes fails after ``timeout`` seconds instead of hanging the notebook.
"""

from __future__ import annotations

import copy
import queue
import threading
from collections.abc import Callable, Sequence
from typing import Any

from minitorch.errors import MiniTorchError


class ThreadComm:
    """One rank's view of the threads' world (mpi4py's ``Comm`` methods the lesson needs)."""

    def __init__(self, rank: int, world: _World) -> None:
        self.rank, self.size, self._world = rank, world.size, world

    def Get_rank(self) -> int:  # noqa: N802 (mpi4py's spelling)
        """This rank's number."""
        return self.rank

    def Get_size(self) -> int:  # noqa: N802
        """How many ranks."""
        return self.size

    def send(self, obj: Any, dest: int) -> None:
        """Send a copy of ``obj`` to rank ``dest`` (never blocks here; MPI's may)."""
        self._world.log.append(("send", self.rank, dest))
        self._world.boxes[(self.rank, dest)].put(copy.deepcopy(obj))

    def recv(self, source: int) -> Any:
        """Wait for the next object rank ``source`` sent to this rank."""
        box, waited = self._world.boxes[(source, self.rank)], 0.0
        while waited < self._world.timeout and not self._world.failed:  # stop early if a rank failed
            try:
                return box.get(timeout=0.05)
            except queue.Empty:
                waited += 0.05
        raise MiniTorchError(f"rank {self.rank} waited for a message from rank {source} that never came "
                             "(does every send have a matching recv?)")

    def sendrecv(self, sendobj: Any, dest: int, source: int) -> Any:
        """Send to ``dest`` and receive from ``source`` at once (no deadlock in a ring)."""
        self.send(sendobj, dest)
        return self.recv(source)

    def allreduce(self, obj: Any) -> Any:
        """The sum of every rank's ``obj`` (NumPy arrays or numbers), on every rank."""
        others = [self.sendrecv(obj, (self.rank + k) % self.size, (self.rank - k) % self.size)
                  for k in range(1, self.size)]
        total = copy.deepcopy(obj)
        for other in others:
            total = total + other
        return total

    def bcast(self, obj: Any, root: int = 0) -> Any:
        """Rank ``root``'s ``obj``, on every rank (a copy on the others)."""
        if self.rank == root:
            for other in range(self.size):
                if other != root:
                    self.send(obj, other)
            return obj
        return self.recv(root)

    def barrier(self) -> None:
        """Wait until every rank got here."""
        self._world.barrier.wait(timeout=self._world.timeout)


class _World:
    def __init__(self, size: int, timeout: float) -> None:
        self.size, self.timeout = size, timeout
        self.boxes: dict[tuple[int, int], queue.Queue[Any]] = {
            (a, b): queue.Queue() for a in range(size) for b in range(size)
        }
        self.failed = False
        self.barrier = threading.Barrier(size)
        self.log: list[tuple[str, int, int]] = []


def run_ranks(fn: Callable[..., Any], per_rank_args: Sequence[Any], timeout: float = 10.0) -> list[Any]:
    """``[fn(comm_r, per_rank_args[r]) for each rank r]``, the ranks running at once as threads.

    The world size is ``len(per_rank_args)``. An exception on any rank is raised here, so
    ``NotImplementedError`` from an unfinished exercise comes through.
    """
    world = _World(len(per_rank_args), timeout)
    results: list[Any] = [None] * world.size
    errors: list[BaseException] = []  # in the order they happened
    lock = threading.Lock()

    def work(rank: int) -> None:
        try:
            results[rank] = fn(ThreadComm(rank, world), per_rank_args[rank])
        except BaseException as exc:  # handed to the caller below
            with lock:
                errors.append(exc)
                world.failed = True

    threads = [threading.Thread(target=work, args=(r,), daemon=True) for r in range(world.size)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout * 3)
    # The root cause first: an unfinished exercise, then the error that happened first (the
    # ranks waiting on a failed rank stop after it, with a "never came" error of their own).
    failed = [e for e in errors if isinstance(e, NotImplementedError)] + errors
    if failed:
        raise failed[0]
    return results
