"""Ranks as threads in one process, for the lesson's exercises: ``run_ranks(fn, per_rank_args)``.

``fn(comm, *args)`` runs once per rank, each in its own thread, with a ``comm`` that speaks
the small part of mpi4py's lower-case API the lessons use: ``comm.rank``, ``comm.size``,
``send``, ``recv``, ``sendrecv``, ``allreduce`` (a sum), ``bcast`` and ``barrier``. So a function
checked here runs unchanged under ``mpiexec`` with ``MPI.COMM_WORLD``.

Messages are copied (as MPI copies them between processes), and a rank waiting for a
message that never comes fails instead of hanging the notebook: at once when the rank it
waits for has returned, or when every rank still running waits for another (a deadlock,
such as a collective that some ranks skip or call with another root), else after
``timeout`` seconds.
"""

from __future__ import annotations

import copy
import queue
import threading
import time
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
        message = copy.deepcopy(obj)
        with self._world.changed:
            self._world.log.append(("send", self.rank, dest))
            self._world.boxes[(self.rank, dest)].put(message)
            self._world.changed.notify_all()

    def recv(self, source: int) -> Any:
        """Wait for the next object rank ``source`` sent to this rank."""
        world = self._world
        box, deadline = world.boxes[(source, self.rank)], time.monotonic() + world.timeout
        with world.changed:  # taking a message and no longer waiting are one step for the deadlock test
            while not world.failed and time.monotonic() < deadline:  # stop early if a rank failed
                try:
                    message = box.get_nowait()
                except queue.Empty:
                    world.waiting[self.rank] = source
                    stuck = world.stuck(self.rank, source)
                    if stuck:
                        del world.waiting[self.rank]
                        raise MiniTorchError(stuck) from None
                    world.changed.wait(timeout=0.05)
                else:
                    world.waiting.pop(self.rank, None)
                    return message
            world.waiting.pop(self.rank, None)
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
        self.changed = threading.Condition()  # notified on every send and every rank's return
        self.waiting: dict[int, int] = {}  # rank -> the rank whose message it waits for (in recv)
        self.finished: set[int] = set()  # ranks whose function returned

    def stuck(self, rank: int, source: int) -> str:
        """'' or why ``rank``'s wait for ``source`` can never end (called holding ``changed``, its box empty).

        A message is put in its box before its sender can wait or return, so a finished
        sender, or every unfinished rank waiting on an empty box, means no message comes.
        """
        if source in self.finished:
            return (f"rank {rank} waits for a message from rank {source}, which already returned without sending "
                    "it: every rank must make the same calls (a collective such as allreduce or bcast on every "
                    "rank, in the same order)")
        running = [r for r in range(self.size) if r not in self.finished]
        if all(r in self.waiting and self.boxes[(self.waiting[r], r)].empty() for r in running):
            waits = ", ".join(f"rank {r} for rank {self.waiting[r]}" for r in running)
            return (f"deadlock: every rank waits for a message that no rank is sending ({waits}): every rank must "
                    "make the same calls in the same order (a collective such as allreduce or bcast on every rank, "
                    "with the same root)")
        return ""


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
            with world.changed:
                world.failed = True
                world.changed.notify_all()
        finally:
            with world.changed:
                world.finished.add(rank)
                world.changed.notify_all()

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
