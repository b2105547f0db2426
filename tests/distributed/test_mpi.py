"""Two real MPI ranks (``mpiexec -n 2`` from the mpich wheel): collectives, DDP, the example.

``mpi_scenarios.py`` runs every scenario on both ranks in one launch (about a second) and
rank 0 writes what it saw; each test below asserts on one scenario's facts.
"""

import json

import pytest
from conftest import require_mpi, run_mpi

from minitorch.examples import digits

RANKS = 2


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    require_mpi()
    out = tmp_path_factory.mktemp("mpi") / "results.json"
    code, stdout, stderr = run_mpi(["tests/distributed/mpi_scenarios.py", str(out)], n=RANKS, timeout=90)
    assert code == 0, f"mpiexec failed ({code}):\n{stdout}\n{stderr}"
    return json.loads(out.read_text())


def facts(results, name):
    got = results[name]
    assert "error" not in got or not isinstance(got["error"], str), got.get("error")
    return got


def test_collectives_match_numpy(results):
    got = facts(results, "collectives")
    assert got["world"] == RANKS
    assert got["errors"] == {"SUM": 0.0, "MAX": 0.0, "MIN": 0.0, "PRODUCT": 0.0, "AVG": pytest.approx(0.0, abs=1e-15)}
    assert got["ints"] == got["ints_expected"]
    assert got["scalar"] == RANKS  # MAX of 1, 2
    assert got["view_error"] == 0.0  # a non-contiguous tensor is reduced and written back
    assert got["async_error"] == 0.0 and got["broadcast_error"] == 0.0 and got["gather_error"] == 0.0


def test_mismatched_shapes_name_the_ranks_that_disagree_without_debug_mode(results):
    got = facts(results, "debug_mismatch")
    assert got["raised"]
    assert "rank 0 has (3,) float32" in got["message"] and "rank 1 has (4,) float32" in got["message"]


def test_ddp_starts_every_rank_from_rank_0s_parameters(results):
    got = facts(results, "ddp_syncs_initial_parameters")
    assert got["differed_before"] and got["equals_rank0_init"] and got["module_is_model"]
    assert got["max_difference_after"] == 0.0


def test_two_ranks_with_half_batches_end_where_one_process_with_the_whole_batch_ends(results):
    got = facts(results, "ddp_matches_one_process")
    assert got["steps"] == 12 and got["moved"] > 1e-2  # training really changed the parameters
    assert got["max_difference"] < 1e-12  # float64: only the summation order differs


def test_buckets_are_launched_while_backward_still_runs(results):
    got = facts(results, "ddp_overlaps_backward")
    events = [tuple(e) for e in got["events"]]
    kinds = [k for k, _ in events]
    assert got["buckets"] >= 3 and kinds.count("launch") == got["buckets"]
    first_launch, last_ready = kinds.index("launch"), len(kinds) - 1 - kinds[::-1].index("ready")
    # an all-reduce was issued before the first layer's gradients were even computed...
    assert first_launch < last_ready, events
    # ...and every one was issued from a gradient hook, before backward's own work ended
    assert kinds.index("end") == len(kinds) - 1, events


def test_no_sync_accumulates_locally_then_averages_the_sum(results):
    got = facts(results, "ddp_no_sync_accumulates")
    assert got["no_sync_kept_local"] == 0.0
    assert got["error"] < 1e-12


def test_nccl_backend_plumbing_with_a_fake_cupy(results):
    # Unverified on real GPUs: this fakes NCCL over MPI (tests/distributed/fake_nccl.py).
    got = facts(results, "nccl_with_fake_cupy")
    assert got["device"] == "cuda"
    assert got["sum_error"] < 1e-6 and got["gather_error"] == 0.0 and got["grads_agree"] == 0.0
    assert {"allReduce", "bcast", "allGather", "use"} <= set(got["calls"])


def test_digits_example_on_two_ranks_matches_one_process(mpi_run):
    args = ["-m", "minitorch.examples.digits", "--distributed", "--epochs", "3", "--no-progress"]
    code, out, err = mpi_run(args, n=RANKS, timeout=120)
    assert code == 0, err
    assert out.count("final test accuracy") == 1 and f"{RANKS} ranks" in out  # only rank 0 prints
    accuracy = float(out.split("final test accuracy")[1].split("%")[0]) / 100
    single = digits.train("mlp", epochs=3, seed=0, progress=False, log=lambda _: None)["test_acc"]
    # Same global batch; the shuffled order differs from the one-process run's, so allow a little.
    assert abs(accuracy - single) < 0.03, (accuracy, single)
