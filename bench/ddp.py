"""DistributedDataParallel: its overhead, 2-rank throughput, all-reduce bandwidth, the cost model.

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE .venv/bin/python bench/ddp.py

The model is an MNIST-sized MLP (784 -> 256 -> 10, float32, 203,530 parameters = 0.81 MB
of gradients) on synthetic data, SGD, global batch 64.

1. **Overhead on 1 rank**: the same steps with and without the DDP wrapper, in this process
   (MPI as a world of one), interleaved rounds, median ratio. Target: at most 1.05.
2. **2 ranks** (launched here with ``mpiexec -n 2``): samples/s with the global batch split
   (32 per rank) and with 64 per rank, against 1 rank; and MPI ``Allreduce`` times for
   1 KB .. 16 MB, from which the bandwidth and the cost model's latency and bandwidth are
   fitted.
3. **Extrapolation on paper** to 8 and 64 ranks: per-rank compute for batch 64/N (measured
   here) plus the modelled all-reduce time (no overlap assumed, so pessimistic).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from _machine import start_report  # noqa: E402

import minitorch  # noqa: E402
import minitorch.distributed as dist  # noqa: E402
from minitorch import nn  # noqa: E402

GRADIENT_BYTES = 4 * (784 * 256 + 256 + 256 * 10 + 10)


def make_model():
    minitorch.manual_seed(0)
    return nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10))


def step_timer(batch, wrap, bucket_cap_mb=25.0):
    """A function that runs ``n`` SGD steps of batch ``batch`` and returns seconds per step."""
    model = make_model()
    net = nn.parallel.DistributedDataParallel(model, bucket_cap_mb=bucket_cap_mb) if wrap else model
    opt = minitorch.optim.SGD(model.parameters(), lr=0.01)
    rng = np.random.default_rng(dist.get_rank() if dist.is_initialized() else 0)
    x = minitorch.tensor(rng.normal(size=(batch, 784)).astype(np.float32))
    y = minitorch.tensor(rng.integers(0, 10, size=batch))
    loss_fn = nn.CrossEntropyLoss()

    def run(n):
        start = time.perf_counter()
        for _ in range(n):
            opt.zero_grad()
            loss_fn(net(x), y).backward()
            opt.step()
        return (time.perf_counter() - start) / n

    run(3)  # warm-up
    return run


def allreduce_times(comm, sizes, repeat=20):
    """Best-of-``repeat`` seconds of MPI Allreduce for each size in bytes (slowest rank counts)."""
    from mpi4py import MPI

    rows = []
    for nbytes in sizes:
        a = np.ones(nbytes // 4, dtype=np.float32)
        best = float("inf")
        for _ in range(repeat):
            comm.Barrier()
            start = time.perf_counter()
            comm.Allreduce(MPI.IN_PLACE, a)
            best = min(best, time.perf_counter() - start)
        rows.append({"bytes": nbytes, "seconds": max(comm.allgather(best))})
    return rows


def worker(rounds, steps):
    """Run under mpiexec: samples/s for the split and the full per-rank batch, Allreduce times."""
    dist.init_process_group("mpi")
    world = dist.get_world_size()
    split, full = step_timer(64 // world, True), step_timer(64, True)
    split_t, full_t = [], []
    for _ in range(rounds):
        dist.barrier()
        split_t.append(split(steps))
        dist.barrier()
        full_t.append(full(steps))
    comm = dist.current_group().comm
    rows = allreduce_times(comm, [2**k for k in range(10, 25)])
    if dist.get_rank() == 0:
        print(json.dumps({"world": world, "split_step": statistics.median(split_t),
                          "full_step": statistics.median(full_t), "allreduce": rows}))
    dist.destroy_process_group()


def fit_cost_model(rows, ranks):
    """Least squares (relative error) for t = alpha * 2(N-1) + bytes * 2(N-1)/N / beta."""
    steps, factor = 2 * (ranks - 1), 2 * (ranks - 1) / ranks
    t = np.array([r["seconds"] for r in rows])
    A = np.array([[steps, r["bytes"] * factor] for r in rows]) / t[:, None]
    (alpha, inv_beta), *_ = np.linalg.lstsq(A, np.ones_like(t), rcond=None)
    return max(float(alpha), 1e-9), 1 / max(float(inv_beta), 1e-15)


def model_time(ranks, nbytes, alpha, beta):
    return alpha * 2 * (ranks - 1) + nbytes * 2 * (ranks - 1) / ranks / beta


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--worker", action="store_true", help="internal: one rank of the 2-rank run")
    args = parser.parse_args()
    if args.worker:
        worker(args.rounds, args.steps)
        return
    start_report(args.threads)
    dist.init_process_group("mpi")  # a world of one
    timers = {name: step_timer(batch, wrap) for name, batch, wrap in
              [("plain64", 64, False), ("ddp64", 64, True), ("plain32", 32, False)]}
    times = {name: [] for name in timers}
    for _ in range(args.rounds):
        for name, run in timers.items():
            times[name].append(run(args.steps))
    ratios = [d / p for d, p in zip(times["ddp64"], times["plain64"])]
    one = {name: statistics.median(t) for name, t in times.items()}
    dist.destroy_process_group()

    mpiexec = Path(sys.executable).parent / "mpiexec"
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads), OPENBLAS_NUM_THREADS=str(args.threads))
    out = subprocess.run([str(mpiexec), "-n", "2", sys.executable, __file__, "--worker", "--rounds",
                          str(args.rounds), "--steps", str(args.steps)], capture_output=True, text=True,
                         timeout=600, env=env, check=True).stdout
    two = json.loads(out.strip().splitlines()[-1])
    alpha, beta = fit_cost_model(two["allreduce"], 2)

    print("\n## DDP overhead and scaling (MNIST-sized MLP 784-256-10, float32, SGD)\n")
    print(f"1 rank, batch 64: plain {one['plain64'] * 1e3:.2f} ms/step, DDP {one['ddp64'] * 1e3:.2f} ms/step; "
          f"median ratio DDP/plain {statistics.median(ratios):.3f} (rounds: "
          f"{', '.join(f'{r:.3f}' for r in ratios)})\n")
    print("| ranks | batch per rank | global batch | ms per step | samples/s | vs 1 rank |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: |")
    base = 64 / one["plain64"]
    for ranks, per, step in [(1, 64, one["plain64"]), (2, 32, two["split_step"]), (2, 64, two["full_step"])]:
        rate = ranks * per / step
        print(f"| {ranks} | {per} | {ranks * per} | {step * 1e3:.2f} | {rate:,.0f} | {rate / base:.2f} |")
    print("\nMPI Allreduce on 2 ranks (best of 20; bus bandwidth = bytes x 2(N-1)/N / time):\n")
    print("| bytes | time | bus bandwidth |")
    print("| ---: | ---: | ---: |")
    for row in two["allreduce"]:
        if row["bytes"] in (2**10, 2**14, 2**18, 2**20, 2**22, 2**24):
            bus = row["bytes"] * 2 * (2 - 1) / 2 / row["seconds"]
            print(f"| {row['bytes']:,} | {row['seconds'] * 1e6:,.1f} µs | {bus / 1e9:.2f} GB/s |")
    print(f"\nCost model fitted to these times: latency alpha = {alpha * 1e6:.1f} µs, bandwidth beta = "
          f"{beta / 1e9:.2f} GB/s\n")
    print(f"On paper, global batch 64, gradient {GRADIENT_BYTES / 1e6:.2f} MB, compute per rank = measured "
          "1-rank step time scaled by batch/64 (linear), all-reduce not overlapped:\n")
    print("| ranks | batch per rank | compute ms | all-reduce ms (model) | step ms | samples/s | speed-up |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for ranks in (1, 2, 8, 64):
        compute = one["plain64"] * (64 / ranks) / 64
        comm_t = model_time(ranks, GRADIENT_BYTES, alpha, beta) if ranks > 1 else 0.0
        step = compute + comm_t
        print(f"| {ranks} | {64 / ranks:g} | {compute * 1e3:.3f} | {comm_t * 1e3:.3f} | {step * 1e3:.3f} | "
              f"{64 / step:,.0f} | {one['plain64'] / step:.2f} |")


if __name__ == "__main__":
    main()
