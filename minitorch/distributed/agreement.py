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
   ``timeout``: a rank that does not arrive in time is named in the error; a rank that has
   left the group, or whose process has ended, is named at once (``leaving.py``).

The headers travel point to point on a private copy of the communicator (so they never
mix with the program's own messages), and every wait polls non-blocking requests with
``Test()`` against a deadline: MPI's blocking calls cannot be interrupted.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from minitorch.distributed.base import DistributedError
from minitorch.distributed.leaving import Departures, RankLeftError, this_process

HEADER_BYTES = 2048  # a header is padded to this size: 64 dims of any size fit
HEADER_TAG = 0  # leaving.NOTICE_TAG marks the other kind of message on the private channel
# Five minutes, not PyTorch's thirty: a rank that left or ended is named at once anyway
# (leaving.py), so the timeout only catches a rank that is alive but does not come (stuck,
# or far slower than the others); five minutes is over a hundred times the longest wait
# between two ranks measured in the course's programs, and a learner still sees the error
# within the lesson (docs/ERRORS-AND-SAFETY.md). Pass timeout= for longer one-rank work.
DEFAULT_TIMEOUT_S = 5 * 60.0
LAST_MESSAGE_S = 0.5  # how long a wait still polls once the rank it waits for has left
SEND_BOUND_S = 5.0  # a notice is a small message: MPI sends it at once, without the receiver


class GroupTimeoutError(DistributedError, TimeoutError):
    """A collective did not complete within the group's timeout (also a ``TimeoutError``)."""


def wait_until(requests: list[Any], deadline: float, between: Callable[[], None] | None = None,
               max_pause: float = 5e-3) -> list[bool]:
    """Poll MPI requests with ``Test()`` until all are done or ``deadline`` (``time.monotonic``) passes.

    Returns which requests completed. For the first millisecond it polls without pausing (as
    MPI's own blocking wait does), so a fast collective returns at once; after that the pause
    between polls grows to ``max_pause`` (5 ms), so a long wait does not keep a core busy, and
    ``between()`` runs before each pause (it raises to stop the wait: a rank that left).
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
            if between is not None:
                try:
                    between()
                except DistributedError:
                    # The rank may have left right after its last message to us: if every
                    # request completes within a moment, that message was all we needed.
                    if _completes_within(requests, done, LAST_MESSAGE_S):
                        return done
                    raise
            time.sleep(pause)
            pause = min(pause * 2, max_pause)


def _completes_within(requests: list[Any], done: list[bool], seconds: float) -> bool:
    """Poll the requests not yet ``done`` (updated in place) for ``seconds``: True once all are."""
    deadline = time.monotonic() + seconds
    while not all(done):
        for i, request in enumerate(requests):
            if not done[i] and request.Test():
                done[i] = True
        if time.monotonic() >= deadline:
            return all(done)
        time.sleep(1e-3)
    return True


class Agreement:
    """The header exchange and the bounded waits of one process group."""

    def __init__(self, comm: Any, timeout_s: float) -> None:
        self.comm = comm.Dup()  # a private channel: the program's own messages never match ours
        self.rank, self.size = int(comm.Get_rank()), int(comm.Get_size())
        self.timeout_s = float(timeout_s)
        self.sequence = 0  # collectives agreed so far, the same on every rank while they agree
        self.broken: str | None = None  # why the group can no longer be used (after a timeout)
        self.has_left = False
        self.others = [r for r in range(self.size) if r != self.rank]
        self.departures = Departures(self.comm, self.rank, self.size, self._processes())

    def _processes(self) -> np.ndarray:
        """Every rank's (pid, host), so that a wait can tell when a rank's process has ended."""
        mine = this_process()
        everyone = np.zeros((self.size, mine.size), dtype=mine.dtype)
        if self.size == 1:
            everyone[0] = mine
            return everyone
        if not wait_until([self.comm.Iallgather(mine, everyone)], time.monotonic() + self.timeout_s)[0]:
            self._fail(f"init_process_group: not every rank joined within {self.timeout_s:g} s")
        return everyone

    def _check_departures(self, op: str) -> Callable[[], None]:
        """What a wait runs between polls: raise if a rank has left the group or its process ended."""

        def check() -> None:
            # A rank that left after joining this collective (its count includes it) took part.
            self.departures.check(op, self.others, ran=self.sequence)

        return check

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
        """Wait for the collective's own request, at most the group's timeout (or until a rank leaves)."""
        try:
            finished = wait_until([request], time.monotonic() + self.timeout_s, self._check_departures(op))[0]
        except RankLeftError as exc:
            self.broken = str(exc)
            raise
        if not finished:
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
        receives = [self.comm.Irecv(inboxes[r], source=r, tag=HEADER_TAG) for r in others]
        sends = [self.comm.Isend(out, dest=r, tag=HEADER_TAG) for r in others]
        try:
            done = wait_until(receives + sends, time.monotonic() + self.timeout_s, self._check_departures(mine["op"]))
        except RankLeftError as exc:
            self.broken = str(exc)
            _cancel([request for request in receives if not request.Test()])
            raise
        missing = [r for r, arrived in zip(others, done) if not arrived]
        if missing:
            _cancel([request for request, completed in zip(receives, done) if not completed])
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

    def leave(self, how: str, look_s: float = 0.0) -> tuple[dict[int, str], list[int]]:
        """Tell every other rank that this one leaves the group (``how``: why, for their error).

        With ``look_s``, then look that long for ranks already waiting in a collective for this
        one: returns ({rank: the collective it waits in}, the ranks still running).
        """
        if self.size == 1 or self.has_left:
            return {}, []
        self.has_left = True
        told, sends = self.departures.tell_the_others(how, self.sequence)
        wait_until(sends, time.monotonic() + SEND_BOUND_S)
        if not look_s:
            return {}, told
        return self.departures.who_waits(told, HEADER_BYTES, time.monotonic() + look_s)

    def close(self) -> None:
        """Free the private communicator, unless a message may still arrive on it.

        After a timeout requests may be pending; after leaving, another rank's notice may
        still be on its way. Freeing would let MPI give the channel's context to the next
        group's channel (``init_process_group`` again), which would then read that message.
        """
        self.departures.receive_notices()
        everyone_left = len(self.departures.left) == self.size - 1
        if self.broken is None and (not self.has_left or everyone_left):
            self.comm.Free()


def _cancel(requests: list[Any]) -> None:
    """Cancel receives that will never be matched (a rank that left or did not come)."""
    for request in requests:
        request.Cancel()


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
