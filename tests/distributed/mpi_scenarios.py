"""Run on several ranks by ``test_mpi.py``: ``mpiexec -n 2 python mpi_scenarios.py OUT.json [names]``.

Every rank runs every scenario in the same order (collectives must match across ranks);
each returns a dict of facts that rank 0 writes to ``OUT.json`` for the tests to assert on.
A scenario that raises records its traceback instead, so one broken scenario does not
hide the others.
"""

import json
import sys
import traceback

import numpy as np

import minitorch
import minitorch.distributed as dist
from minitorch import nn
from minitorch.data import DataLoader, DistributedSampler, TensorDataset

SCENARIOS = {}


def scenario(fn):
    SCENARIOS[fn.__name__] = fn
    return fn


def all_ranks_data(shape, dtype=np.float64):
    """Each rank's input (rank r seeds with r), so any rank can compute the expected results."""
    world = dist.get_world_size()
    return [np.random.default_rng(r).normal(size=shape).astype(dtype) for r in range(world)]


@scenario
def collectives():
    rank, world = dist.get_rank(), dist.get_world_size()
    data = all_ranks_data((3, 4))
    stacked = np.stack(data)
    expected = {"SUM": stacked.sum(0), "MAX": stacked.max(0), "MIN": stacked.min(0), "PRODUCT": stacked.prod(0),
                "AVG": stacked.mean(0)}
    errors = {}
    for name, want in expected.items():
        t = minitorch.tensor(data[rank])
        dist.all_reduce(t, op=getattr(dist.ReduceOp, name))
        errors[name] = float(np.abs(t.numpy() - want).max())
    ints = minitorch.tensor(np.arange(5) * (rank + 1))
    dist.all_reduce(ints)
    scalar = minitorch.tensor(float(rank + 1))
    dist.all_reduce(scalar, op=dist.ReduceOp.MAX)
    base = minitorch.tensor(data[rank])  # a transposed view: not contiguous
    view = base.t()
    dist.all_reduce(view)
    t = minitorch.tensor(data[rank])
    work = dist.all_reduce(t, async_op=True)
    work.wait()
    b = minitorch.tensor(data[rank])
    dist.broadcast(b, src=world - 1)
    gathered = [minitorch.zeros(3, 4, dtype=minitorch.float64) for _ in range(world)]
    dist.all_gather(gathered, minitorch.tensor(data[rank]))
    dist.barrier()
    return {
        "errors": errors,
        "ints": ints.tolist(), "ints_expected": (np.arange(5) * sum(range(1, world + 1))).tolist(),
        "scalar": scalar.item(),
        "view_error": float(np.abs(base.numpy() - expected["SUM"]).max()),
        "async_error": float(np.abs(t.numpy() - expected["SUM"]).max()),
        "broadcast_error": float(np.abs(b.numpy() - data[world - 1]).max()),
        "gather_error": max(float(np.abs(g.numpy() - d).max()) for g, d in zip(gathered, data)),
        "world": world,
    }


@scenario
def debug_mismatch():
    """Checked always now (it was debug mode only): the ranks' headers are compared first."""
    try:
        t = minitorch.zeros(3 + dist.get_rank())
        dist.all_reduce(t)
    except dist.DistributedError as exc:
        return {"raised": True, "message": str(exc)}
    return {"raised": False, "message": ""}


def make_model(seed, dtype=minitorch.float64, hidden=16):
    minitorch.manual_seed(seed)
    return nn.Sequential(nn.Linear(6, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                         nn.Linear(hidden, 3)).to(dtype=dtype)


def flat_params(model):
    return np.concatenate([p.detach().cpu().numpy().ravel() for p in model.parameters()])


@scenario
def ddp_syncs_initial_parameters():
    model = make_model(seed=100 + dist.get_rank())  # different on every rank
    before = dist.current_group().allgather_object(flat_params(model))
    ddp = nn.parallel.DistributedDataParallel(model)
    after = dist.current_group().allgather_object(flat_params(model))
    return {
        "differed_before": bool(np.abs(before[0] - before[-1]).max() > 1e-3),
        "max_difference_after": max(float(np.abs(a - after[0]).max()) for a in after),
        "equals_rank0_init": bool(np.array_equal(after[0], before[0])),
        "module_is_model": ddp.module is model,
    }


def regression_data(n=96):
    rng = np.random.default_rng(7)
    X = rng.normal(size=(n, 6))
    y = rng.integers(0, 3, size=n)
    return TensorDataset(minitorch.tensor(X), minitorch.tensor(y))


@scenario
def ddp_matches_one_process():
    """N ranks with per-rank batch B/N end where one process with batch B ends."""
    world, batch, epochs = dist.get_world_size(), 16, 2
    data = regression_data()
    loss_fn = nn.CrossEntropyLoss()
    model = make_model(seed=0)
    ddp = nn.parallel.DistributedDataParallel(model, bucket_cap_mb=0.001)
    opt = minitorch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    sampler = DistributedSampler(data, shuffle=True, seed=3)
    loader = DataLoader(data, batch_size=batch // world, sampler=sampler)
    reference = make_model(seed=0)
    ref_opt = minitorch.optim.SGD(reference.parameters(), lr=0.1, momentum=0.9)
    steps = 0
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for xb, yb in loader:
            opt.zero_grad()
            loss_fn(ddp(xb), yb).backward()
            opt.step()
            steps += 1
        # the one-process run: global batches of B over the same global order
        order = sampler.global_order()
        for start in range(0, len(order), batch):
            xb, yb = data.take(order[start : start + batch])
            ref_opt.zero_grad()
            loss_fn(reference(xb), yb).backward()
            ref_opt.step()
    moved = float(np.abs(flat_params(model) - flat_params(make_model(seed=0))).max())
    return {"max_difference": float(np.abs(flat_params(model) - flat_params(reference)).max()),
            "moved": moved, "steps": steps}


@scenario
def ddp_overlaps_backward():
    model = make_model(seed=0, hidden=32)
    ddp = nn.parallel.DistributedDataParallel(model, bucket_cap_mb=0.002)  # ~2 KB: several buckets
    x = minitorch.randn(8, 6, dtype=minitorch.float64)
    ddp(x).sum().backward()
    return {"events": [[kind, str(what)] for kind, what in ddp.events], "buckets": len(ddp._buckets)}


@scenario
def ddp_no_sync_accumulates():
    rank, world = dist.get_rank(), dist.get_world_size()
    model = make_model(seed=0)
    ddp = nn.parallel.DistributedDataParallel(model)
    xs = [minitorch.tensor(a) for a in all_ranks_data((2, 4, 6))]
    with ddp.no_sync():
        ddp(xs[rank][0]).sum().backward()
    local_after_no_sync = flat_grads(model)
    ddp(xs[rank][1]).sum().backward()
    got = flat_grads(model)
    reference = make_model(seed=0)
    for r in range(world):  # the sum over every rank's two micro-batches, then / world
        reference(xs[r][0]).sum().backward()
        reference(xs[r][1]).sum().backward()
    want = flat_grads(reference) / world
    mine = make_model(seed=0)
    mine(xs[rank][0]).sum().backward()
    return {"error": float(np.abs(got - want).max()),
            "no_sync_kept_local": float(np.abs(local_after_no_sync - flat_grads(mine)).max())}


def flat_grads(model):
    return np.concatenate([p.grad.cpu().numpy().ravel() for p in model.parameters()])


@scenario
def nccl_with_fake_cupy():
    """The nccl backend's plumbing (pointers, counts, dtypes) against a fake NCCL over MPI."""
    from fake_cupy import FakeCupy, modules
    from fake_nccl import CALLS, install

    from minitorch import backends

    replaced = {name: sys.modules.get(name) for name in ("cupy", "cupyx", "cupyx.scipy", "cupyx.scipy.special")}
    sys.modules.update(modules(install(FakeCupy())))
    backends.reset_probes()
    dist.destroy_process_group()
    dist.init_process_group("nccl")
    try:
        rank, world = dist.get_rank(), dist.get_world_size()
        data = all_ranks_data((5,), np.float32)
        t = minitorch.tensor(data[rank]).to("cuda")
        dist.all_reduce(t, op=dist.ReduceOp.AVG)
        sum_error = float(np.abs(t.cpu().numpy() - np.mean(data, 0)).max())
        gathered = [minitorch.zeros(5, device="cuda") for _ in range(world)]
        dist.all_gather(gathered, minitorch.tensor(data[rank]).to("cuda"))
        model = make_model(seed=rank, dtype=minitorch.float32).to("cuda")
        ddp = nn.parallel.DistributedDataParallel(model)
        ddp(minitorch.tensor(all_ranks_data((4, 6), np.float32)[rank]).to("cuda")).sum().backward()
        grads = dist.current_group().mpi.allgather_object(flat_grads(model))
        return {"sum_error": sum_error, "device": t.device,
                "gather_error": max(float(np.abs(g.cpu().numpy() - d).max()) for g, d in zip(gathered, data)),
                "grads_agree": max(float(np.abs(g - grads[0]).max()) for g in grads),
                "calls": sorted({name for name, _ in CALLS})}
    finally:
        dist.destroy_process_group()
        dist.init_process_group("mpi")
        for name, module in replaced.items():  # the real modules back (or none)
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module
        backends.reset_probes()


def main(out_path, names):
    dist.init_process_group("mpi")
    results = {}
    for name in names or list(SCENARIOS):
        try:
            results[name] = SCENARIOS[name]()
        except Exception:
            results[name] = {"error": traceback.format_exc()}
        dist.barrier()
    if dist.get_rank() == 0:
        with open(out_path, "w") as f:
            json.dump(results, f, indent=1)
    dist.destroy_process_group()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
