"""Point-to-point transfers between two ranks, agreed on first and bounded in time.

A collective is checked by every rank comparing every rank's header (``agreement.py``).
A send involves two ranks only, so the two of them check it:

1. the sender sends its *header* (what the transfer is, its sequence number on this pair
   of ranks, the array's shape and dtype) and, at once, the array itself;
2. the receiver sends back its *expectation*: what it means to receive, and the shape and
   dtype when it knows them (a pipeline stage receiving a gradient knows its shape; one
   receiving an activation takes the sender's);
3. each side compares the two with the same function, so both raise the same
   ``DistributedError`` when they differ. The receiver still takes the array in (into a
   scratch buffer), so the next transfer between the two is not read as this one.

Every wait polls non-blocking requests against the group's timeout: a rank that never
sends, or never receives, is named in a ``GroupTimeoutError``. The messages travel on a
private copy of the communicator, apart from the collectives' headers and the program's own
messages; MPI keeps the order of messages with the same source and tag, so the k-th header
from a rank always belongs to the k-th array from it.
"""

from __future__ import annotations

import json
import time
from collections import defaultdict
from typing import Any

import numpy as np

from minitorch.distributed.agreement import HEADER_BYTES, GroupTimeoutError, wait_until
from minitorch.distributed.base import DistributedError

TAG_HEADER, TAG_DATA, TAG_EXPECT = 1, 2, 3
# A receiver waiting for an activation should notice it within a fraction of a millisecond
# (pipeline timelines are measured in milliseconds), yet not keep a core busy.
MAX_PAUSE_S = 5e-4


def _encode(header: dict[str, Any]) -> np.ndarray:
    out = np.zeros(HEADER_BYTES, dtype=np.uint8)
    encoded = json.dumps(header).encode()
    if len(encoded) > HEADER_BYTES:
        raise DistributedError(f"point-to-point: the description of the transfer is too long ({header['what']!r})")
    out[: len(encoded)] = np.frombuffer(encoded, dtype=np.uint8)
    return out


def _decode(buffer: np.ndarray) -> dict[str, Any]:
    return json.loads(bytes(buffer).rstrip(b"\0").decode())


def disagreement(sent: dict[str, Any], expected: dict[str, Any], src: int, dst: int) -> str | None:
    """Why the sender's header and the receiver's expectation do not match (None when they do).

    Both ranks call this on the same two headers, so both get the same message.
    """
    problems = []
    if sent["what"] != expected["what"]:
        problems.append(f"what it is (rank {src} sends {sent['what']}, rank {dst} expects {expected['what']})")
    if sent["seq"] != expected["seq"]:
        problems.append(f"how many transfers came before (rank {src}: {sent['seq']}, rank {dst}: {expected['seq']})")
    for field in ("shape", "dtype"):
        if expected.get(field) is not None and expected[field] != sent[field]:
            show = (lambda v: str(tuple(v))) if field == "shape" else str
            problems.append(f"the {field} (rank {src} sends {show(sent[field])}, rank {dst} expects "
                            f"{show(expected[field])})")
    if not problems:
        return None
    return (f"point-to-point transfer #{sent['seq']} from rank {src} to rank {dst}: the two ranks disagree on "
            f"{'; '.join(problems)}. Every send must meet the matching receive on the other rank, in the same "
            "order, with a tensor of the shape and dtype the receiver expects")


class Pairwise:
    """The point-to-point side of one process group: ``isend`` and ``irecv`` on arrays."""

    def __init__(self, comm: Any, timeout_s: float) -> None:
        self.comm = comm.Dup()  # collective: every rank builds its group at the same time
        self.rank, self.size = int(comm.Get_rank()), int(comm.Get_size())
        self.timeout_s = float(timeout_s)
        self.sent: dict[int, int] = defaultdict(int)  # transfers started to each rank
        self.received: dict[int, int] = defaultdict(int)  # transfers started from each rank
        self.broken: str | None = None

    def isend(self, array: Any, dst: int, what: str) -> Transfer:
        """Start sending ``array`` (contiguous, untouched until done) to rank ``dst``."""
        self._check_usable("send", what, dst)
        header = {"what": what, "seq": self.sent[dst], "shape": list(array.shape), "dtype": str(array.dtype)}
        self.sent[dst] += 1
        return _Send(self, header, array, dst)

    def irecv(self, src: int, what: str, shape: tuple[int, ...] | None = None, dtype: Any = None) -> Transfer:
        """Start receiving ``what`` from rank ``src``; ``shape``/``dtype`` (if given) must match the sender's."""
        self._check_usable("receive", what, src)
        expected = {"what": what, "seq": self.received[src],
                    "shape": None if shape is None else list(shape), "dtype": None if dtype is None else str(dtype)}
        self.received[src] += 1
        return _Receive(self, expected, src)

    def _check_usable(self, verb: str, what: str, peer: int) -> None:
        if self.broken is not None:
            raise DistributedError(f"{verb} {what}: the process group is unusable: {self.broken}")
        if not isinstance(peer, int) or not 0 <= peer < self.size or peer == self.rank:
            raise DistributedError(f"{verb} {what}: the other rank must be one of 0..{self.size - 1} other than this "
                                   f"rank ({self.rank}), got {peer!r}")

    def fail(self, message: str) -> None:
        """A transfer timed out: requests may be pending, so no later transfer can be trusted."""
        self.broken = f"an earlier point-to-point transfer timed out ({message})"
        raise GroupTimeoutError(message)

    def close(self) -> None:
        """Free the private communicator (not after a timeout: requests may be pending)."""
        if self.broken is None:
            self.comm.Free()


class Transfer:
    """One started transfer: ``wait()`` finishes it (bounded), ``test()`` moves it along."""

    result: Any = None  # the received array, once a receive is done

    def test(self) -> bool:
        raise NotImplementedError

    def wait(self) -> Any:
        raise NotImplementedError


class _Send(Transfer):
    def __init__(self, pairs: Pairwise, header: dict[str, Any], array: Any, dst: int) -> None:
        self.pairs, self.header, self.dst = pairs, header, dst
        self._out = _encode(header)  # kept alive until the send completes
        self._expectation = np.zeros(HEADER_BYTES, dtype=np.uint8)
        self._requests = [pairs.comm.Isend(self._out, dest=dst, tag=TAG_HEADER),
                          pairs.comm.Isend(array, dest=dst, tag=TAG_DATA),
                          pairs.comm.Irecv(self._expectation, source=dst, tag=TAG_EXPECT)]
        self._done = [False, False, False]
        self._finished = False

    def test(self) -> bool:
        if not self._finished:
            self._done = [d or r.Test() for d, r in zip(self._done, self._requests)]
            if all(self._done):
                self._finish()
        return self._finished

    def wait(self) -> None:
        if self._finished:
            return
        done = wait_until(self._requests, time.monotonic() + self.pairs.timeout_s, MAX_PAUSE_S)
        if not all(done):
            if not done[2]:
                self._requests[2].Cancel()
            self.pairs.fail(f"sending {self.header['what']} to rank {self.dst} (transfer #{self.header['seq']} to "
                            f"it): rank {self.dst} did not take it within {self.pairs.timeout_s:g} s. A rank that "
                            "raised, exited, or waits for something else never receives it")
        self._finish()

    def _finish(self) -> None:
        self._finished = True
        problem = disagreement(self.header, _decode(self._expectation), self.pairs.rank, self.dst)
        if problem is not None:
            raise DistributedError(problem)


class _Receive(Transfer):
    def __init__(self, pairs: Pairwise, expected: dict[str, Any], src: int) -> None:
        self.pairs, self.expected, self.src = pairs, expected, src
        self._out = _encode(expected)
        self._header = np.zeros(HEADER_BYTES, dtype=np.uint8)
        self._requests = [pairs.comm.Irecv(self._header, source=src, tag=TAG_HEADER),
                          pairs.comm.Isend(self._out, dest=src, tag=TAG_EXPECT)]
        self._data_request: Any = None
        self._problem: str | None = None
        self._finished = False

    def test(self) -> bool:
        if self._finished:
            return True
        if self._data_request is None:
            if not all(r.Test() for r in self._requests):
                return False
            self._start_data()
        if self._data_request.Test():
            self._finish()
        return self._finished

    def wait(self) -> Any:
        deadline = time.monotonic() + self.pairs.timeout_s
        if not self._finished and self._data_request is None:
            done = wait_until(self._requests, deadline, MAX_PAUSE_S)
            if not done[0]:
                self._requests[0].Cancel()
                self._time_out("it never came")
            if not done[1]:
                self._time_out("its sender never took this rank's reply")
            self._start_data()
        if not self._finished:
            if not wait_until([self._data_request], deadline, MAX_PAUSE_S)[0]:
                self._time_out("its header came, but its data did not")
            self._finish()
        return self.result

    def _start_data(self) -> None:
        header = _decode(self._header)
        self._problem = disagreement(header, self.expected, self.src, self.pairs.rank)
        # Received even when they disagree: left in MPI's queue, it would be read as the next transfer's.
        self.result = np.empty(header["shape"], dtype=np.dtype(header["dtype"]))
        self._data_request = self.pairs.comm.Irecv(self.result, source=self.src, tag=TAG_DATA)

    def _finish(self) -> None:
        self._finished = True
        if self._problem is not None:
            self.result = None
            raise DistributedError(self._problem)

    def _time_out(self, why: str) -> None:
        self.pairs.fail(f"receiving {self.expected['what']} from rank {self.src} (transfer #{self.expected['seq']} "
                        f"from it): {why} within {self.pairs.timeout_s:g} s. A rank that raised, exited, or waits "
                        "for something else never sends it")
