"""Two MPI ranks that disagree: every case ends, quickly, with an error that says what happened.

Before, under ``mpiexec -n 2``: all-reducing ``ones(4, float32)`` on rank 0 with
``ones(2, float64)`` on rank 1 returned garbage on rank 0 (``[1.0, 2.875, 1.17e-38, 1.876]``)
and exited 0; other shape or dtype mismatches aborted with MPI's "Message truncated"; a rank
that raised before a collective, or called ``broadcast`` while the other called
``all_reduce``, left the job hanging forever. Every run here has a subprocess time limit.
"""

import json
import time

import pytest
from conftest import require_mpi, run_mpi

SCRIPT = "tests/distributed/mpi_failures.py"


@pytest.fixture
def run_case(tmp_path):
    """``run_case(name, timeout_s, limit)``: (exit code, {rank: facts}, output, seconds)."""
    require_mpi()

    def run(name, timeout_s=20.0, limit=60):
        start = time.monotonic()
        code, out, err = run_mpi([SCRIPT, name, str(timeout_s), str(tmp_path)], n=2, timeout=limit)
        results = {int(p.stem[4:]): json.loads(p.read_text()) for p in tmp_path.glob("rank*.json")}
        return code, results, out + err, time.monotonic() - start

    return run


@pytest.mark.parametrize(
    "name, words",
    [
        ("size_and_dtype_both_differ",
         ["shape (rank 0: (4,), rank 1: (2,))", "dtype (rank 0: float32, rank 1: float64)"]),
        ("shapes_differ", ["shape (rank 0: (3,), rank 1: (4,))", "rank 0 has (3,) float32", "rank 1 has (4,) float32"]),
        ("dtypes_differ", ["dtype (rank 0: float32, rank 1: float64)"]),
    ],
)
def test_mismatched_tensors_raise_on_every_rank_and_the_group_survives(run_case, name, words):
    code, results, text, _ = run_case(name)
    assert code == 0, text
    assert sorted(results) == [0, 1], text
    for rank in (0, 1):
        error = results[rank]["error"]
        assert error is not None and error["type"] == "DistributedError", results[rank]
        assert "all_reduce" in error["message"] and "ranks disagree" in error["message"]
        for word in words:
            assert word in error["message"], (word, error["message"])
        assert results[rank]["after"] == [2.0, 2.0, 2.0]  # the next matching collective is right


def test_different_collectives_raise_on_every_rank_instead_of_hanging(run_case):
    code, results, text, _ = run_case("different_collectives")
    assert code == 0, text
    for rank in (0, 1):
        message = results[rank]["error"]["message"]
        assert "the collective (rank 0: all_reduce, rank 1: broadcast)" in message, message


def test_an_uncaught_exception_on_one_rank_ends_the_whole_job_with_its_traceback(run_case):
    # The group's timeout is a minute: the job must end long before, through MPI_Abort.
    code, _, text, seconds = run_case("one_rank_raises_before_a_collective", timeout_s=60.0, limit=45)
    assert code != 0
    assert "Traceback" in text and "ValueError: rank 1 gave up before the all_reduce" in text
    assert "rank 1 of 2 raised ValueError; ending every rank" in text
    assert "rank 0 returned" not in text
    assert seconds < 30, seconds


def test_a_rank_that_does_not_arrive_times_out_naming_the_collective_and_the_rank(run_case):
    code, _, text, seconds = run_case("one_rank_is_late", timeout_s=1.0, limit=45)
    assert code != 0  # rank 0's GroupTimeoutError is uncaught: it ends the job (rank 1 still sleeps)
    assert "GroupTimeoutError" in text
    assert "all_reduce (collective #0): timed out after 1 s waiting for rank(s) 1 (rank(s) 0 arrived)" in text
    assert seconds < 25, seconds  # not rank 1's 30 s sleep


def test_matching_collectives_still_give_the_right_results(run_case):
    code, results, text, _ = run_case("a_matching_run_still_works")
    assert code == 0, text
    for rank in (0, 1):
        got = results[rank]
        assert got["sum"] == [3.0, 6.0] and got["broadcast"] == [1.0, 1.0]
        assert got["gathered"] == [[3.0, 6.0], [3.0, 6.0]] and got["objects"] == [{"rank": 0}, {"rank": 1}]
