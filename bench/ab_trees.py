"""The same workload timed in two (or more) checkouts of MiniTorch, interleaved: is B slower than A?

    .venv/bin/python bench/ab_trees.py --tree A=/path/to/before --tree B=. --tree ref=.:MINITORCH_FAST_KERNELS=0 \\
        --workload cnn --workload cnn-compiled --rounds 40

Each tree runs in a worker process of its own (two checkouts of one package cannot share
a process), with one BLAS thread, its ``bench/`` scripts and ``minitorch`` imported from
that tree, and ``NAME=VALUE`` settings after a ``:`` in its environment. The driver asks
the workers in turn for one timed call each, round after round, so a machine that other
jobs load slows every tree alike; each call is timed with the worker's CPU clock
(``time.process_time``: with one thread, the time it worked, not the time it waited).
Reported per workload: the median seconds per call of each tree, and the median over
rounds of each tree's time over the first tree's in the same round.

Workloads (the models of docs/benchmarks.md; more in ``WORKLOADS``):
  cnn, cnn-compiled   one epoch of the digits CNN (bench/train_cnn.py's runner), eager or compiled
  mlp, mlp-compiled   one epoch of the digits MLP (bench/train_mlp.py's runner)
  op-overhead         bench/op_overhead.py's cases once each, forward and backward (sum of their medians)
  lstm, transformer   one training step of charlm's model (bench/compiled.py), eager
  lstm-compiled, transformer-compiled   the same step compiled
  adam-mlp, adam-lstm, sgd-mlp          optimizer steps alone: 200 Adam steps on the digits MLP's
                      parameters (the foreach kernel), 20 on the LSTM's (the formula: large
                      parameters), 200 SGD-with-momentum steps on the MLP's
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

# ---------------------------------------------------------------------- the worker (in each tree)


def _cnn(compiled):
    import compiled as compiled_bench
    import train_cnn

    import minitorch

    split = minitorch.datasets.load_digits(images=True)
    X, y = split.X_train.data, split.y_train.data
    minitorch.manual_seed(0)
    state = {k: v.data.copy() for k, v in train_cnn.make_cnn().state_dict().items()}
    runner = train_cnn.MiniTorchCNN(X, y, state)
    return compiled_bench.compiled_epoch(runner).epoch if compiled else runner.epoch


def _mlp(compiled):
    import compiled as compiled_bench
    import train_mlp

    X, y = train_mlp.digits_data()
    runner = train_mlp.MiniTorchRunner(X, y, [64, 128, 10], 64)
    return compiled_bench.compiled_epoch(runner).epoch if compiled else runner.epoch


def _op_overhead():
    import op_overhead

    import minitorch

    tensors = op_overhead.make_inputs(minitorch, 64)
    cases = list(op_overhead.CASES)

    def call():
        for case in cases:
            for _ in range(50):
                op_overhead.step(case, tensors)

    return call


def _sequence(kind, compiled=True):
    import compiled as compiled_bench

    return compiled_bench.SequenceRunner(kind, "minitorch", compiled=compiled).epoch


def _optimizer_steps(name, shapes, steps, **settings):
    import numpy as np

    import minitorch

    rng = np.random.default_rng(0)
    params = [minitorch.nn.Parameter(minitorch.tensor(rng.standard_normal(s).astype(np.float32))) for s in shapes]
    opt = getattr(minitorch.optim, name)(params, **settings)
    for p in params:
        p.grad = minitorch.tensor(rng.standard_normal(p.shape).astype(np.float32))

    def call():
        for _ in range(steps):
            opt.step()

    return call


MLP_SHAPES = [(128, 64), (128,), (10, 128), (10,)]
LSTM_SHAPES = [(1024, 64), (1024, 256), (1024,), (1024,), (80, 64), (80, 256), (80,)]  # charlm's LSTM LM

WORKLOADS = {
    "cnn": lambda: _cnn(False),
    "cnn-compiled": lambda: _cnn(True),
    "mlp": lambda: _mlp(False),
    "mlp-compiled": lambda: _mlp(True),
    "op-overhead": _op_overhead,
    "lstm": lambda: _sequence("lstm", compiled=False),
    "transformer": lambda: _sequence("transformer", compiled=False),
    "lstm-compiled": lambda: _sequence("lstm"),
    "transformer-compiled": lambda: _sequence("transformer"),
    "adam-mlp": lambda: _optimizer_steps("Adam", MLP_SHAPES, 200, lr=1e-3),
    "adam-lstm": lambda: _optimizer_steps("Adam", LSTM_SHAPES, 20, lr=1e-3),
    "sgd-mlp": lambda: _optimizer_steps("SGD", MLP_SHAPES, 200, lr=0.1, momentum=0.9),
}


def worker(tree, workloads):
    """Build each workload, then answer "name" lines on stdin with the CPU seconds of one call."""
    import gc
    import time

    sys.path[:0] = [str(Path(tree) / "bench"), tree]
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)
    calls = {name: WORKLOADS[name]() for name in workloads}
    for call in calls.values():  # warm-up: traces, first replays, caches
        call()
        call()
    print("ready", flush=True)
    for line in sys.stdin:
        name = line.strip()
        gc.collect()
        start = time.process_time()
        calls[name]()
        print(json.dumps(time.process_time() - start), flush=True)


# ---------------------------------------------------------------------- the driver


def start(tree_spec, workloads):
    name, _, rest = tree_spec.partition("=")
    path, _, settings = rest.partition(":")
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1",
               PYTHONPATH=str(Path(path).resolve()))  # fmt: skip
    for setting in filter(None, settings.split(",")):
        key, _, value = setting.partition("=")
        env[key] = value
    cmd = [sys.executable, __file__, "--worker", str(Path(path).resolve()), *workloads]
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
    assert proc.stdout.readline().strip() == "ready", f"worker {name} did not start"
    return name, proc


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tree", action="append", default=[], help="NAME=PATH[:VAR=VALUE,...] (the first is the base)")
    parser.add_argument("--workload", action="append", default=[], choices=sorted(WORKLOADS))
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--worker", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        return worker(args.worker[0], args.worker[1:])
    workers = [start(spec, args.workload) for spec in args.tree]
    times = {(w, name): [] for w in args.workload for name, _ in workers}
    for _ in range(args.rounds):
        for w in args.workload:
            for name, proc in workers:
                proc.stdin.write(w + "\n")
                proc.stdin.flush()
                times[w, name].append(json.loads(proc.stdout.readline()))
    for _, proc in workers:
        proc.stdin.close()
        proc.wait(timeout=60)
    base = workers[0][0]
    load = os.getloadavg()[0]
    print(f"{args.rounds} interleaved rounds, CPU seconds per call, one BLAS thread; load average {load:.1f}")
    print(f"| workload | tree | median s | / {base} (median of per-round ratios) |")
    print("| --- | --- | ---: | ---: |")
    for w in args.workload:
        for name, _ in workers:
            ts = times[w, name]
            ratio = statistics.median(a / b for a, b in zip(ts, times[w, base]))
            print(f"| {w} | {name} | {statistics.median(ts):.5f} | {ratio:.3f} |")
    return None


if __name__ == "__main__":
    main()
