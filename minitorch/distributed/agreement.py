"""Before every collective the ranks agree on what they are about to do; no wait is unbounded.

MPI trusts its callers: if rank 0 all-reduces four float32 numbers while rank 1 all-reduces
two float64 numbers (16 bytes each), MPI adds the bytes and returns garbage; other
mismatches abort with "Message truncated", and a rank that never arrives (it raised, or
called ``broadcast`` instead) leaves the others waiting forever. So, as PyTorch's detailed
debug mode does, each collective starts with a tiny exchange of headers:

1. every rank sends every other rank a short description of its call, the *header*:
   the collective's name, the tensor's shape and dtype, details such as ``src``, and its
   sequence number (how many collectives this group has run before);
2. every rank compares the headers it received with its own: any difference raises the
   same ``DistributedError`` on every rank, naming the ranks and what differs;
3. each wait (for the headers, then for the collective itself) is bounded by the group's
   ``timeout``: a rank that does not arrive in time is named in the error.

The headers travel point to point on a private copy of the communicator (so they never
mix with the program's own messages), and every wait polls non-blocking requests with
``Test()`` against a deadline: MPI's blocking calls cannot be interrupted.
"""

from __future__ import annotations

import json
import time
from typing import Any

import numpy as np

from minitorch.distributed.base import DistributedError

HEADER_BYTES = 2048  # a header is padded to this size: 64 dims of any size fit
DEFAULT_TIMEOUT_S = 30 * 60.0  # PyTorch's default: 30 minutes


class GroupTimeoutError(DistributedError, TimeoutError):
    """A collective did not complete within the group's timeout (also a ``TimeoutError``)."""


def wait_until(requests: list[Any], deadline: float, max_pause: float = 5e-3) -> list[bool]:
    """Poll MPI requests with ``Test()`` until all are done or ``deadline`` (``time.monotonic``) passes.

    Returns which requests completed. For the first millisecond it polls without pausing (as
    MPI's own blocking wait does), so a fast collective returns at once; after that the pause
    between polls grows to ``max_pause`` (5 ms), so a long wait does not keep a core busy.
    """
    done = [False] * len(requests)
    spin_until, pause = time.monotonic() + 1e-3, 5e-5
    while True:
        for i, request in enumerate(requests):
            if not done[i] and request.Test():
                done[i] = True
        if all(done):
            return done
        now = time.monotonic()
        if now >= deadline:
            return done
        if now >= spin_until:
            time.sleep(pause)
            pause = min(pause * 2, max_pause)


class Agreement:
    """The header exchange and the bounded waits of one process group."""

    def __init__(self, comm: Any, timeout_s: float) -> None:
        self.comm = comm.Dup()  # a private channel: the program's own messages never match ours
        self.rank, self.size = int(comm.Get_rank()), int(comm.Get_size())
        self.timeout_s = float(timeout_s)
        self.sequence = 0  # collectives agreed so far, the same on every rank while they agree
        self.broken: str | None = None  # why the group can no longer be used (after a timeout)

    def agree(self, op: str, array: Any = None, **details: Any) -> None:
        """Exchange headers for collective ``op`` on ``array``; raise on every rank if they differ."""
        if self.broken is not None:
            raise DistributedError(f"{op}: the process group is unusable: {self.broken}")
        mine = {"op": op, "seq": self.sequence, **details}
        if array is not None:
            mine["shape"], mine["dtype"] = list(array.shape), str(array.dtype)
        self.sequence += 1
        if self.size == 1:
            return
        headers = self._exchange(mine)
        _raise_if_they_differ(op, mine["seq"], headers)

    def wait(self, op: str, request: Any) -> None:
        """Wait for the collective's own request, at most the group's timeout."""
        if not wait_until([request], time.monotonic() + self.timeout_s)[0]:
            self._fail(
                f"{op} (collective #{self.sequence - 1}): every rank agreed to it, but it did not finish within "
                f"{self.timeout_s:g} s"
            )

    def _exchange(self, mine: dict[str, Any]) -> dict[int, dict[str, Any]]:
        """Send ``mine`` to every other rank and receive theirs: ``{rank: header}``, all ranks."""
        out = np.zeros(HEADER_BYTES, dtype=np.uint8)
        encoded = json.dumps(mine).encode()
        out[: len(encoded)] = np.frombuffer(encoded, dtype=np.uint8)
        others = [r for r in range(self.size) if r != self.rank]
        inboxes = {r: np.zeros(HEADER_BYTES, dtype=np.uint8) for r in others}
        receives = [self.comm.Irecv(inboxes[r], source=r) for r in others]
        sends = [self.comm.Isend(out, dest=r) for r in others]
        done = wait_until(receives + sends, time.monotonic() + self.timeout_s)
        missing = [r for r, arrived in zip(others, done) if not arrived]
        if missing:
            for request, completed in zip(receives, done):
                if not completed:
                    request.Cancel()
            present = sorted(set(range(self.size)) - set(missing))
            self._fail(
                f"{mine['op']} (collective #{mine['seq']}): timed out after {self.timeout_s:g} s waiting for "
                f"rank(s) {_ranks(missing)} (rank(s) {_ranks(present)} arrived). A rank that raised, exited, or "
                "is waiting in another collective never joins this one"
            )
        headers = {self.rank: mine}
        for r in others:
            headers[r] = json.loads(bytes(inboxes[r]).rstrip(b"\0").decode())
        return headers

    def _fail(self, message: str) -> None:
        # Requests may still be pending: a message arriving later would be read as the next
        # header. So the group stays unusable, as PyTorch tears its group down on a timeout.
        self.broken = f"an earlier collective timed out ({message})"
        raise GroupTimeoutError(message)

    def close(self) -> None:
        """Free the private communicator (skipped after a timeout: requests may be pending)."""
        if self.broken is None:
            self.comm.Free()


def _ranks(ranks: list[int]) -> str:
    return ", ".join(str(r) for r in ranks)


def _raise_if_they_differ(op: str, seq: int, headers: dict[int, dict[str, Any]]) -> None:
    """The same error on every rank (each one holds all the headers) when any field differs."""
    reference = headers[0]
    if all(h == reference for h in headers.values()):
        return
    problems = []
    for field in ("seq", "op", "shape", "dtype", *sorted({k for h in headers.values() for k in h} - {
            "seq", "op", "shape", "dtype"})):  # fmt: skip
        values = {r: h.get(field) for r, h in sorted(headers.items())}
        if len({json.dumps(v) for v in values.values()}) > 1:
            problems.append(f"{_FIELD_NAMES.get(field, field)} ({_describe(field, values)})")
    everyone = ", ".join(f"rank {r} has {_summary(h)}" for r, h in sorted(headers.items()))
    raise DistributedError(
        f"{op} (collective #{seq} on this rank): the ranks disagree on {'; '.join(problems)}. In full: {everyone}. "
        "Every rank must call the same collectives in the same order, with tensors of one shape and dtype"
    )


_FIELD_NAMES = {"seq": "how many collectives came before", "op": "the collective", "src": "the source rank"}


def _describe(field: str, values: dict[int, Any]) -> str:
    def show(v: Any) -> str:
        return str(tuple(v)) if field == "shape" and v is not None else str(v)

    return ", ".join(f"rank {r}: {show(v)}" for r, v in values.items())


def _summary(header: dict[str, Any]) -> str:
    """``(3,) float32`` (with the collective and extras when they matter), for the message."""
    parts = []
    if "shape" in header:
        parts.append(f"{tuple(header['shape'])} {header['dtype']}")
    parts.append(f"in {header['op']} #{header['seq']}")
    parts += [f"{k}={v}" for k, v in header.items() if k not in ("op", "seq", "shape", "dtype")]
    return " ".join(parts)
