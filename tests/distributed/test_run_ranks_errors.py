"""``run_ranks`` reports the error that stopped the ring, not a waiting rank's "never came"."""

import pytest

from minitorch.distributed.threads import run_ranks


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
