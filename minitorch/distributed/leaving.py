"""A rank that leaves tells the others; a rank that vanished is noticed. Nobody waits for either.

A rank can stop taking part before the others expect it to: ``sys.exit(1)`` or argparse's
error exit (a ``SystemExit``, which never reaches ``sys.excepthook``), an early ``return``
from ``main`` while the other ranks still call collectives, ``destroy_process_group()``, or
``os._exit`` / a signal, which skip Python's exit altogether. MPI itself tells the others
nothing: they would wait in their next collective until the group's timeout.

- **Leaving** (``destroy_process_group``, and at exit while the group is still initialised):
  the rank sends every other rank a *notice* (its rank, why it left, how many collectives it
  ran) on the group's private channel, under a tag of its own (``NOTICE_TAG``), so a notice
  is never read as a collective's header.
- **Waiting**: every bounded wait of a collective (``agreement.py``) looks, between its
  polls, for a notice, and for the processes of the ranks it waits for (their host and pid
  are exchanged when the group is made): a notice, or a process that is gone, raises
  ``RankLeftError`` at once, naming the rank that left and how.

So a collective never waits for a rank that is no longer there; the timeout is left for a
rank that is alive but does not arrive (busy, stuck, or on another host that vanished).
"""

from __future__ import annotations

import json
import os
import socket
import time
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from minitorch.distributed.base import DistributedError, import_mpi

NOTICE_TAG = 7  # headers use tag 0; a notice is told apart without being read
NOTICE_BYTES = 1024
LOOK_S = 1.0  # at exit: how long a leaving rank looks for ranks already waiting for it
CHECK_EVERY_S = 0.25  # how often a wait looks for notices and for vanished processes


class RankLeftError(DistributedError):
    """A rank this collective needs has left the group (or its process has ended)."""


def this_process() -> np.ndarray:
    """(pid, a number for this host): exchanged when the group is made, for ``alive``."""
    host = zlib.crc32(socket.gethostname().encode())
    return np.array([os.getpid(), host], dtype=np.int64)


def alive(pid: int) -> bool:
    """False once process ``pid`` (on this host) has ended, a zombie waiting to be reaped included."""
    stat = Path(f"/proc/{pid}/stat")
    if Path("/proc/self/stat").exists():
        try:
            # "pid (name) S ...": the state follows the closing parenthesis of the name
            return stat.read_text().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
        except (OSError, IndexError):
            return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def encode(facts: dict[str, Any]) -> np.ndarray:
    """A notice as a fixed-size byte buffer (JSON, padded with zeros)."""
    data = json.dumps(facts).encode()[:NOTICE_BYTES]
    out = np.zeros(NOTICE_BYTES, dtype=np.uint8)
    out[: len(data)] = np.frombuffer(data, dtype=np.uint8)
    return out


def decode(buffer: np.ndarray) -> dict[str, Any]:
    """The facts of a received notice."""
    result: dict[str, Any] = json.loads(bytes(buffer).rstrip(b"\0").decode())
    return result


def describe(rank: int, facts: dict[str, Any]) -> str:
    """'rank 1 left the group (destroy_process_group()) after 3 collective(s)', for error messages."""
    after = f" after {facts['seq']} collective(s)" if facts.get("seq") is not None else ""
    return f"rank {rank} left the group ({facts['how']}){after}"


class Departures:
    """What one rank knows about the others leaving: notices received, processes gone."""

    def __init__(self, comm: Any, rank: int, size: int, processes: np.ndarray) -> None:
        self.comm, self.rank, self.size = comm, rank, size
        self.MPI = import_mpi()
        host = int(processes[rank][1])
        # only processes on this host can be looked at; the others are left to the timeout
        self.pids = {r: int(p[0]) for r, p in enumerate(processes) if r != rank and int(p[1]) == host}
        self.left: dict[int, dict[str, Any]] = {}
        self.next_check = 0.0

    def receive_notices(self) -> None:
        """Read every notice that has arrived (never blocks)."""
        status = self.MPI.Status()
        while self.comm.Iprobe(source=self.MPI.ANY_SOURCE, tag=NOTICE_TAG, status=status):
            buffer = np.zeros(NOTICE_BYTES, dtype=np.uint8)
            self.comm.Recv(buffer, source=status.Get_source(), tag=NOTICE_TAG)
            self.left[status.Get_source()] = decode(buffer)

    def check(self, op: str, waiting_for: list[int], force: bool = False, ran: int | None = None) -> None:
        """Raise ``RankLeftError`` when a rank in ``waiting_for`` has left or its process ended.

        Looks at most every ``CHECK_EVERY_S`` (unless ``force``): it runs between the polls of a wait.
        ``ran``: how many collectives a rank has run once it has joined the one waited for; a rank
        that left after that many took part (its data is on its way) and is not waited for in vain.
        """
        now = time.monotonic()
        if not force and now < self.next_check:
            return
        self.next_check = now + CHECK_EVERY_S
        self.receive_notices()
        for r in waiting_for:
            if r not in self.left and r in self.pids and not alive(self.pids[r]):
                self.left[r] = {"how": f"its process (pid {self.pids[r]}) ended without leaving: os._exit, a "
                                       "signal or a crash"}
        gone = [r for r in waiting_for if r in self.left
                and (ran is None or self.left[r].get("seq") is None or self.left[r]["seq"] < ran)]
        if gone:
            raise RankLeftError(
                f"{op}: {'; '.join(describe(r, self.left[r]) for r in gone)}. It will never join this collective, "
                "so this rank stops here instead of waiting. Every rank must run the same collectives; a rank "
                "that is done should leave only after the others are done too (destroy_process_group() at the "
                "end of every rank)"
            )

    def tell_the_others(self, how: str, seq: int) -> tuple[list[int], list[Any]]:
        """Start sending a notice to every rank not known to have left: (the ranks told, the send requests)."""
        self.receive_notices()
        others = [r for r in range(self.size) if r != self.rank and r not in self.left]
        message = encode({"how": how, "seq": seq})
        return others, [self.comm.Isend(message, dest=r, tag=NOTICE_TAG) for r in others]

    def who_waits(self, told: list[int], header_bytes: int, deadline: float) -> tuple[dict[int, str], list[int]]:
        """After leaving: ({rank: the collective it waits in}, ranks still running), looked at until ``deadline``.

        A rank that waits for us has sent us its header (tag 0); a rank that left too has
        sent a notice. The others are still running: their next collective will read our notice.
        """
        waiting: dict[int, str] = {}
        while True:
            self.receive_notices()
            for r in told:
                if r not in waiting and r not in self.left and self.comm.Iprobe(source=r, tag=0):
                    header = np.zeros(header_bytes, dtype=np.uint8)
                    self.comm.Recv(header, source=r, tag=0)
                    facts = json.loads(bytes(header).rstrip(b"\0").decode())
                    waiting[r] = f"{facts.get('op')} (collective #{facts.get('seq')})"
            running = [r for r in told if r not in waiting and r not in self.left]
            if not running or time.monotonic() >= deadline:
                return waiting, running
            time.sleep(0.01)
