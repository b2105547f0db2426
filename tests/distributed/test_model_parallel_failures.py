"""Model-parallel jobs that go wrong end well within the group's timeout, with an error that says what happened.

A pipeline stage that raises mid-step ends the whole job with its traceback; one that
stops taking part leaves its neighbours waiting for a transfer that never comes, and
they time out naming it. Ranks whose tensor-parallel plans or pipeline settings differ
get the same error on every rank (and the group goes on working). Every run has a limit.
"""

import json
import time

import pytest
from conftest import require_mpi, run_mpi

SCRIPT = "tests/distributed/mp_failures.py"


@pytest.fixture
def run_case(tmp_path):
    """``run_case(name, ranks, timeout_s, limit)``: (exit code, {rank: facts}, output, seconds)."""
    require_mpi()

    def run(name, ranks, timeout_s=30.0, limit=120):
        start = time.monotonic()
        code, out, err = run_mpi([SCRIPT, name, str(timeout_s), str(tmp_path)], n=ranks, timeout=limit)
        results = {int(p.stem[4:]): json.loads(p.read_text()) for p in tmp_path.glob("rank*.json")}
        return code, results, out + err, time.monotonic() - start

    return run


@pytest.mark.parametrize("ranks", [2, 4])
def test_a_stage_that_raises_mid_pipeline_ends_the_job_with_its_traceback(run_case, ranks):
    failing = ranks // 2
    # The group's timeout is two minutes: the job must end long before it, through MPI_Abort.
    code, _, text, seconds = run_case("rank_dies_mid_pipeline", ranks, timeout_s=120.0, limit=100)
    assert code != 0
    assert f"ValueError: stage {failing} gave up at microbatch 2" in text and "Traceback" in text
    assert f"rank {failing} of {ranks} raised ValueError; ending every rank" in text
    assert "finished its step" not in text
    assert seconds < 60, seconds


@pytest.mark.parametrize("ranks", [2, 4])
def test_a_stage_that_stops_taking_part_makes_its_neighbour_time_out_naming_the_transfer(run_case, ranks):
    code, _, text, seconds = run_case("rank_stops_mid_pipeline", ranks, timeout_s=3.0, limit=100)
    assert code != 0  # the neighbour's GroupTimeoutError is uncaught: it ends the job (the stopped rank sleeps)
    assert "GroupTimeoutError" in text
    assert "receiving the gradient of microbatch 0 (stage" in text and "it never came within 3 s" in text
    assert seconds < 60, seconds  # not the stopped rank's 60 s sleep


@pytest.mark.parametrize("ranks", [2, 4])
def test_ranks_with_different_tensor_parallel_plans_get_the_same_error(run_case, ranks):
    code, results, text, _ = run_case("mismatched_tensor_parallel_plan", ranks)
    assert code == 0, text
    assert sorted(results) == list(range(ranks)), text
    messages = {results[r]["error"]["message"] for r in range(ranks)}
    assert len(messages) == 1, messages  # the same words on every rank
    (message,) = messages
    assert "the ranks' plans differ" in message
    assert "rank 0 splits fc1: ColwiseParallel of Linear(6, 8); fc2: RowwiseParallel of Linear(8, 5)" in message
    assert "rank 1 splits fc1: RowwiseParallel of Linear(6, 8)" in message
    assert all(results[r]["after"] == [2, 5] for r in range(ranks))  # and the group still works


@pytest.mark.parametrize("ranks", [2, 4])
def test_ranks_with_different_pipeline_settings_get_the_same_error(run_case, ranks):
    code, results, text, _ = run_case("mismatched_pipeline_settings", ranks)
    assert code == 0, text
    for r in range(ranks):
        microbatches, schedules = results[r]["microbatches"]["message"], results[r]["schedules"]["message"]
        assert "the ranks disagree on n_microbatches (rank 0: 4, rank 1: 2" in microbatches
        assert "the ranks disagree on schedule (rank 0: ScheduleGPipe, rank 1: Schedule1F1B" in schedules


def test_a_receive_of_another_shape_raises_on_both_ranks_and_the_pair_goes_on(run_case):
    code, results, text, _ = run_case("point_to_point_shapes_differ", 2)
    assert code == 0, text
    for r in (0, 1):
        message = results[r]["error"]["message"]
        assert "transfer #0 from rank 0 to rank 1" in message
        assert "the shape (rank 0 sends (3,), rank 1 expects (4,))" in message
    assert results[1]["after"] == [5.0, 5.0]
