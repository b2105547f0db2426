"""Seconds per training epoch of the digits CNN in MiniTorch and in PyTorch.

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE .venv/bin/python bench/train_cnn.py

The network of ``python -m minitorch.examples.digits --model cnn``: conv 1->16 3x3 pad 1,
ReLU, max-pool 2, conv 16->32 3x3 pad 1, ReLU, max-pool 2, flatten, linear 128->10;
Adam lr 1e-2, batch 64, float32, the same initial weights in both. PyTorch's conv is a
native kernel; MiniTorch's is chosen by ``minitorch.switches.SWITCHES.conv_design``, and
``--designs im2col,shifted`` times each design as its own row (im2col: a strided view
copied into one matrix and one matmul; shifted: kh*kw shifted matmuls, no copy).
Target: MiniTorch / PyTorch <= 1.3. Epochs are interleaved (every implementation once per
round) and each ratio is the median of the per-round ratios.
"""

import argparse
import gc
import os
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _machine import start_report  # noqa: E402

import minitorch  # noqa: E402
from minitorch.data import DataLoader, TensorDataset  # noqa: E402
from minitorch.examples.digits import make_cnn  # noqa: E402
from minitorch.switches import SWITCHES  # noqa: E402

LR = 1e-2
BATCH = 64


class MiniTorchCNN:
    name = "MiniTorch"

    def __init__(self, X, y, state, design="auto"):
        self.design = design
        self.name = "MiniTorch" if design == "auto" else f"MiniTorch ({design})"
        self.model = make_cnn()
        self.model.load_state_dict(state)
        self.opt = minitorch.optim.Adam(self.model.parameters(), lr=LR)
        self.loader = DataLoader(TensorDataset(minitorch.from_numpy(X), minitorch.from_numpy(y)),
                                 batch_size=BATCH, shuffle=True, seed=0)

    def epoch(self):
        F = minitorch.nn.functional
        SWITCHES.conv_design = self.design
        for xb, yb in self.loader:
            loss = F.cross_entropy(self.model(xb), yb)
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
        return loss.item()


class TorchCNN:
    name = "PyTorch"

    def __init__(self, X, y, state):
        import torch

        tnn = torch.nn
        self.torch = torch
        self.model = tnn.Sequential(
            tnn.Conv2d(1, 16, 3, padding=1), tnn.ReLU(), tnn.MaxPool2d(2),
            tnn.Conv2d(16, 32, 3, padding=1), tnn.ReLU(), tnn.MaxPool2d(2),
            tnn.Flatten(), tnn.Linear(32 * 2 * 2, 10),
        )
        self.model.load_state_dict({k: torch.from_numpy(np.array(v)) for k, v in state.items()})
        self.opt = torch.optim.Adam(self.model.parameters(), lr=LR)
        self.X, self.y = torch.from_numpy(X), torch.from_numpy(y)
        self.gen = torch.Generator().manual_seed(0)

    def epoch(self):
        torch = self.torch
        order = torch.randperm(self.X.shape[0], generator=self.gen)
        for start in range(0, len(order), BATCH):
            idx = order[start : start + BATCH]
            loss = torch.nn.functional.cross_entropy(self.model(self.X[idx]), self.y[idx])
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
        return loss.item()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--threads", type=int, default=None, help="BLAS/PyTorch threads (default: theirs)")
    parser.add_argument("--designs", default="auto", help="MiniTorch conv designs, e.g. im2col,shifted")
    parser.add_argument("--clock", choices=["wall", "process"], default="wall",
                        help="process: CPU time of this process (with --threads 1, the time it worked, "
                             "not the time other jobs on a loaded machine took from it)")
    args = parser.parse_args(argv)
    start_report(args.threads)
    split = minitorch.datasets.load_digits(images=True)
    X, y = split.X_train.data, split.y_train.data
    minitorch.manual_seed(0)
    state = {k: v.data.copy() for k, v in make_cnn().state_dict().items()}
    runners = [MiniTorchCNN(X, y, state, design) for design in args.designs.split(",")]
    try:
        runners.append(TorchCNN(X, y, state))
    except ImportError:
        print("PyTorch is not installed: nothing to compare with")
    times = {r.name: [] for r in runners}
    losses = {}
    clock = time.process_time if args.clock == "process" else time.perf_counter
    for e in range(args.epochs + 1):
        for r in runners:
            gc.collect()
            start = clock()
            losses[r.name] = r.epoch()
            if e > 0:
                times[r.name].append(clock() - start)
    base = times.get("PyTorch") or times[runners[0].name]
    base_name = "PyTorch" if "PyTorch" in times else runners[0].name
    print(f"\n### digits CNN: {X.shape[0]} images 1x8x8, batch {BATCH}, {args.epochs} interleaved epochs, "
          f"{args.clock} clock; load average {os.getloadavg()[0]:.1f}\n")
    print(f"| implementation | median s/epoch | this / {base_name} (median of per-round ratios) | last loss |")
    print("| --- | ---: | ---: | ---: |")
    for name, ts in times.items():
        ratio = statistics.median(a / b for a, b in zip(ts, base))
        print(f"| {name} | {statistics.median(ts):.4f} | {ratio:.2f} | {losses[name]:.4f} |")
    tracemalloc.start()
    peaks = []
    runner = MiniTorchCNN(X, y, state, args.designs.split(",")[-1])
    for _ in range(3):
        tracemalloc.reset_peak()
        runner.epoch()
        peaks.append(tracemalloc.get_traced_memory()[1] / 2**20)
    tracemalloc.stop()
    print(f"\nMiniTorch peak traced memory per epoch (MiB): {', '.join(f'{p:.2f}' for p in peaks)}")


if __name__ == "__main__":
    main()
