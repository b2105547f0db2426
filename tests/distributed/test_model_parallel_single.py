"""Model parallelism in this one process: imports without MPI, placements, schedules' orders, errors, a world of one.

Without ``mpiexec`` MPI starts a world of one rank, where tensor parallel, a one-stage
pipeline and ZeRO must be exactly the plain model and optimizer; that, and every error a
misuse meets before any other rank is involved, is checked here. The ranks' exchanges are
in ``test_model_parallel.py``.
"""

import subprocess
import sys
import warnings

import numpy as np
import pytest
from conftest import REPO, require_mpi
from mp_models import data, layers, mlp

import minitorch
import minitorch.distributed as dist
from minitorch import nn, optim
from minitorch.distributed.base import ProcessGroup
from minitorch.distributed.optim import ZeroRedundancyOptimizer
from minitorch.distributed.pipelining import PipelineStage, Schedule1F1B, ScheduleGPipe
from minitorch.distributed.pipelining.schedules import plan_problem
from minitorch.distributed.tensor import DTensor, Replicate, Shard, distribute_tensor, init_device_mesh
from minitorch.distributed.tensor.debug import CommDebugMode
from minitorch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module

NEW_MODULES = ["minitorch.distributed.device_mesh", "minitorch.distributed.tensor",
               "minitorch.distributed.tensor.parallel", "minitorch.distributed.tensor.debug",
               "minitorch.distributed.pipelining", "minitorch.distributed.optim",
               "minitorch.distributed.point_to_point", "minitorch.distributed.pairwise"]


@pytest.fixture
def world_of_one():
    require_mpi()
    dist.init_process_group("mpi")
    yield init_device_mesh("cpu", (1,))
    dist.destroy_process_group()


# ---------------------------------------------------------------------- without MPI
def test_every_new_module_imports_without_mpi4py():
    code = ("import sys\nsys.modules['mpi4py'] = None\nsys.modules['mpi4py.MPI'] = None\nimport importlib\n"
            f"for name in {NEW_MODULES!r}:\n    importlib.import_module(name)\n"
            "from minitorch.distributed.tensor import Shard\n"
            "from minitorch.distributed.pipelining import Schedule1F1B\n"
            "print(Shard(0), Schedule1F1B.order(2, 2, 0))\n"
            "import minitorch.distributed as dist\n"
            "try:\n    dist.init_process_group('mpi')\n"
            "except dist.DistributedError as e:\n    print('pip' in str(e))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["S(0)", "[('F',", "0),", "('F',", "1),", "('B',", "0),", "('B',", "1)]", "True"]


def test_placements_compare_hash_and_print_as_torchs():
    assert Shard(0) == Shard(0) and Shard(0) != Shard(1) and Shard(1) != Replicate() and Replicate() == Replicate()
    assert len({Shard(0), Shard(0), Replicate(), Replicate()}) == 2
    assert (repr(Shard(1)), repr(Replicate()), Shard(1).dim) == ("Shard(dim=1)", "Replicate()", 1)
    assert Shard(0).is_shard() and Shard(0).is_shard(0) and not Shard(0).is_shard(1) and Replicate().is_replicate()
    with pytest.raises(TypeError, match="dim must be an int"):
        Shard(0.5)


# ---------------------------------------------------------------------- schedules' orders
def in_flight_peaks(order):
    kept, peak = set(), 0
    for kind, k in order:
        kept.add(k) if kind == "F" else kept.discard(k)
        peak = max(peak, len(kept))
    return peak


@pytest.mark.parametrize("stages, microbatches", [(2, 2), (2, 4), (4, 4), (4, 8), (3, 7)])
def test_each_schedule_runs_every_forward_and_backward_once_forward_first(stages, microbatches):
    for schedule in (ScheduleGPipe, Schedule1F1B):
        for s in range(stages):
            order = schedule.order(stages, microbatches, s)
            assert sorted(order) == sorted([("F", k) for k in range(microbatches)] +
                                           [("B", k) for k in range(microbatches)])
            assert all(order.index(("F", k)) < order.index(("B", k)) for k in range(microbatches))
            assert [k for kind, k in order if kind == "B"] == list(range(microbatches))
            peak = in_flight_peaks(order)
            assert peak == (microbatches if schedule is ScheduleGPipe else min(microbatches, stages - s))


def test_1f1b_order_is_torchs():
    assert Schedule1F1B.order(4, 6, 2) == [("F", 0), ("F", 1), ("B", 0), ("F", 2), ("B", 1), ("F", 3), ("B", 2),
                                           ("F", 4), ("B", 3), ("F", 5), ("B", 4), ("B", 5)]


def info(**changes):
    base = {"schedule": "ScheduleGPipe", "n_microbatches": 4, "num_stages": 2, "scale_grads": True, "loss": True,
            "input": None, "target": None}
    return {**base, **changes}


@pytest.mark.parametrize("infos, words", [
    ([info(input=8), info(target=8)], None),
    ([info(input=10), info(target=10)], "the batch of 10 samples (stage 0's input) cannot be cut into 4 equal"),
    ([info(input=8), info(target=4)], "the input has 8 samples but the target (rank 1) has 4"),
    ([info(input=8), info()], "the last stage (rank 1) must pass target="),
    ([info(), info(target=8)], "rank(s) 0 did otherwise"),
    ([info(input=8), info(input=8, target=8)], "rank(s) 1 did otherwise"),
    ([info(input=8, scale_grads=False), info(target=8)], "the ranks disagree on scale_grads (rank 0: False, rank 1:"),
    ([info(input=8, loss=False), info(target=8)], "the ranks disagree on a loss_fn given"),
])
def test_the_ranks_settings_are_checked_together(infos, words):
    problem = plan_problem(infos)
    assert problem is None if words is None else words in problem, problem


# ---------------------------------------------------------------------- DTensor on one rank
def test_dtensor_shapes_gradients_and_views(world_of_one):
    w = distribute_tensor(minitorch.randn(4, 3, dtype=minitorch.float64, requires_grad=True), world_of_one,
                          [Shard(-1)])
    assert isinstance(w, DTensor) and w.is_leaf and w.requires_grad and w.placements == (Shard(1),)
    assert (tuple(w.shape), w.numel(), w.ndim, w.size(0), w.device_mesh) == ((4, 3), 12, 2, 4, world_of_one)
    (w.to_local() * 2).sum().backward()
    assert isinstance(w.grad, DTensor) and w.grad.placements == w.placements and w.grad is w.grad
    assert np.array_equal(w.grad.to_local().numpy(), np.full((4, 3), 2.0))
    w.full_tensor().sum().backward()  # accumulates into the same .grad
    assert np.array_equal(w.grad.to_local().numpy(), np.full((4, 3), 3.0))
    w.grad.div_(3)
    assert np.array_equal(w.grad.to_local().numpy(), np.ones((4, 3)))
    replicated = w.redistribute(world_of_one, [Replicate()])
    assert replicated.placements == (Replicate(),) and np.array_equal(replicated.to_local().detach().numpy(),
                                                                      w.to_local().detach().numpy())
    local = minitorch.ones(2, 2, requires_grad=True)
    d = DTensor.from_local(local, world_of_one, [Shard(0)], run_check=True)
    d.to_local().sum().backward()
    assert local.grad.tolist() == [[1.0, 1.0], [1.0, 1.0]]  # from_local is differentiable
    assert "DTensor(local_tensor=" in repr(w) and "placements=(Shard(dim=1),)" in repr(w)


@pytest.mark.parametrize("use", [lambda w: w + 1, lambda w: w.sum(), lambda w: w @ w, lambda w: w[0],
                                 lambda w: w.numpy(), lambda w: w.item(), lambda w: bool(w), lambda w: len(w),
                                 lambda w: list(w), lambda w: w.T, lambda w: w == w, lambda w: w.to("cpu"),
                                 lambda w: np.asarray(w), lambda w: w.mul_(w)])
def test_tensor_methods_on_a_dtensor_are_refused_rather_than_answered_for_the_shard(world_of_one, use):
    w = distribute_tensor(minitorch.ones(4, 4), world_of_one, [Shard(0)])
    with pytest.raises(dist.DistributedError, match="to_local.*full_tensor"):
        use(w)


def test_dtensor_errors(world_of_one):
    w = distribute_tensor(minitorch.ones(4, 2, requires_grad=True), world_of_one, [Shard(0)])
    with pytest.raises(TypeError, match="distribute_tensor"):
        DTensor(minitorch.ones(2))
    with pytest.raises(dist.DistributedError, match="assign None or a DTensor"):
        w.grad = minitorch.ones(4, 2)
    with pytest.raises(dist.DistributedError, match="one Shard\\(dim\\) or Replicate\\(\\) per mesh dimension"):
        distribute_tensor(minitorch.ones(2), world_of_one, [Shard(0), Shard(0)])
    with pytest.raises(dist.DistributedError, match="Shard\\(dim=2\\) for a tensor with 2"):
        distribute_tensor(minitorch.ones(2, 2), world_of_one, [Shard(2)])
    with pytest.raises(dist.DistributedError, match="expected a DeviceMesh"):
        distribute_tensor(minitorch.ones(2), "cpu", [Shard(0)])
    w.grad = None
    assert w.grad is None


def test_device_mesh_errors(world_of_one):
    assert repr(world_of_one) == "DeviceMesh('cpu', [0])" and world_of_one.size() == 1
    with pytest.raises(dist.DistributedError, match="one dimension"):
        init_device_mesh("cpu", (1, 1))
    with pytest.raises(dist.DistributedError, match="needs 2 ranks, but the process group has 1"):
        init_device_mesh("cpu", (2,))
    with pytest.raises(dist.DistributedError, match="works on cpu tensors, not 'cuda'"):
        init_device_mesh("cuda", (1,))


def test_a_mesh_needs_the_process_group():
    with pytest.raises(dist.DistributedError, match="init_process_group"):
        init_device_mesh("cpu", (1,))


# ---------------------------------------------------------------------- tensor parallel on one rank
def test_tensor_parallel_on_one_rank_is_the_plain_model(world_of_one):
    model, reference = mlp(seed=3), mlp(seed=3)
    assert parallelize_module(model, world_of_one, {"fc1": ColwiseParallel(), "fc2": RowwiseParallel()}) is model
    x = minitorch.randn(3, 6, dtype=minitorch.float64)
    with CommDebugMode() as comms:
        out = model(x)
        out.sum().backward()
    reference(x).sum().backward()
    assert np.array_equal(out.detach().numpy(), reference(x).detach().numpy())
    assert comms.get_comm_counts() == {"all_reduce": 1} and comms.get_total_counts() == 1  # x needs no gradient
    for p, q in zip(model.parameters(), reference.parameters()):
        assert np.array_equal(p.grad.full_tensor().numpy(), q.grad.numpy())


def test_parallelize_module_errors(world_of_one):
    plan = {"fc1": ColwiseParallel(), "fc2": RowwiseParallel()}
    with pytest.raises(dist.DistributedError, match="'act' is a ReLU; MiniTorch's ColwiseParallel splits an nn.Linear"):
        parallelize_module(mlp(seed=0), world_of_one, {"act": ColwiseParallel()})
    with pytest.raises(dist.DistributedError, match="'fc1' is named by two plan keys, 'fc1' and 'fc\\*'"):
        parallelize_module(mlp(seed=0), world_of_one, {"fc1": ColwiseParallel(), "fc*": RowwiseParallel()})
    with pytest.raises(dist.DistributedError, match="pass the mesh"):
        parallelize_module(mlp(seed=0), None, plan)
    with pytest.raises(TypeError, match="a ParallelStyle or a dict"):
        parallelize_module(mlp(seed=0), world_of_one, [ColwiseParallel()])
    model = parallelize_module(mlp(seed=0), world_of_one, plan)
    with pytest.raises(dist.DistributedError, match="'fc1' is already parallelized"):
        parallelize_module(model, world_of_one, {"fc1": ColwiseParallel()})
    with pytest.raises(dist.DistributedError, match="input_layouts=Replicate"):
        ColwiseParallel(input_layouts=Shard(0))
    with pytest.raises(dist.DistributedError, match="use_local_output=True"):
        RowwiseParallel(use_local_output=False)
    assert ColwiseParallel(input_layouts=Replicate(), output_layouts=[Shard(-1)]) is not None
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        parallelize_module(mlp(seed=0), world_of_one)
    assert "no parallelize_plan" in str(seen[0].message)


def test_ddp_and_zero_refuse_a_tensor_parallel_model_rather_than_mix_its_slices(world_of_one):
    model = parallelize_module(mlp(seed=0), world_of_one, {"fc1": ColwiseParallel(), "fc2": RowwiseParallel()})
    with pytest.raises(dist.DistributedError, match="fc1.weight is a DTensor"):
        nn.parallel.DistributedDataParallel(model)
    with pytest.raises(dist.DistributedError, match="ZeroRedundancyOptimizer: a parameter is a DTensor"):
        ZeroRedundancyOptimizer(model.parameters(), optimizer_class=optim.Adam, lr=0.1)


def test_a_row_parallel_layer_given_the_whole_input_says_so(world_of_one):
    model = parallelize_module(mlp(seed=0), world_of_one, {"fc2": RowwiseParallel()})
    with pytest.raises(dist.DistributedError, match="the input has 6 features, but this rank's slice"):
        model.fc2(minitorch.ones(2, 6, dtype=minitorch.float64))


# ---------------------------------------------------------------------- pipeline on one rank
def test_a_one_stage_pipeline_is_the_plain_model(world_of_one):
    model, reference = layers(0, 1), layers(0, 1)
    x, y = data(n=8)
    losses = []
    out = Schedule1F1B(PipelineStage(model, 0, 1, "cpu"), 4, loss_fn=nn.CrossEntropyLoss()).step(
        x, target=y, losses=losses)
    loss = nn.CrossEntropyLoss()(reference(x), y)
    loss.backward()
    assert np.allclose(out.numpy(), reference(x).detach().numpy(), rtol=0, atol=1e-15)
    assert abs(sum(v.item() for v in losses) / 4 - loss.item()) < 1e-15
    for p, q in zip(model.parameters(), reference.parameters()):
        assert np.allclose(p.grad.numpy(), q.grad.numpy(), rtol=0, atol=1e-15)


def test_pipeline_errors(world_of_one):
    model = layers(0, 1)
    with pytest.raises(dist.DistributedError, match="num_stages=2, but the process group has 1 ranks"):
        PipelineStage(model, 1, 2, "cpu")
    with pytest.raises(dist.DistributedError, match="stage i runs on rank i"):
        PipelineStage(model, 1, 1, "cpu")
    with pytest.raises(dist.DistributedError, match="device 'cuda'"):
        PipelineStage(model, 0, 1, "cuda")
    with pytest.raises(TypeError, match="expected an nn.Module"):
        PipelineStage(lambda x: x, 0, 1, "cpu")
    stage = PipelineStage(model, 0, 1, "cpu")
    with pytest.raises(dist.DistributedError, match="n_microbatches must be a positive int"):
        ScheduleGPipe(stage, 0)
    with pytest.raises(dist.DistributedError, match="dimension 0 only"):
        ScheduleGPipe(stage, 2, args_chunk_spec=(0,))
    schedule = ScheduleGPipe(stage, 2, loss_fn=nn.CrossEntropyLoss())
    x, y = data(n=4)
    with pytest.raises(TypeError, match="losses must be a list"):
        schedule.step(x, target=y, losses=())
    with pytest.raises(dist.DistributedError, match="one input tensor"):
        schedule.step(x, x, target=y)
    with minitorch.no_grad(), pytest.raises(dist.DistributedError, match="needs gradients enabled"):
        schedule.step(x, target=y)


def test_a_pipeline_without_a_loss_runs_forward_only(world_of_one):
    model = layers(0, 1)
    x, _ = data(n=4)
    schedule = ScheduleGPipe(PipelineStage(model, 0, 1, "cpu"), 2)
    out = schedule.step(x)
    assert np.allclose(out.numpy(), model(x).detach().numpy()) and all(p.grad is None for p in model.parameters())
    assert [e.kind for e in schedule.timeline] == ["F", "F"]


# ---------------------------------------------------------------------- ZeRO on one rank
def test_zero_on_one_rank_is_the_optimizer_to_the_bit_and_reloads(world_of_one):
    model, reference = layers(1, 1), layers(1, 1)
    zero = ZeroRedundancyOptimizer(model.parameters(), optimizer_class=optim.AdamW, lr=0.01, weight_decay=0.1)
    plain = optim.AdamW(reference.parameters(), lr=0.01, weight_decay=0.1)
    zero_sched = optim.lr_scheduler.StepLR(zero, step_size=1, gamma=0.5)
    plain_sched = optim.lr_scheduler.StepLR(plain, step_size=1, gamma=0.5)
    x, y = data(n=8)
    for _ in range(3):
        for m, o, s in ((model, zero, zero_sched), (reference, plain, plain_sched)):
            o.zero_grad()
            nn.CrossEntropyLoss()(m(x), y).backward()
            o.step()
            s.step()
    assert zero.param_groups[0]["lr"] == plain.param_groups[0]["lr"] == 0.01 / 8  # the local one follows at step()
    for p, q in zip(model.parameters(), reference.parameters()):
        assert np.array_equal(p.detach().numpy(), q.detach().numpy())
    with pytest.raises(RuntimeError, match="consolidate_state_dict\\(to=0\\)"):
        zero.state_dict()
    zero.consolidate_state_dict()
    saved = zero.state_dict()
    again = ZeroRedundancyOptimizer(layers(1, 1).parameters(), optimizer_class=optim.AdamW, lr=0.5)
    again.load_state_dict(saved)
    assert again.optim.param_groups[0]["lr"] == 0.01 / 8
    first = next(iter(again.optim.state.values()))
    assert first["step"] == 3 and np.array_equal(first["exp_avg"], plain.state[next(reference.parameters())][
        "exp_avg"])


def test_zero_errors(world_of_one):
    with pytest.raises(TypeError, match="optimizer_class must be an optimizer class"):
        ZeroRedundancyOptimizer(layers(0, 1).parameters(), optimizer_class="Adam", lr=0.1)
    with pytest.raises(dist.DistributedError, match="overlap_with_ddp=True is not supported"):
        ZeroRedundancyOptimizer(layers(0, 1).parameters(), optimizer_class=optim.Adam, overlap_with_ddp=True)
    model = layers(0, 2)
    groups = [{"params": list(model[0].parameters())}, {"params": list(model[2].parameters()), "lr": 0.5}]
    zero = ZeroRedundancyOptimizer(groups, optimizer_class=optim.SGD, lr=0.1)  # groups while building: fine
    assert [g["lr"] for g in zero.optim.param_groups] == [0.1, 0.5]
    with pytest.raises(dist.DistributedError, match="dealt out to the ranks when it was built"):
        zero.add_param_group({"params": list(model[4].parameters())})


def test_point_to_point_errors(world_of_one):
    with pytest.raises(dist.DistributedError, match="other than this rank"):
        dist.send(minitorch.ones(2), 0)
    with pytest.raises(dist.DistributedError, match="src=None \\(any rank\\) is not supported"):
        dist.recv(minitorch.ones(2))
    group = ProcessGroup()
    group.backend = "nccl"
    with pytest.raises(dist.DistributedError, match="the nccl backend has no point-to-point"):
        group.isend(np.ones(2), 1, "x")
