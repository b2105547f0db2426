"""Run on several ranks by ``test_model_parallel.py``: ``mpiexec -n N python mp_scenarios.py OUT.json``.

Tensor parallel, pipeline parallel and ZeRO-1, each against the same float64 model in one
process. Every rank runs every scenario in the same order; a scenario returns facts (the
ranks' facts gathered where they differ) that rank 0 writes to ``OUT.json``. A scenario
that raises records its traceback instead, so one broken scenario does not hide the others.
"""

import json
import sys
import traceback
import warnings

import numpy as np
from mp_models import attention, data, flat, layers, max_difference, mlp, stage_of

import minitorch
import minitorch.distributed as dist
from minitorch import nn, optim
from minitorch.distributed.optim import ZeroRedundancyOptimizer
from minitorch.distributed.pipelining import PipelineStage, Schedule1F1B, ScheduleGPipe
from minitorch.distributed.tensor import DTensor, init_device_mesh
from minitorch.distributed.tensor.debug import CommDebugMode
from minitorch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module

SCENARIOS = {}


def scenario(fn):
    SCENARIOS[fn.__name__] = fn
    return fn


def everyone(value):
    """Every rank's ``value``, as a list indexed by rank."""
    return dist.current_group().allgather_object(value)


def caught(call):
    try:
        call()
    except dist.DistributedError as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


# ---------------------------------------------------------------------- tensor parallel
def grads_against(model, reference):
    """Largest difference between each parameter's gathered gradient and the reference's."""
    return max(max_difference(p.grad.full_tensor().numpy(), q.grad.numpy())
               for p, q in zip(model.parameters(), reference.parameters()))


@scenario
def tp_mlp():
    rank, world = dist.get_rank(), dist.get_world_size()
    mesh = init_device_mesh("cpu", (world,))
    model = mlp(seed=100 + rank)  # a different init on every rank: rank 0's must win
    parallelize_module(model, mesh, {"fc1": ColwiseParallel(), "fc2": RowwiseParallel()})
    reference = mlp(seed=100)
    x = minitorch.tensor(np.random.default_rng(0).normal(size=(4, 6)), requires_grad=True)
    x_ref = minitorch.tensor(x.detach().numpy().copy(), requires_grad=True)
    with CommDebugMode() as forward_comms:
        y = model(x)
    with CommDebugMode() as backward_comms:
        y.square().sum().backward()
    reference(x_ref).square().sum().backward()
    return {
        "world": world,
        "output": max_difference(y.detach().numpy(), reference(x_ref).detach().numpy()),
        "output_is_plain": type(y) is minitorch.Tensor,
        "input_grad": max(everyone(max_difference(x.grad.numpy(), x_ref.grad.numpy()))),
        "param_grads": max(everyone(grads_against(model, reference))),
        "placements": {n: [repr(p.placements), list(p.shape), list(p.to_local().shape)]
                       for n, p in model.named_parameters()},
        "grads_are_dtensors": all(isinstance(p.grad, DTensor) and p.grad.placements == p.placements
                                  for p in model.parameters()),
        "forward_comms": forward_comms.get_comm_counts(), "backward_comms": backward_comms.get_comm_counts(),
        "forward_bytes": forward_comms.get_comm_bytes(), "backward_bytes": backward_comms.get_comm_bytes(),
        "rank0_weights": bool(np.array_equal(model.fc2.bias.to_local().detach().numpy(),
                                             reference.fc2.bias.detach().numpy())),
    }


@scenario
def tp_optimizers():
    """SGD with momentum, Adam and AdamW step the DTensor parameters as one process steps the whole ones."""
    world = dist.get_world_size()
    mesh = init_device_mesh("cpu", (world,))
    x = minitorch.tensor(np.random.default_rng(3).normal(size=(5, 6)))
    results = {}
    for name, make in (("SGD", lambda ps: optim.SGD(ps, lr=0.1, momentum=0.9)),
                       ("Adam", lambda ps: optim.Adam(ps, lr=0.05)),
                       ("AdamW", lambda ps: optim.AdamW(ps, lr=0.05, weight_decay=0.1))):
        model = parallelize_module(mlp(seed=7), mesh, {"fc1": ColwiseParallel(), "fc2": RowwiseParallel()})
        reference = mlp(seed=7)
        opt, ref_opt = make(model.parameters()), make(reference.parameters())
        for _ in range(3):
            for m, o in ((model, opt), (reference, ref_opt)):
                o.zero_grad()
                m(x).square().mean().backward()
                o.step()
        moved = max_difference(flat(p.detach().numpy() for p in reference.parameters()),
                               flat(p.detach().numpy() for p in mlp(seed=7).parameters()))
        got = flat(p.full_tensor().detach().numpy() for p in model.parameters())
        want = flat(p.detach().numpy() for p in reference.parameters())
        results[name] = {"difference": max(everyone(max_difference(got, want))), "moved": moved}
    return results


@scenario
def tp_clip_grad_norm():
    """clip_grad_norm_ over DTensor gradients is the whole gradient's norm, the same on every rank."""
    world = dist.get_world_size()
    mesh = init_device_mesh("cpu", (world,))
    x = minitorch.tensor(np.random.default_rng(4).normal(size=(5, 6)))
    results = {}
    for norm_type in (2.0, 1.0, float("inf")):
        model = parallelize_module(mlp(seed=8), mesh, {"fc1": ColwiseParallel(), "fc2": RowwiseParallel()})
        reference = mlp(seed=8)
        for m in (model, reference):
            (m(x).square().sum() * 10).backward()
        total = nn.utils.clip_grad_norm_(model.parameters(), max_norm=0.5, norm_type=norm_type).item()
        want = nn.utils.clip_grad_norm_(reference.parameters(), max_norm=0.5, norm_type=norm_type).item()
        results[str(norm_type)] = {"total": max(everyone(abs(total - want) / want)), "clipped": want > 0.5,
                                   "grads": max(everyone(grads_against(model, reference)))}
    return results


@scenario
def tp_attention():
    rank, world = dist.get_rank(), dist.get_world_size()
    mesh = init_device_mesh("cpu", (world,))
    block = attention(seed=20 + rank)
    parallelize_module(block, mesh, {"q": ColwiseParallel(), "k": ColwiseParallel(), "v": ColwiseParallel(),
                                     "out": RowwiseParallel()})
    reference = attention(seed=20)
    x = minitorch.tensor(np.random.default_rng(5).normal(size=(2, 3, 16)), requires_grad=True)
    x_ref = minitorch.tensor(x.detach().numpy().copy(), requires_grad=True)
    with CommDebugMode() as comms:
        y = block(x)
        y.square().sum().backward()
    y_ref = reference(x_ref)
    y_ref.square().sum().backward()
    return {"output": max_difference(y.detach().numpy(), y_ref.detach().numpy()),
            "input_grad": max(everyone(max_difference(x.grad.numpy(), x_ref.grad.numpy()))),
            "param_grads": max(everyone(grads_against(block, reference))),
            "local_heads": block.q.weight.to_local().shape[0] // block.head_dim,
            "comms": comms.get_comm_counts()}


@scenario
def tp_plan_key_naming_nothing_warns():
    mesh = init_device_mesh("cpu", (dist.get_world_size(),))
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        model = parallelize_module(mlp(seed=1), mesh, {"fc1": ColwiseParallel(), "fc3": RowwiseParallel()})
    return {"warnings": [str(w.message) for w in seen], "fc1_split": isinstance(model.fc1.weight, DTensor),
            "fc2_untouched": not isinstance(model.fc2.weight, DTensor)}


@scenario
def tp_indivisible_features():
    world = dist.get_world_size()
    mesh = init_device_mesh("cpu", (world,))
    errors = everyone(caught(lambda: parallelize_module(mlp(seed=1, hidden=2 * world + 1), mesh,
                                                        {"fc1": ColwiseParallel(), "fc2": RowwiseParallel()})))
    return {"errors": errors}


# ---------------------------------------------------------------------- pipeline parallel
def run_pipeline(schedule_class, n_microbatches=4, scale_grads=True, batch=8, seed=0):
    rank, world = dist.get_rank(), dist.get_world_size()
    full = layers(seed, world)
    stage = PipelineStage(stage_of(full, rank, world), rank, world, "cpu")
    schedule = schedule_class(stage, n_microbatches, loss_fn=nn.CrossEntropyLoss(), scale_grads=scale_grads)
    x, y = data(n=batch)
    losses = []
    if rank == 0:
        out = schedule.step(x)
    elif rank == world - 1:
        out = schedule.step(target=y, losses=losses)
    else:
        out = schedule.step()
    return full, stage, schedule, x, y, out, losses


@scenario
def pipeline_against_one_process():
    rank, world = dist.get_rank(), dist.get_world_size()
    results = {}
    for schedule_class in (ScheduleGPipe, Schedule1F1B):
        for scale_grads in (True, False):
            full, stage, schedule, x, y, out, losses = run_pipeline(schedule_class, scale_grads=scale_grads)
            reference = layers(0, world)
            loss_fn = nn.CrossEntropyLoss()
            loss_fn(reference(x), y).backward()
            mine = {id(p) for p in stage.submod.parameters()}
            pairs = [(p, q) for p, q in zip(full.parameters(), reference.parameters()) if id(p) in mine]
            factor = 1 if scale_grads else 4  # without scaling: the sum of the 4 microbatches' mean gradients
            grads = max(max_difference(p.grad.numpy(), factor * q.grad.numpy()) for p, q in pairs)
            facts = {"grads": max(everyone(grads)), "params_per_stage": everyone(len(pairs)),
                     "order": everyone([[e.kind, e.microbatch] for e in schedule.timeline]),
                     "expected_order": [schedule_class.order(world, 4, s) for s in range(world)],
                     "times_ordered": all(everyone(all(e.start <= e.end for e in schedule.timeline) and all(
                         a.end <= b.start + 1e-9 for a, b in zip(schedule.timeline, schedule.timeline[1:])))),
                     "peak_in_flight": everyone(stage.peak_in_flight)}
            if rank == world - 1:
                microbatch_losses = [loss_fn(reference(xb), yb).item() for xb, yb in zip(x.chunk(4), y.chunk(4))]
                facts.update(output=max_difference(out.numpy(), reference(x).detach().numpy()),
                             output_shape=list(out.shape),
                             losses=max_difference([v.item() for v in losses], microbatch_losses),
                             loss_dims=[v.ndim for v in losses])
            facts = {**facts, **(everyone(facts if rank == world - 1 else None)[-1])}
            facts["returned_elsewhere"] = everyone(out is None if rank != world - 1 else None)[:-1]
            results[f"{schedule_class.__name__}, scale_grads={scale_grads}"] = facts
    return results


@scenario
def pipeline_batch_that_microbatches_do_not_divide():
    rank, world = dist.get_rank(), dist.get_world_size()
    errors = everyone(caught(lambda: run_pipeline(ScheduleGPipe, n_microbatches=4, batch=10)))
    # the group still works: the next step, with a batch that divides, is right
    _, _, _, _, _, out, _ = run_pipeline(ScheduleGPipe, n_microbatches=4, batch=8)
    return {"errors": errors, "next_step_ok": everyone(out is not None) == [r == world - 1 for r in range(world)],
            "rank": rank}


@scenario
def one_f_one_b_needs_a_microbatch_per_stage():
    rank, world = dist.get_rank(), dist.get_world_size()
    stage = PipelineStage(stage_of(layers(0, world), rank, world), rank, world, "cpu")
    return {"errors": everyone(caught(lambda: Schedule1F1B(stage, world - 1, loss_fn=nn.CrossEntropyLoss())))}


# ---------------------------------------------------------------------- ZeRO-1
def state_bytes(optimizer):
    return sum(a.nbytes for s in optimizer.state.values() for a in s.values() if isinstance(a, np.ndarray))


@scenario
def zero_with_ddp_against_one_process():
    rank, world = dist.get_rank(), dist.get_world_size()
    results = {}
    x, y = data(n=16)
    loss_fn = nn.CrossEntropyLoss()
    for name, cls, kwargs in (("Adam", optim.Adam, {"lr": 0.01}), ("AdamW", optim.AdamW, {"lr": 0.01,
                                                                                           "weight_decay": 0.1}),
                              ("SGD", optim.SGD, {"lr": 0.1, "momentum": 0.9})):
        model = layers(50 + rank, 2)  # different inits: DDP starts every rank from rank 0's
        ddp = nn.parallel.DistributedDataParallel(model)
        zero = ZeroRedundancyOptimizer(model.parameters(), optimizer_class=cls, **kwargs)
        reference = layers(50, 2)
        ref_opt = cls(reference.parameters(), **kwargs)
        part = 16 // world
        for _ in range(4):
            zero.zero_grad()
            loss_fn(ddp(x[rank * part:(rank + 1) * part]), y[rank * part:(rank + 1) * part]).backward()
            zero.step()
            ref_opt.zero_grad()
            loss_fn(reference(x), y).backward()
            ref_opt.step()
        params = flat(p.detach().numpy() for p in model.parameters())
        copies = everyone(params)
        owned = everyone(sorted(i for i, p in enumerate(model.parameters()) if any(p is q for g in
                                zero.optim.param_groups for q in g["params"])))
        results[name] = {
            "difference": max(everyone(max_difference(params, flat(p.detach().numpy()
                                                                   for p in reference.parameters())))),
            "across_ranks": max(max_difference(c, copies[0]) for c in copies),
            "owned": owned, "state_bytes": everyone(state_bytes(zero.optim)), "one_process_bytes": state_bytes(ref_opt),
        }
    return results


@scenario
def zero_same_gradients_same_bits():
    """Given the same gradients as one process, ZeRO's parameters are Adam's to the bit."""
    model, reference = layers(9, 2), layers(9, 2)
    zero = ZeroRedundancyOptimizer(model.parameters(), optimizer_class=optim.Adam, lr=0.01)
    ref_opt = optim.Adam(reference.parameters(), lr=0.01)
    x, y = data(n=8)
    for _ in range(3):
        for m, o in ((model, zero), (reference, ref_opt)):
            o.zero_grad()
            nn.CrossEntropyLoss()(m(x), y).backward()
            o.step()
    zero.consolidate_state_dict(to=0)
    facts = {"difference": max(everyone(max_difference(flat(p.detach().numpy() for p in model.parameters()),
                                                       flat(p.detach().numpy() for p in reference.parameters()))))}
    if dist.get_rank() == 0:
        whole, want = zero.state_dict(), ref_opt.state_dict()
        facts["state_keys"] = [sorted(whole["state"]), sorted(want["state"])]
        facts["state"] = max(max_difference(whole["state"][i][k].numpy(), want["state"][i][k].numpy())
                             for i in want["state"] for k in ("exp_avg", "exp_avg_sq"))
        facts["steps"] = sorted({int(s["step"]) for s in whole["state"].values()})
        facts["elsewhere"] = None
    else:
        try:
            zero.state_dict()
            facts["elsewhere"] = "no error"
        except RuntimeError as exc:
            facts["elsewhere"] = str(exc)
    facts["elsewhere"] = everyone(facts["elsewhere"])
    return facts


# ---------------------------------------------------------------------- point to point
@scenario
def send_and_receive_around_a_ring():
    rank, world = dist.get_rank(), dist.get_world_size()
    right, left = (rank + 1) % world, (rank - 1) % world
    sent = minitorch.arange(6.0).reshape(2, 3) * (rank + 1)
    got = minitorch.zeros(2, 3)
    work = dist.isend(sent, right, tag=7)
    dist.recv(got, left, tag=7)
    work.wait()
    return {"got_left": everyone(max_difference(got.numpy(), np.arange(6.0).reshape(2, 3) * (left + 1)))}


def main(out_path, names):
    dist.init_process_group("mpi", timeout=60)
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
