"""Pipeline parallelism's bubble, measured: GPipe and 1F1B on 2 and 4 stages, 4 and 8 microbatches.

    .venv/bin/python bench/pipeline_bubble.py --compute device     # a stage's work holds no core
    .venv/bin/python bench/pipeline_bubble.py --compute cpu        # a stage's work is NumPy's

Each stage does the same work per microbatch; every rank records when it computed what
(``schedule.timeline``), and the bubble is the share of the ranks' time spent idle between
the first computation and the last (``pipelining.bubble_fraction``), the median over
``--steps`` steps after one warm-up. Target: within 0.05 of (p - 1) / (m + p - 1).

``--compute cpu``: each stage is ``--layers`` Linear(W, W) + Tanh layers on a microbatch of
``--rows`` rows (float32, one BLAS thread). That needs a free core per rank: 4 ranks on a
2-core machine share the cores, and a stage then computes slower while others compute too.
``--compute device``: each stage's forward holds the rank for ``--forward-ms`` and its
backward for twice that (``time.sleep``, as a host waits on an accelerator's kernel), then
multiplies by a weight: the work needs no core, so 4 stages fit on 2 cores. What is left
of the bubble's excess is the implementation's own: Python, the transfers, the waits.
"""

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from _machine import start_report  # noqa: E402
from _ranks import on_ranks  # noqa: E402

import minitorch  # noqa: E402
import minitorch.distributed as dist  # noqa: E402
from minitorch import nn  # noqa: E402
from minitorch.autograd import Function  # noqa: E402
from minitorch.distributed.pipelining import (  # noqa: E402
    PipelineStage,
    Schedule1F1B,
    ScheduleGPipe,
    bubble_fraction,
    expected_bubble,
    gather_timelines,
)


class Busy(Function):
    """``x * w``, holding the rank for ``seconds`` in forward and twice that in backward (an accelerator's kernel)."""

    @staticmethod
    def forward(ctx, x, w, seconds):
        time.sleep(seconds)
        ctx.save_for_backward(x, w)
        ctx.seconds = seconds
        return x * w

    @staticmethod
    def backward(ctx, grad):
        x, w = ctx.saved_tensors
        time.sleep(2 * ctx.seconds)
        return grad * w, (grad * x).sum(0), None


class DeviceStage(nn.Module):
    def __init__(self, width, seconds):
        super().__init__()
        self.w, self.seconds = nn.Parameter(minitorch.ones(width)), seconds

    def forward(self, x):
        return Busy.apply(x, self.w, self.seconds)


def make_stage(compute, width, layers, seconds):
    if compute == "device":
        return DeviceStage(width, seconds)
    minitorch.manual_seed(0)
    return nn.Sequential(*[m for _ in range(layers) for m in (nn.Linear(width, width), nn.Tanh())])


def worker(compute, width, rows, layers, forward_ms, steps):
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)
    dist.init_process_group("mpi")
    rank, p = dist.get_rank(), dist.get_world_size()
    results = []
    for m in (4, 8):
        for schedule_class in (ScheduleGPipe, Schedule1F1B):
            stage = PipelineStage(make_stage(compute, width, layers, forward_ms / 1e3), rank, p, "cpu")
            schedule = schedule_class(stage, m, loss_fn=lambda out, y: (out * out).mean())
            rng = np.random.default_rng(0)
            x = minitorch.tensor(rng.normal(size=(m * rows, width)).astype(np.float32))
            bubbles, step_seconds = [], []
            for i in range(steps + 1):
                dist.barrier()
                start = time.perf_counter()
                if rank == 0:
                    schedule.step(x)
                elif rank == p - 1:
                    schedule.step(target=x)
                else:
                    schedule.step()
                step_seconds.append(time.perf_counter() - start)
                timelines = gather_timelines(schedule)
                if i:  # the first step warms up
                    bubbles.append(bubble_fraction(timelines))
            busy = statistics.median(e.end - e.start for e in schedule.timeline if e.kind == "F")
            results.append({"m": m, "schedule": schedule_class.__name__, "bubble": statistics.median(bubbles),
                            "spread": [min(bubbles), max(bubbles)], "expected": expected_bubble(p, m),
                            "forward_ms": busy * 1e3, "step_ms": statistics.median(step_seconds[1:]) * 1e3})
    if rank == 0:
        print(json.dumps(results))
    dist.destroy_process_group()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compute", choices=["device", "cpu"], default="device")
    parser.add_argument("--width", type=int, default=256)
    parser.add_argument("--rows", type=int, default=256, help="rows per microbatch (cpu)")
    parser.add_argument("--layers", type=int, default=8, help="Linear layers per stage (cpu)")
    parser.add_argument("--forward-ms", type=float, default=20.0, help="a stage's forward per microbatch (device)")
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--stages", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker(args.compute, args.width, args.rows, args.layers, args.forward_ms, args.steps)
    start_report(1)
    print(f"\n## Pipeline bubble ({args.compute} compute, median of {args.steps} steps)\n")
    print("| stages p | microbatches m | schedule | forward per microbatch | step | bubble measured (range) | "
          "(p-1)/(m+p-1) | difference |")
    print("| ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |")
    for p in args.stages:
        rows = on_ranks(__file__, p, ["--compute", args.compute, "--width", args.width, "--rows", args.rows,
                                      "--layers", args.layers, "--forward-ms", args.forward_ms,
                                      "--steps", args.steps], timeout=600)
        for r in rows:
            diff = r["bubble"] - r["expected"]
            print(f"| {p} | {r['m']} | {r['schedule']} | {r['forward_ms']:.1f} ms | {r['step_ms']:.0f} ms | "
                  f"{r['bubble']:.3f} ({r['spread'][0]:.3f}-{r['spread'][1]:.3f}) | {r['expected']:.3f} | "
                  f"{diff:+.3f} ({'met' if abs(diff) <= 0.05 else 'missed'}) |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
