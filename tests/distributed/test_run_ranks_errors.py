"""``run_ranks`` reports the error that stopped the ring (not a waiting rank's "never came"), a deadlock at once."""

import time

import pytest

from minitorch.distributed.threads import run_ranks
from minitorch.errors import MiniTorchError


def test_the_first_error_is_raised_not_the_waiters():
    def work(comm, _):
        if comm.rank == 2:
            raise ValueError("rank 2 broke")
        return comm.recv(source=(comm.rank + 1) % comm.size)  # waits for a rank that stopped

    with pytest.raises(ValueError, match="rank 2 broke"):
        run_ranks(work, [None] * 3, timeout=2.0)


def test_an_unfinished_exercise_still_comes_first():
    def work(comm, _):
        if comm.rank == 0:
            raise ValueError("later")
        raise NotImplementedError("write me")

    with pytest.raises(NotImplementedError):
        run_ranks(work, [None] * 2, timeout=2.0)


def test_a_wait_for_a_rank_that_returned_fails_at_once_naming_it():
    """Rank 1 skips the collective rank 0 makes: rank 0 is told, rather than waiting out the timeout."""
    def work(comm, _):
        if comm.rank == 0:
            return comm.bcast("hello", root=1)
        return None

    # with a minute's timeout, the "never came" error would take a minute; this message comes from the test at once
    with pytest.raises(MiniTorchError, match="rank 0 waits for a message from rank 1, which already returned"):
        run_ranks(work, [None] * 2, timeout=60.0)


def test_every_rank_waiting_for_another_is_a_deadlock():
    """Each rank receives first (a bcast whose root differs by rank): no rank can send, so none waits it out."""
    def work(comm, _):
        return comm.bcast(None, root=(comm.rank + 1) % comm.size)

    with pytest.raises(MiniTorchError, match=r"deadlock: every rank waits for a message that no rank is sending"):
        run_ranks(work, [None] * 3, timeout=60.0)


def test_a_slow_sender_is_not_a_deadlock():
    """A rank still computing is not waiting: the others wait for it and get its message."""
    def work(comm, _):
        if comm.rank == 0:
            time.sleep(0.3)
        return comm.allreduce(comm.rank + 1)

    assert run_ranks(work, [None] * 3, timeout=60.0) == [6, 6, 6]


def test_a_rank_that_returns_after_sending_is_not_waited_for():
    """Rank 1's message is in the box before it returns: rank 0 gets it."""
    def work(comm, _):
        if comm.rank == 1:
            comm.send(42, dest=0)
            return None
        time.sleep(0.2)
        return comm.recv(source=1)

    assert run_ranks(work, [None] * 2, timeout=60.0) == [42, None]
