"""Tensor parallelism's communication, counted: a Megatron MLP's training step on 2 ranks.

    .venv/bin/python bench/tp_comm.py

The MLP is Linear(d, 4d) - GELU - Linear(4d, d) with d = ``--dim``, float32, parallelized
with ``{"fc1": ColwiseParallel(), "fc2": RowwiseParallel()}``; its input (``--tokens`` rows)
requires grad, as inside a model. ``CommDebugMode`` counts what one step sends: the lesson
predicts one all-reduce of the output in forward (tokens x d floats), one of the input's
gradient in backward (tokens x d floats) and none in the optimizer step (Adam on each rank's
shards). Target: the counted bytes equal the prediction. The step's time against one
process is printed too (informative only: 2 ranks on a shared 2-core machine).
"""

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from _machine import start_report  # noqa: E402
from _ranks import on_ranks  # noqa: E402

import minitorch  # noqa: E402
import minitorch.distributed as dist  # noqa: E402
from minitorch import nn, optim  # noqa: E402
from minitorch.distributed.tensor import init_device_mesh  # noqa: E402
from minitorch.distributed.tensor.debug import CommDebugMode  # noqa: E402
from minitorch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module  # noqa: E402


def make_mlp(dim):
    minitorch.manual_seed(0)
    mlp = nn.Sequential()
    mlp.fc1, mlp.act, mlp.fc2 = nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim)
    return mlp


def step(mlp, opt, x):
    """One step; the communication of each phase, as {op: [count, bytes]}."""
    phases = {}
    for phase in ("forward", "backward", "optimizer"):
        with CommDebugMode() as comm:
            if phase == "forward":
                out = mlp(x)
            elif phase == "backward":
                out.square().mean().backward()
            else:
                opt.step()
                opt.zero_grad()
        counts, sizes = comm.get_comm_counts(), comm.get_comm_bytes()
        phases[phase] = {op: [counts[op], sizes[op]] for op in counts}
    return phases


def seconds_per_step(mlp, opt, x, steps):
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        out = mlp(x)
        out.square().mean().backward()
        opt.step()
        opt.zero_grad()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def worker(dim, tokens, steps):
    dist.init_process_group("mpi")
    mesh = init_device_mesh("cpu", (dist.get_world_size(),))
    x = minitorch.randn(tokens, dim, requires_grad=True)
    mlp = parallelize_module(make_mlp(dim), mesh, {"fc1": ColwiseParallel(), "fc2": RowwiseParallel()})
    opt = optim.Adam(mlp.parameters(), lr=1e-3)
    phases = step(mlp, opt, x)
    dist.barrier()
    parallel = seconds_per_step(mlp, opt, x, steps)
    plain = make_mlp(dim)
    plain_opt = optim.Adam(plain.parameters(), lr=1e-3)
    one = seconds_per_step(plain, plain_opt, x, steps)
    if dist.get_rank() == 0:
        print(json.dumps({"phases": phases, "parallel_s": parallel, "one_process_s": one}))
    dist.destroy_process_group()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dim", type=int, default=256)
    parser.add_argument("--tokens", type=int, default=512)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker(args.dim, args.tokens, args.steps)
    start_report(1)
    got = on_ranks(__file__, 2, ["--dim", args.dim, "--tokens", args.tokens, "--steps", args.steps])
    activation = args.tokens * args.dim * 4  # float32 bytes of one (tokens, d) tensor
    predicted = {"forward": {"all_reduce": [1, activation]}, "backward": {"all_reduce": [1, activation]},
                 "optimizer": {}}
    print(f"\n## Tensor parallel MLP on 2 ranks: d = {args.dim}, {args.tokens} tokens, float32\n")
    print("| phase | counted (calls, bytes) | predicted | equal |")
    print("| --- | --- | --- | --- |")
    for phase in ("forward", "backward", "optimizer"):
        counted, want = got["phases"][phase], predicted[phase]
        print(f"| {phase} | {counted or 'nothing'} | {want or 'nothing'} | {counted == want} |")
    total = sum(b for phase in got["phases"].values() for _, b in phase.values())
    print(f"\nbytes per step: {total:,} counted, {2 * activation:,} predicted (two all-reduces of "
          f"{args.tokens} x {args.dim} float32); equal: {total == 2 * activation}")
    print(f"step time: {got['parallel_s'] * 1e3:.2f} ms on 2 ranks, {got['one_process_s'] * 1e3:.2f} ms in one "
          "process (median; informative only)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
