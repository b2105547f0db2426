"""Run by ``test_model_parallel_failures.py``: ``mpiexec -n N python mp_failures.py CASE TIMEOUT OUT_DIR``.

Each case is one way for a model-parallel job to go wrong. Where the case catches the
error, every rank writes what it saw to ``OUT_DIR/rank<r>.json``; where it does not, the
job must end on its own, well within the process group's timeout (an uncaught exception
aborts every rank; a rank waiting for a transfer that never comes times out).
"""

import json
import sys
import time
from pathlib import Path

from mp_models import data, layers, mlp, stage_of

import minitorch
import minitorch.distributed as dist
from minitorch import nn
from minitorch.distributed.pipelining import PipelineStage, Schedule1F1B, ScheduleGPipe
from minitorch.distributed.tensor import init_device_mesh
from minitorch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module

CASES = {}
OUT = {"dir": Path(".")}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


def report(**facts):
    (OUT["dir"] / f"rank{dist.get_rank()}.json").write_text(json.dumps(facts))


def caught(call):
    try:
        call()
    except dist.DistributedError as exc:
        return {"type": type(exc).__name__, "message": str(exc)}
    return None


class GivesUp(nn.Module):
    """The identity, until microbatch ``at``: then it raises (a stage whose code fails mid-pipeline)."""

    def __init__(self, at):
        super().__init__()
        self.at, self.calls = at, 0

    def forward(self, x):
        self.calls += 1
        if self.calls > self.at:
            raise ValueError(f"stage {dist.get_rank()} gave up at microbatch {self.at}")
        return x


def pipeline(schedule_class=ScheduleGPipe, n_microbatches=4, failing_rank=None, at=2):
    rank, world = dist.get_rank(), dist.get_world_size()
    module = stage_of(layers(0, world), rank, world)
    if rank == failing_rank:
        module = nn.Sequential(GivesUp(at), module)
    stage = PipelineStage(module, rank, world, "cpu")
    schedule = schedule_class(stage, n_microbatches, loss_fn=nn.CrossEntropyLoss())
    x, y = data(n=8)
    if rank == 0:
        return schedule.step(x)
    if rank == world - 1:
        return schedule.step(target=y, losses=[])
    return schedule.step()


@case
def rank_dies_mid_pipeline():  # uncaught: the job must end with that rank's traceback
    pipeline(failing_rank=dist.get_world_size() // 2)
    print(f"rank {dist.get_rank()} finished its step", flush=True)


@case
def rank_stops_mid_pipeline():  # the failing rank catches its error and stays away: its peers time out
    try:
        pipeline(failing_rank=dist.get_world_size() - 1)
    except ValueError:
        time.sleep(60)  # alive, but no longer taking part (the others must not wait for it forever)


@case
def mismatched_tensor_parallel_plan():
    rank = dist.get_rank()
    mesh = init_device_mesh("cpu", (dist.get_world_size(),))
    plan = ({"fc1": ColwiseParallel(), "fc2": RowwiseParallel()} if rank == 0 else
            {"fc1": RowwiseParallel(), "fc2": ColwiseParallel()})
    error = caught(lambda: parallelize_module(mlp(seed=0), mesh, plan))
    # the group still works: a plan every rank shares goes through
    model = parallelize_module(mlp(seed=0), mesh, {"fc1": ColwiseParallel(), "fc2": RowwiseParallel()})
    out = model(minitorch.ones(2, 6, dtype=minitorch.float64))
    report(error=error, after=list(out.shape))


@case
def mismatched_pipeline_settings():
    rank = dist.get_rank()
    microbatches = caught(lambda: pipeline(n_microbatches=4 if rank == 0 else 2))
    schedules = caught(lambda: pipeline(schedule_class=ScheduleGPipe if rank == 0 else Schedule1F1B))
    report(microbatches=microbatches, schedules=schedules)


@case
def point_to_point_shapes_differ():
    rank = dist.get_rank()
    if rank == 0:
        error = caught(lambda: dist.send(minitorch.ones(3), 1))
        dist.send(minitorch.ones(2) * 5, 1)
        after = None
    elif rank == 1:
        error = caught(lambda: dist.recv(minitorch.zeros(4), 0))
        after = minitorch.zeros(2)
        dist.recv(after, 0)
        after = after.tolist()
    else:
        error = after = None
    report(error=error, after=after)


if __name__ == "__main__":
    name, timeout, OUT["dir"] = sys.argv[1], float(sys.argv[2]), Path(sys.argv[3])
    dist.init_process_group("mpi", timeout=timeout)
    CASES[name]()
    dist.destroy_process_group()
