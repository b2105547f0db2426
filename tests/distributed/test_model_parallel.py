"""Model parallelism on 2 and 4 real MPI ranks, each strategy against the same float64 model in one process.

``mp_scenarios.py`` runs every scenario in one launch per world size (a few seconds); each
test asserts on one scenario's facts. Tensor parallel: the output, the input's gradient
and every parameter's gradient equal the one-process model's, and SGD/Adam/AdamW steps
too. Pipeline parallel (GPipe, 1F1B): gradients, losses and the returned output.
ZeRO-1: the parameters after each step, on every rank, and the sharded state.
"""

import json

import pytest
from conftest import require_mpi, run_mpi

# float64 throughout: the parallel versions only add the same numbers in another order
CLOSE = 1e-12
LIMITS = {2: 120, 4: 240}  # seconds for the whole launch: 4 ranks share this machine's cores


@pytest.fixture(scope="module", params=[2, 4], ids=["2 ranks", "4 ranks"])
def results(request, tmp_path_factory):
    require_mpi()
    ranks = request.param
    out = tmp_path_factory.mktemp("mp") / "results.json"
    code, stdout, stderr = run_mpi(["tests/distributed/mp_scenarios.py", str(out)], n=ranks, timeout=LIMITS[ranks])
    assert code == 0, f"mpiexec -n {ranks} failed ({code}):\n{stdout}\n{stderr}"
    return ranks, json.loads(out.read_text())


def facts(results, name):
    ranks, everything = results
    got = everything[name]
    assert not isinstance(got.get("error"), str), got.get("error")
    return ranks, got


# ---------------------------------------------------------------------- tensor parallel
def test_tensor_parallel_mlp_matches_one_process(results):
    ranks, got = facts(results, "tp_mlp")
    assert got["world"] == ranks
    assert got["output"] < CLOSE and got["output_is_plain"]  # a plain full tensor out, on every rank
    assert got["input_grad"] < CLOSE and got["param_grads"] < CLOSE
    assert got["grads_are_dtensors"] and got["rank0_weights"]


def test_colwise_and_rowwise_placements_are_torchs(results):
    ranks, got = facts(results, "tp_mlp")
    assert got["placements"] == {
        "fc1.weight": ["(Shard(dim=0),)", [8, 6], [8 // ranks, 6]],
        "fc1.bias": ["(Shard(dim=0),)", [8], [8 // ranks]],
        "fc2.weight": ["(Shard(dim=1),)", [5, 8], [5, 8 // ranks]],
        "fc2.bias": ["(Replicate(),)", [5], [5]],
    }


def test_the_mlp_communicates_one_all_reduce_each_way(results):
    _, got = facts(results, "tp_mlp")
    assert got["forward_comms"] == {"all_reduce": 1} and got["backward_comms"] == {"all_reduce": 1}
    # forward sums the (4, 5) output; backward the (4, 6) input's gradient (float64)
    assert got["forward_bytes"] == {"all_reduce": 4 * 5 * 8} and got["backward_bytes"] == {"all_reduce": 4 * 6 * 8}


@pytest.mark.parametrize("optimizer", ["SGD", "Adam", "AdamW"])
def test_optimizers_step_dtensor_parameters_as_one_process(results, optimizer):
    _, got = facts(results, "tp_optimizers")
    assert got[optimizer]["moved"] > 1e-2 and got[optimizer]["difference"] < CLOSE


@pytest.mark.parametrize("norm_type", ["2.0", "1.0", "inf"])
def test_clip_grad_norm_of_dtensor_gradients_is_the_whole_gradients(results, norm_type):
    _, got = facts(results, "tp_clip_grad_norm")
    run = got[norm_type]
    assert run["clipped"] and run["total"] < CLOSE and run["grads"] < CLOSE  # the same total, clipped alike


def test_attention_with_heads_split_over_the_ranks(results):
    ranks, got = facts(results, "tp_attention")
    assert got["local_heads"] == 4 // ranks
    assert got["output"] < CLOSE and got["input_grad"] < CLOSE and got["param_grads"] < CLOSE
    assert got["comms"] == {"all_reduce": 4}  # out's forward; q, k and v's input gradients in backward


def test_a_plan_key_naming_no_submodule_warns_with_the_key(results):
    _, got = facts(results, "tp_plan_key_naming_nothing_warns")
    assert len(got["warnings"]) == 1 and "'fc3' names no submodule" in got["warnings"][0]
    assert "fc1, act, fc2" in got["warnings"][0]
    assert got["fc1_split"] and got["fc2_untouched"]


def test_out_features_the_ranks_cannot_share_is_an_error_on_every_rank(results):
    ranks, got = facts(results, "tp_indivisible_features")
    assert len(got["errors"]) == ranks
    for error in got["errors"]:
        assert f"'fc1' has out_features={2 * ranks + 1}" in error and f"divisible by {ranks}" in error


# ---------------------------------------------------------------------- pipeline parallel
@pytest.mark.parametrize("schedule", ["ScheduleGPipe", "Schedule1F1B"])
@pytest.mark.parametrize("scale_grads", [True, False])
def test_pipeline_matches_one_process(results, schedule, scale_grads):
    ranks, got = facts(results, "pipeline_against_one_process")
    run = got[f"{schedule}, scale_grads={scale_grads}"]
    assert run["params_per_stage"] == [4] * ranks  # every stage really holds two Linear layers
    assert run["grads"] < CLOSE  # scaled: the batch's mean loss; unscaled: the sum of the 4 microbatch means
    assert run["output"] < CLOSE and run["output_shape"] == [8, 3]  # the last stage returns the whole output
    assert run["losses"] < CLOSE and run["loss_dims"] == [0, 0, 0, 0]  # per-microbatch 0-dim losses, in order
    assert run["returned_elsewhere"] == [True] * (ranks - 1)


@pytest.mark.parametrize("schedule", ["ScheduleGPipe", "Schedule1F1B"])
def test_each_rank_records_its_microbatches_in_the_schedules_order(results, schedule):
    ranks, got = facts(results, "pipeline_against_one_process")
    run = got[f"{schedule}, scale_grads=True"]
    assert run["order"] == run["expected_order"] and run["times_ordered"]
    # GPipe keeps every microbatch's activations; 1F1B at most (stages - stage index)
    want = [4] * ranks if schedule == "ScheduleGPipe" else [ranks - s for s in range(ranks)]
    assert run["peak_in_flight"] == want


def test_a_batch_the_microbatches_do_not_divide_is_an_error_on_every_rank(results):
    ranks, got = facts(results, "pipeline_batch_that_microbatches_do_not_divide")
    assert len(got["errors"]) == ranks
    for error in got["errors"]:
        assert "batch of 10 samples" in error and "4 equal microbatches" in error
    assert got["next_step_ok"]


def test_1f1b_with_fewer_microbatches_than_stages_is_an_error_on_every_rank(results):
    ranks, got = facts(results, "one_f_one_b_needs_a_microbatch_per_stage")
    assert len(got["errors"]) == ranks
    assert all(f"n_microbatches={ranks - 1} is fewer than the {ranks} stages" in e for e in got["errors"])


# ---------------------------------------------------------------------- ZeRO-1
@pytest.mark.parametrize("optimizer", ["Adam", "AdamW", "SGD"])
def test_zero_with_ddp_matches_one_process_and_is_the_same_bits_on_every_rank(results, optimizer):
    ranks, got = facts(results, "zero_with_ddp_against_one_process")
    run = got[optimizer]
    assert run["difference"] < CLOSE and run["across_ranks"] == 0.0
    owned = run["owned"]  # every parameter on exactly one rank
    assert sorted(i for share in owned for i in share) == list(range(8)) and all(owned)
    assert sum(run["state_bytes"]) == run["one_process_bytes"]  # the state is split, not copied


def test_zero_given_the_same_gradients_is_adam_to_the_bit_and_consolidates(results):
    ranks, got = facts(results, "zero_same_gradients_same_bits")
    assert got["difference"] == 0.0 and got["state"] == 0.0
    assert got["state_keys"][0] == got["state_keys"][1] and got["steps"] == [3]
    assert got["elsewhere"][0] is None
    for rank in range(1, ranks):
        assert f"consolidate_state_dict(to={rank})" in got["elsewhere"][rank]


def test_send_and_recv_around_a_ring(results):
    _, got = facts(results, "send_and_receive_around_a_ring")
    assert set(got["got_left"]) == {0.0}
