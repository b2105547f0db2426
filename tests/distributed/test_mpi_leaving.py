"""A rank that leaves early never strands the others: each way of leaving, under ``mpiexec -n 2``.

Before: rank 1 running ``raise SystemExit('rank 1 leaves')`` after ``init_process_group``
left rank 0 waiting in its ``all_reduce`` for the group's timeout (then 30 minutes): a
``SystemExit`` never reaches ``sys.excepthook``, and MPI's finalize tells nobody. Now a
leaving rank tells the others and a vanished process is noticed (minitorch/distributed/
leaving.py): rank 0 raises ``RankLeftError`` naming rank 1 within seconds, far inside the
group's timeout (60 s here), and every rank says what happened.
"""

import re
import time

import pytest
from conftest import require_mpi, run_mpi

SCRIPT = "tests/distributed/mpi_leaving.py"
GROUP_TIMEOUT_S = 60.0  # the job must end long before: nobody waits for the timeout
LIMIT_S = 50  # the subprocess limit (mpiexec and both ranks are killed past it)
BOUND_S = 30  # measured ~3 s on a loaded 2-core machine, Python's start included


def run(case, mpiexec_options=()):
    """(exit code, stdout + stderr, seconds) of one two-rank job."""
    require_mpi()
    start = time.monotonic()
    code, out, err = run_mpi([SCRIPT, case, str(GROUP_TIMEOUT_S)], n=2, timeout=LIMIT_S,
                             mpiexec_options=mpiexec_options)
    return code, out + err, time.monotonic() - start


def rank_0_was_told(text, how, after):
    """Rank 0's RankLeftError names rank 1, how it left, after how many collectives; rank 0 ended the job."""
    assert f"RankLeftError: all_reduce: rank 1 left the group ({how}" in text, text
    if after is not None:
        assert f"after {after} collective(s)" in text, text
    assert "rank 0 of 2 raised RankLeftError; ending every rank of the job" in text, text


@pytest.mark.parametrize("case, words", [
    ("system_exit", "rank 1 leaves"),  # Python prints the SystemExit's message itself
    ("system_exit_0", None),
])
def test_a_system_exit_on_one_rank_ends_the_job_naming_it(case, words):
    code, text, seconds = run(case)
    assert code != 0 and seconds < BOUND_S, (code, seconds, text)
    if words:
        assert words in text
    rank_0_was_told(text, "its program ended before destroy_process_group()", 0)
    # rank 1 says it left, and whether rank 0 was already waiting for it or still running
    assert re.search(r"rank 1 of 2 left the process group \(.*\) while (rank 0 waits for it in all_reduce "
                     r"\(collective #0\)|rank\(s\) 0 still run)", text), text
    assert "rank 0 got" not in text


def test_an_early_return_from_main_with_collectives_pending_on_the_other_rank():
    code, text, seconds = run("return_early")
    assert code != 0 and seconds < BOUND_S, (code, seconds, text)
    rank_0_was_told(text, "its program ended before destroy_process_group()", 1)
    assert "rank 1 got [2.0, 2.0, 2.0]" in text and "rank 0 got" not in text


def test_destroy_process_group_on_one_rank_while_the_other_still_calls():
    code, text, seconds = run("destroy_early")
    assert code != 0 and seconds < BOUND_S, (code, seconds, text)
    rank_0_was_told(text, "destroy_process_group()", 0)


def test_os_exit_under_mpiexecs_cleanup_ends_the_job_at_once():
    # os._exit skips Python's exit: rank 1 can tell nobody. MPICH's mpiexec then kills the
    # other ranks itself (SIGKILL), often before rank 0 noticed, so no message is promised.
    code, text, seconds = run("os_exit")
    assert code != 0 and seconds < BOUND_S, (code, seconds, text)
    assert "rank 0 got" not in text
    if "RankLeftError" in text:  # rank 0 was quicker than mpiexec
        rank_0_was_told(text, "its process (pid ", None)


def test_os_exit_without_cleanup_is_noticed_by_the_waiting_rank():
    # Under a launcher that leaves the other ranks running, rank 0 sees rank 1's process gone.
    code, text, seconds = run("os_exit", mpiexec_options=["-disable-auto-cleanup"])
    assert code != 0 and seconds < BOUND_S, (code, seconds, text)
    rank_0_was_told(text, "its process (pid ", None)
    assert "ended without leaving: os._exit, a signal or a crash" in text


@pytest.mark.parametrize("case", ["all_end", "all_destroy"])
def test_ranks_that_end_together_end_cleanly(case):
    code, text, seconds = run(case)
    assert code == 0 and seconds < BOUND_S, (code, seconds, text)
    assert "rank 0 got [2.0, 2.0, 2.0]" in text and "rank 1 got [2.0, 2.0, 2.0]" in text
    assert "RankLeftError" not in text and "Traceback" not in text


class _Request:
    """A stand-in for an MPI request that completes ``after`` seconds from now."""

    def __init__(self, after):
        self.ready_at = time.monotonic() + after

    def Test(self):  # noqa: N802 (MPI's name)
        return time.monotonic() >= self.ready_at


def _departures_with(left):
    from minitorch.distributed.leaving import Departures

    departures = Departures.__new__(Departures)  # no MPI: only the bookkeeping is tested
    departures.left, departures.pids, departures.next_check = left, {}, 0.0
    departures.receive_notices = lambda: None
    return departures


def test_a_rank_that_left_after_joining_the_collective_is_not_waited_for_in_vain():
    # Rank 1 ran 14 collectives (#0..#13) and left; this rank waits for #13 to finish: rank 1
    # took part, so its leaving is no reason to stop (a pipeline's last allgather_object hit this).
    departures = _departures_with({1: {"how": "destroy_process_group()", "seq": 14}})
    departures.check("allgather_object", [1], force=True, ran=14)
    with pytest.raises(dist_errors().RankLeftError, match="rank 1 left the group .* after 14 collective"):
        departures.check("all_reduce", [1], force=True, ran=15)  # #14: rank 1 never joined it
    vanished = _departures_with({1: {"how": "its process (pid 7) ended without leaving"}})
    with pytest.raises(dist_errors().RankLeftError):
        vanished.check("all_reduce", [1], force=True, ran=14)  # no count: it may not have taken part


def test_a_wait_takes_the_last_message_of_a_rank_that_just_left():
    from minitorch.distributed.agreement import wait_until

    def rank_left():
        raise dist_errors().RankLeftError("rank 1 left")

    # its message arrives just after the notice: the wait returns it
    assert wait_until([_Request(0.05)], time.monotonic() + 10, rank_left) == [True]
    # nothing arrives: the wait stops with the error, long before its deadline
    start = time.monotonic()
    with pytest.raises(dist_errors().RankLeftError):
        wait_until([_Request(60)], time.monotonic() + 10, rank_left)
    assert time.monotonic() - start < 5


def dist_errors():
    import minitorch.distributed as dist

    return dist
