"""``minitorch.distributed`` in this one process: errors, world size 1, the sampler, NCCL's fake.

Without ``mpiexec`` MPI starts as a "singleton": a world of one rank, where every
collective is the identity. That is enough for the errors and the bookkeeping; the
real exchanges between ranks are in ``test_mpi.py``.
"""

import sys

import numpy as np
import pytest
from conftest import require_mpi

import minitorch
import minitorch.distributed as dist
from minitorch import backends, nn
from minitorch.data import DataLoader, DistributedSampler, TensorDataset


@pytest.fixture
def world_of_one():
    require_mpi()
    dist.init_process_group("mpi")
    yield
    dist.destroy_process_group()


# ---------------------------------------------------------------------- errors
def test_without_mpi4py_the_error_gives_the_pip_command(monkeypatch):
    monkeypatch.setitem(sys.modules, "mpi4py", None)  # makes ``import mpi4py`` fail
    monkeypatch.setitem(sys.modules, "mpi4py.MPI", None)
    with pytest.raises(dist.DistributedError, match="mpi4py") as info:
        dist.init_process_group("mpi")
    assert 'pip install "mpi4py>=4" "mpich>=4"' in str(info.value)
    assert not dist.is_initialized()


@pytest.mark.parametrize("call", [
    dist.get_rank, dist.get_world_size, dist.barrier,
    lambda: dist.all_reduce(minitorch.ones(2)),
    lambda: dist.broadcast(minitorch.ones(2), 0),
    lambda: nn.parallel.DistributedDataParallel(nn.Linear(2, 2)),
    lambda: DistributedSampler(range(4)),
])
def test_using_the_group_before_init_is_an_error_that_says_init(call):
    with pytest.raises(dist.DistributedError, match="init_process_group"):
        call()


def test_unknown_backend_and_double_init(world_of_one):
    with pytest.raises(dist.DistributedError, match="already initialized"):
        dist.init_process_group("mpi")
    dist.destroy_process_group()
    with pytest.raises(dist.DistributedError, match="unknown backend 'gloo'"):
        dist.init_process_group("gloo")
    with pytest.raises(dist.DistributedError, match="world_size=4"):
        dist.init_process_group("mpi", world_size=4)
    dist.init_process_group("mpi", rank=0, world_size=1)


def test_nccl_without_a_gpu_says_why(monkeypatch):
    require_mpi()
    monkeypatch.setitem(sys.modules, "cupy", None)
    backends.reset_probes()
    try:
        with pytest.raises(dist.DistributedError, match="needs a GPU"):
            dist.init_process_group("nccl")
    finally:
        monkeypatch.undo()
        backends.reset_probes()
    assert not dist.is_initialized()


# ---------------------------------------------------------------------- one rank
def test_world_of_one(world_of_one):
    assert (dist.get_rank(), dist.get_world_size(), dist.get_backend()) == (0, 1, "mpi")
    t = minitorch.tensor([1.0, 2.0])
    dist.all_reduce(t, op=dist.ReduceOp.AVG)
    assert t.tolist() == [1.0, 2.0] and t._version == 1  # changed in place, as far as autograd knows
    with pytest.raises(dist.DistributedError, match="AVG needs a floating-point"):
        dist.all_reduce(minitorch.tensor([1, 2]), op=dist.ReduceOp.AVG)
    with pytest.raises(TypeError, match="ReduceOp"):
        dist.all_reduce(t, op="sum")
    with pytest.raises(dist.DistributedError, match="src must be a rank between 0 and 0"):
        dist.broadcast(t, src=1)
    with pytest.raises(dist.DistributedError, match="world_size=1"):
        dist.all_gather([t, t], t)


def test_ddp_on_one_rank_trains_exactly_like_the_plain_model(world_of_one):
    def run(wrap):
        minitorch.manual_seed(0)
        model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
        net = nn.parallel.DistributedDataParallel(model, bucket_cap_mb=0.0001) if wrap else model
        opt = minitorch.optim.SGD(model.parameters(), lr=0.1)
        x = minitorch.randn(16, 4)
        for _ in range(3):
            opt.zero_grad()
            net(x).pow(2).mean().backward()
            opt.step()
        return [p.detach().numpy().copy() for p in model.parameters()]

    for a, b in zip(run(True), run(False)):
        np.testing.assert_array_equal(a, b)


def test_ddp_state_dict_has_the_module_prefix_and_module_is_the_model(world_of_one):
    model = nn.Linear(2, 3)
    ddp = nn.parallel.DistributedDataParallel(model)
    assert ddp.module is model
    assert list(ddp.state_dict()) == ["module.weight", "module.bias"]
    with pytest.raises(ValueError, match="bucket_cap_mb"):
        nn.parallel.DistributedDataParallel(model, bucket_cap_mb=0)


def test_nccl_backend_on_one_fake_gpu(world_of_one, monkeypatch):
    # Unverified on real GPUs: the fake NCCL does its reductions with MPI on host memory.
    import fake_cupy
    from fake_cupy import FakeCupy, FakeDeviceArray
    from fake_nccl import CALLS, install

    monkeypatch.setattr(FakeDeviceArray, "__cuda_array_interface__", None, raising=False)
    fake_cupy.install(monkeypatch, install(FakeCupy()))
    backends.reset_probes()
    dist.destroy_process_group()
    try:
        dist.init_process_group("nccl")
        t = minitorch.tensor([1.0, 2.0]).to("cuda")
        dist.all_reduce(t, op=dist.ReduceOp.MAX)
        assert t.cpu().tolist() == [1.0, 2.0] and ("allReduce", 2) in CALLS
        with pytest.raises(dist.DistributedError, match="works on cuda tensors"):
            dist.all_reduce(minitorch.ones(2))
        with pytest.raises(dist.DistributedError, match="cannot reduce bool"):
            dist.all_reduce(minitorch.ones(2, dtype=minitorch.bool_).to("cuda"))
    finally:
        dist.destroy_process_group()
        monkeypatch.undo()
        backends.reset_probes()
        dist.init_process_group("mpi")  # the fixture's teardown destroys it


# ---------------------------------------------------------------------- the sampler
def shares(n, replicas, **kw):
    return [list(DistributedSampler(range(n), num_replicas=replicas, rank=r, **kw)) for r in range(replicas)]


def test_unshuffled_shares_are_pytorchs():
    assert shares(10, 3, shuffle=False) == [[0, 3, 6, 9], [1, 4, 7, 0], [2, 5, 8, 1]]  # padded
    assert shares(10, 3, shuffle=False, drop_last=True) == [[0, 3, 6], [1, 4, 7], [2, 5, 8]]
    assert shares(2, 5, shuffle=False) == [[0], [1], [0], [1], [0]]  # padding longer than the data
    torch = pytest.importorskip("torch")
    from torch.utils.data import DistributedSampler as TorchSampler

    for n, replicas, drop_last in [(10, 3, False), (10, 3, True), (7, 4, False), (2, 5, False), (12, 4, True)]:
        want = [list(TorchSampler(range(n), replicas, r, shuffle=False, drop_last=drop_last))
                for r in range(replicas)]
        assert shares(n, replicas, shuffle=False, drop_last=drop_last) == want, (n, replicas, drop_last)
    del torch


def test_shuffled_shares_are_disjoint_cover_the_data_and_change_with_the_epoch():
    a = shares(12, 3, seed=5)
    assert sorted(sum(a, [])) == list(range(12)) and a != shares(12, 3, shuffle=False)
    assert a == shares(12, 3, seed=5)  # every rank draws the same permutation
    sampler = DistributedSampler(range(12), num_replicas=3, rank=1, seed=5)
    sampler.set_epoch(1)
    assert list(sampler) != a[1] and len(sampler) == 4


def test_sampler_argument_errors():
    with pytest.raises(ValueError, match=r"rank should be in the interval \[0, 1\]"):
        DistributedSampler(range(4), num_replicas=2, rank=2)
    with pytest.raises(ValueError, match="num_replicas"):
        DistributedSampler(range(4), num_replicas=0, rank=0)
    with pytest.raises(ValueError, match="mutually exclusive with shuffle"):
        DataLoader(range(4), sampler=[0, 1], shuffle=True)


def test_dataloader_loads_the_samplers_share_in_batches():
    ds = TensorDataset(minitorch.arange(10))
    loader = DataLoader(ds, batch_size=2, sampler=DistributedSampler(ds, num_replicas=2, rank=1, shuffle=False))
    assert [b[0].tolist() for b in loader] == [[1, 3], [5, 7], [9]] and len(loader) == 3


def test_import_minitorch_works_without_mpi4py():
    import subprocess

    code = ("import sys; sys.modules['mpi4py'] = None\n"
            "import minitorch, minitorch.distributed as dist\n"
            "print(dist.is_initialized(), minitorch.nn.parallel.DistributedDataParallel.__name__)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "DistributedDataParallel"]


def test_destroy_before_init_raises_as_pytorch():
    with pytest.raises(AssertionError):
        dist.destroy_process_group()
    with pytest.raises(dist.DistributedError, match="init_process_group"):
        dist.destroy_process_group()
    torch_dist = pytest.importorskip("torch.distributed")
    with pytest.raises(AssertionError):  # PyTorch 2.13: "Process group cannot be None"
        torch_dist.destroy_process_group()


def test_timeout_takes_a_timedelta_or_seconds_and_refuses_the_rest():
    import datetime

    require_mpi()
    for good in (datetime.timedelta(seconds=5), 2.5, 3):
        dist.init_process_group("mpi", timeout=good)
        dist.all_reduce(minitorch.ones(2))  # a world of one: nothing to wait for
        dist.destroy_process_group()
    for bad in (0, -1.0, "30s", True, datetime.timedelta(0)):
        with pytest.raises(dist.DistributedError, match="timeout must be a positive"):
            dist.init_process_group("mpi", timeout=bad)
        assert not dist.is_initialized()
