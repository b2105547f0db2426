"""Seconds per training epoch of one MLP in MiniTorch, PyTorch and hand-written NumPy.

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE .venv/bin/python bench/train_mlp.py

Two workloads:
  (a) digits, 64-128-10, batch 64: tiny matrices, so per-op overhead of the engine decides;
  (b) MNIST-sized synthetic data, 80,000 x 784, 784-256-10, batch 128: BLAS decides.

All three train the same network with the same recipe (Adam, cross-entropy, shuffled
batches) in float32. The hand-written NumPy version has no framework at all: forward,
backward and Adam written out by hand -- the floor a NumPy-based framework can reach.
Epochs are interleaved (MiniTorch, PyTorch, NumPy, MiniTorch, ...) so that a noisy,
shared machine slows all three alike; the median epoch is reported.

Then MiniTorch's peak traced memory is measured per epoch (tracemalloc, a separate pass)
to show that it stays flat: no graph is kept alive between steps.
"""

import argparse
import gc
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
from minitorch import nn  # noqa: E402
from minitorch.data import DataLoader, TensorDataset  # noqa: E402

LR = 1e-2


# ---------------------------------------------------------------------- data
def digits_data():
    split = minitorch.datasets.load_digits()
    return split.X_train.data, split.y_train.data


def synthetic_data(n=80_000, d=784, classes=10, seed=0):
    """Random 'images' whose label is a fixed linear function of the pixels (learnable)."""
    rng = np.random.default_rng(seed)
    X = rng.random((n, d), dtype=np.float32)
    w = rng.standard_normal((d, classes)).astype(np.float32)
    y = (X @ w).argmax(axis=1).astype(np.int64)
    return X, y


def init_weights(sizes, seed=0):
    """PyTorch-style U(-1/sqrt(in), 1/sqrt(in)) weights, shared by all three implementations."""
    rng = np.random.default_rng(seed)
    weights = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        bound = 1 / np.sqrt(fan_in)
        weights.append(rng.uniform(-bound, bound, (fan_out, fan_in)).astype(np.float32))
        weights.append(rng.uniform(-bound, bound, fan_out).astype(np.float32))
    return weights


# ---------------------------------------------------------------------- MiniTorch
class MiniTorchRunner:
    name = "MiniTorch"

    def __init__(self, X, y, sizes, batch_size, seed=0):
        self.model = nn.Sequential(nn.Linear(sizes[0], sizes[1]), nn.ReLU(), nn.Linear(sizes[1], sizes[2]))
        self.model.load_state_dict(dict(zip(["0.weight", "0.bias", "2.weight", "2.bias"], init_weights(sizes, seed))))
        self.opt = minitorch.optim.Adam(self.model.parameters(), lr=LR)
        self.loader = DataLoader(
            TensorDataset(minitorch.from_numpy(X), minitorch.from_numpy(y)),
            batch_size=batch_size,
            shuffle=True,
            seed=seed,
        )
        self.loss_fn = nn.CrossEntropyLoss()

    def epoch(self):
        model, opt, loss_fn = self.model, self.opt, self.loss_fn
        for xb, yb in self.loader:
            loss = loss_fn(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
        return loss.item()


# ---------------------------------------------------------------------- PyTorch
class TorchRunner:
    name = "PyTorch"

    def __init__(self, X, y, sizes, batch_size, seed=0):
        import torch

        self.torch = torch
        tnn = torch.nn
        self.model = tnn.Sequential(tnn.Linear(sizes[0], sizes[1]), tnn.ReLU(), tnn.Linear(sizes[1], sizes[2]))
        names = ["0.weight", "0.bias", "2.weight", "2.bias"]
        state = dict(zip(names, map(torch.from_numpy, init_weights(sizes, seed))))
        self.model.load_state_dict(state)
        self.opt = torch.optim.Adam(self.model.parameters(), lr=LR)
        self.X, self.y = torch.from_numpy(X), torch.from_numpy(y)
        self.batch_size = batch_size
        self.gen = torch.Generator().manual_seed(seed)
        self.loss_fn = tnn.CrossEntropyLoss()

    def epoch(self):
        # Index tensors directly: the fastest idiomatic PyTorch loop for in-memory data.
        torch, model, opt, loss_fn = self.torch, self.model, self.opt, self.loss_fn
        order = torch.randperm(self.X.shape[0], generator=self.gen)
        for start in range(0, len(order), self.batch_size):
            idx = order[start : start + self.batch_size]
            loss = loss_fn(model(self.X[idx]), self.y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
        return loss.item()


# ---------------------------------------------------------------------- NumPy by hand
class NumpyRunner:
    name = "NumPy (by hand)"

    def __init__(self, X, y, sizes, batch_size, seed=0):
        self.X, self.y = X, y
        self.params = init_weights(sizes, seed)
        self.m = [np.zeros_like(p) for p in self.params]
        self.v = [np.zeros_like(p) for p in self.params]
        self.t = 0
        self.batch_size = batch_size
        self.rng = np.random.default_rng(seed)

    def step(self, x, y):
        W1, b1, W2, b2 = self.params
        n = x.shape[0]
        h = x @ W1.T
        h += b1
        r = np.maximum(h, 0)
        logits = r @ W2.T
        logits += b2
        shifted = logits - logits.max(axis=1, keepdims=True)
        e = np.exp(shifted)
        s = e.sum(axis=1, keepdims=True)
        loss = float(np.log(s).mean() - shifted[np.arange(n), y].mean())
        d_logits = e / s
        d_logits[np.arange(n), y] -= 1
        d_logits /= n
        grads = [None, None, d_logits.T @ r, d_logits.sum(axis=0)]
        d_h = d_logits @ W2
        d_h *= h > 0
        grads[0], grads[1] = d_h.T @ x, d_h.sum(axis=0)
        self.t += 1
        b1c, b2c = 1 - 0.9**self.t, 1 - 0.999**self.t
        for p, g, m, v in zip(self.params, grads, self.m, self.v):
            m *= 0.9
            m += 0.1 * g
            v *= 0.999
            v += 0.001 * (g * g)
            denom = np.sqrt(v)
            denom /= np.sqrt(b2c)
            denom += 1e-8
            p -= (LR / b1c) * (m / denom)
        return loss

    def epoch(self):
        order = self.rng.permutation(self.X.shape[0])
        for start in range(0, len(order), self.batch_size):
            idx = order[start : start + self.batch_size]
            loss = self.step(self.X[idx], self.y[idx])
        return loss


# ---------------------------------------------------------------------- measuring
def time_interleaved(runners, epochs, per_turn=1):
    """Seconds per epoch of each runner, epochs interleaved; the first round is a warm-up.

    Each runner trains ``per_turn`` epochs back to back per round (timed together, divided
    by ``per_turn``). With 1, every epoch starts right after another framework's epoch
    and a ``gc.collect()``, with cold caches: the first step of such an epoch costs 2-3
    steady steps, and more for the framework that runs more Python code. More epochs per
    turn spread that cost as a real training run (epoch after epoch) does.

    Returns the median epoch time of each runner, the median over rounds of MiniTorch's
    time divided by each runner's time in the same round (robust when the machine's load
    changes between rounds), and the last loss of each runner.
    """
    times = {r.name: [] for r in runners}
    losses = {}
    for e in range(epochs + 1):
        for r in runners:
            gc.collect()
            start = time.perf_counter()
            for _ in range(per_turn):
                losses[r.name] = r.epoch()
            if e > 0:
                times[r.name].append((time.perf_counter() - start) / per_turn)
    mt = times["MiniTorch"]
    median = {name: statistics.median(ts) for name, ts in times.items()}
    ratio = {name: statistics.median(a / b for a, b in zip(mt, ts)) for name, ts in times.items()}
    return median, ratio, losses


def memory_per_epoch(runner, epochs):
    """Peak traced memory (MiB) of each epoch, and the memory still held after it."""
    tracemalloc.start()
    peaks, held = [], []
    try:
        for _ in range(epochs):
            tracemalloc.reset_peak()
            runner.epoch()
            current, peak = tracemalloc.get_traced_memory()
            peaks.append(peak / 2**20)
            held.append(current / 2**20)
    finally:
        tracemalloc.stop()
    return peaks, held


def run_case(label, X, y, sizes, batch_size, epochs, mem_epochs, per_turn=1):
    runners = [MiniTorchRunner(X, y, sizes, batch_size)]
    try:
        runners.append(TorchRunner(X, y, sizes, batch_size))
    except ImportError:
        print("PyTorch is not installed: skipping it")
    runners.append(NumpyRunner(X, y, sizes, batch_size))
    median, ratio, losses = time_interleaved(runners, epochs, per_turn)
    turns = "" if per_turn == 1 else f" ({per_turn} back to back per turn)"
    print(
        f"\n### {label}: {X.shape[0]} x {X.shape[1]}, {'-'.join(map(str, sizes))}, batch {batch_size}, "
        f"{epochs} interleaved rounds{turns}\n"
    )
    print("| implementation | median s/epoch | MiniTorch / this (median of per-round ratios) | last loss |")
    print("| --- | ---: | ---: | ---: |")
    for name, sec in median.items():
        print(f"| {name} | {sec:.4f} | {ratio[name]:.2f} | {losses[name]:.4f} |")
    peaks, held = memory_per_epoch(MiniTorchRunner(X, y, sizes, batch_size), mem_epochs)
    print(f"\nMiniTorch peak traced memory per epoch (MiB): {', '.join(f'{p:.2f}' for p in peaks)}")
    print(f"MiniTorch memory held after each epoch (MiB): {', '.join(f'{h:.2f}' for h in held)}")
    return ratio


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--case", choices=["a", "b", "both"], default="both")
    parser.add_argument("--epochs-a", type=int, default=40)
    parser.add_argument("--epochs-b", type=int, default=3)
    parser.add_argument("--threads", type=int, default=None, help="BLAS/PyTorch threads (default: theirs)")
    parser.add_argument(
        "--epochs-per-turn", type=int, default=1, help="epochs each framework trains back to back per round (default 1)"
    )
    args = parser.parse_args(argv)
    start_report(args.threads)
    results = {}
    if args.case in ("a", "both"):
        X, y = digits_data()
        results["a"] = run_case("(a) digits", X, y, (64, 128, 10), 64, args.epochs_a, 5, args.epochs_per_turn)
    if args.case in ("b", "both"):
        X, y = synthetic_data()
        results["b"] = run_case(
            "(b) MNIST-sized synthetic", X, y, (784, 256, 10), 128, args.epochs_b, 3, args.epochs_per_turn
        )
    print("\n### Ratios (targets: MiniTorch/PyTorch <= 1.0 on (a), <= 1.2 on (b); MiniTorch/NumPy <= 1.15 on (a))\n")
    for case, ratio in results.items():
        parts = [f"MiniTorch/{name} = {r:.2f}" for name, r in ratio.items() if name != "MiniTorch"]
        print(f"- ({case}) " + ", ".join(parts))


if __name__ == "__main__":
    main()
