"""Seconds per training epoch of an MNIST-sized MLP: CPU, GPU with per-op copies, GPU resident.

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE .venv/bin/python bench/gpu.py
    bash bench/gpu_check.sh          # on a GPU machine: tests, then this, then a table

Workload: 80,000 x 784 synthetic float32 inputs with 10 learnable classes, the MLP
784-256-10 (ReLU), cross-entropy, SGD with momentum 0.9, batch 512, shuffled every epoch.
Rows:

- ``MiniTorch CPU``: NumPy arrays on the host.
- ``MiniTorch GPU, per-op copies``: the data stays on the host and every op uploads its
  inputs to the GPU, computes there and downloads its result (saved tensors too, and
  back up for backward) -- the design the MiniTorch article measured, which lost most of
  the GPU's advantage to the copies. The optimizer step then runs on the host.
- ``MiniTorch GPU, resident``: dataset, parameters, gradients and optimizer state live
  on the GPU; nothing crosses the bus during an epoch except one loss at its end.
- ``... resident, no custom kernels``: the same with ``use_custom_kernels(False)``, to
  show what the hand-written kernels (ReLU, fused softmax-cross-entropy backward) buy.
- ``PyTorch CUDA``: the same network and recipe, when PyTorch with CUDA is installed.

GPU rows say "skipped: <reason>" on a machine without a usable GPU, so the script also
runs (and is smoke-tested) on CPU-only machines. GPU timings are taken between two
``minitorch.cuda.synchronize()`` calls; each GPU row is the median of ``--epochs`` epochs
after one warm-up epoch (which also compiles the kernels).
"""

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import minitorch  # noqa: E402
from minitorch.cuda import kernels as cuda_kernels  # noqa: E402
from minitorch.examples.per_op_copies import per_op_copies  # noqa: E402
from minitorch.nn import functional as F  # noqa: E402

TARGET_SPEEDUP = 20.0  # GPU resident vs MiniTorch CPU: at least this many times faster
TARGET_VS_TORCH = 1.5  # GPU resident vs PyTorch CUDA: at most this many times slower


def make_data(samples, features=784, classes=10, seed=0):
    """Synthetic MNIST-sized data: Gaussian inputs labelled by a fixed random linear map."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((samples, features), dtype=np.float32)
    w = rng.standard_normal((features, classes), dtype=np.float32)
    y = (x @ w).argmax(axis=1).astype(np.int64)
    return x, y


def make_model(features, hidden, classes):
    """784-256-10 with MiniTorch's default (PyTorch's) initialisation."""
    nn = minitorch.nn
    return nn.Sequential(nn.Linear(features, hidden), nn.ReLU(), nn.Linear(hidden, classes))


def minitorch_epoch(model, opt, x, y, batch, order):
    """One epoch over ``x``/``y`` (tensors) in the order ``order`` (an int64 tensor)."""
    loss = None
    for start in range(0, x.shape[0] - batch + 1, batch):
        idx = order[start : start + batch]
        xb, yb = x[idx], y[idx]
        opt.zero_grad()
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        opt.step()
    return loss


def sync(device):
    if device == "cuda":
        minitorch.cuda.synchronize()


def time_minitorch(x_np, y_np, batch, epochs, device, hidden, warmup=True):
    """Median seconds per epoch and the final loss, for MiniTorch on ``device``."""
    minitorch.manual_seed(0)
    model = make_model(x_np.shape[1], hidden, 10).to(device)
    opt = minitorch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    x = minitorch.tensor(x_np, device=device)
    y = minitorch.tensor(y_np, device=device)
    rng = np.random.default_rng(1)
    times, loss = [], None
    for epoch in range(epochs + (1 if warmup else 0)):
        order = minitorch.tensor(rng.permutation(x_np.shape[0]), device=device)
        sync(device)
        start = time.perf_counter()
        loss = minitorch_epoch(model, opt, x, y, batch, order)
        sync(device)
        if epoch > 0 or not warmup:
            times.append(time.perf_counter() - start)
    return statistics.median(times), float(loss.item())


def time_per_op_copies(x_np, y_np, batch, epochs, hidden):
    """MiniTorch with host-resident data and per-op uploads/downloads (one epoch timed)."""
    cupy = minitorch.cuda.cupy_module()
    with per_op_copies(cupy):  # minitorch.examples.per_op_copies: the article's design, reproduced
        seconds, loss = time_minitorch(x_np, y_np, batch, epochs, "cpu", hidden, warmup=False)
    minitorch.cuda.synchronize()
    return seconds, loss


def time_torch_cuda(x_np, y_np, batch, epochs, hidden):
    """PyTorch on the GPU, same network and recipe; None with the reason when unavailable."""
    try:
        import torch
    except ImportError:
        return None, "PyTorch is not installed"
    if not torch.cuda.is_available():
        return None, f"PyTorch {torch.__version__} sees no CUDA device"
    torch.manual_seed(0)
    dev = torch.device("cuda")
    model = torch.nn.Sequential(
        torch.nn.Linear(x_np.shape[1], hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, 10)
    ).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    x, y = torch.from_numpy(x_np).to(dev), torch.from_numpy(y_np).to(dev)
    generator = torch.Generator(device=dev).manual_seed(1)
    times, loss = [], None
    for epoch in range(epochs + 1):
        order = torch.randperm(x.shape[0], device=dev, generator=generator)
        torch.cuda.synchronize()
        start = time.perf_counter()
        for s in range(0, x.shape[0] - batch + 1, batch):
            idx = order[s : s + batch]
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x[idx]), y[idx])
            loss.backward()
            opt.step()
        torch.cuda.synchronize()
        if epoch > 0:
            times.append(time.perf_counter() - start)
    return (statistics.median(times), float(loss.item())), None


def run(args):
    """Measure every row; returns a list of (label, seconds or None, final loss or None, note)."""
    x_np, y_np = make_data(args.samples)
    rows = []
    seconds, loss = time_minitorch(x_np, y_np, args.batch, 1, "cpu", args.hidden, warmup=False)
    rows.append(("MiniTorch CPU", seconds, loss, "data on the host, NumPy"))
    gpu_rows = ("MiniTorch GPU, per-op copies", "MiniTorch GPU, resident", "MiniTorch GPU, resident, no custom kernels")
    if not minitorch.cuda.is_available():
        reason = "skipped: no usable GPU (" + minitorch.cuda.unavailable_reason() + ")"
        rows.extend((label, None, None, reason) for label in gpu_rows)
    else:
        seconds, loss = time_per_op_copies(x_np, y_np, args.batch, 1, args.hidden)
        rows.append((gpu_rows[0], seconds, loss, "one epoch; every op copies in and out"))
        minitorch.cuda.reset_peak_memory_stats()
        seconds, loss = time_minitorch(x_np, y_np, args.batch, args.epochs, "cuda", args.hidden)
        peak = minitorch.cuda.max_memory_allocated() / 2**20
        rows.append((gpu_rows[1], seconds, loss, f"median of {args.epochs}; peak {peak:.0f} MiB"))
        with cuda_kernels.use_custom_kernels(False):
            seconds, loss = time_minitorch(x_np, y_np, args.batch, args.epochs, "cuda", args.hidden)
        rows.append((gpu_rows[2], seconds, loss, f"median of {args.epochs}; plain CuPy expressions"))
    result, reason = time_torch_cuda(x_np, y_np, args.batch, args.epochs, args.hidden)
    if result is None:
        rows.append(("PyTorch CUDA", None, None, "skipped: " + reason))
    else:
        rows.append(("PyTorch CUDA", result[0], result[1], f"median of {args.epochs}"))
    return rows


def report(rows, args):
    """The table (markdown) and the verdict on the two targets, as text."""
    times = {label: seconds for label, seconds, _, _ in rows}
    cpu, resident, torch_cuda = times["MiniTorch CPU"], times["MiniTorch GPU, resident"], times["PyTorch CUDA"]
    lines = [
        f"MLP {args.samples} x 784, 784-{args.hidden}-10, batch {args.batch}, SGD momentum; seconds per epoch",
        "",
        "| run | s / epoch | vs MiniTorch CPU | vs PyTorch CUDA | final loss | notes |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for label, seconds, loss, note in rows:
        if seconds is None:
            lines.append(f"| {label} | - | - | - | - | {note} |")
            continue
        speedup = f"{cpu / seconds:.1f}x faster" if label != "MiniTorch CPU" else "1.0x"
        vs_torch = f"{seconds / torch_cuda:.2f}x the time" if torch_cuda else "-"
        lines.append(f"| {label} | {seconds:.3f} | {speedup} | {vs_torch} | {loss:.4f} | {note} |")
    lines.append("")
    if resident is None:
        lines.append("targets: not measured (no usable GPU)")
    else:
        ok = cpu / resident >= TARGET_SPEEDUP
        lines.append(
            f"target GPU resident >= {TARGET_SPEEDUP:.0f}x faster than MiniTorch CPU: "
            f"{cpu / resident:.1f}x -> {'MET' if ok else 'NOT MET'}"
        )
        if torch_cuda is None:
            lines.append("target within 1.5x of PyTorch CUDA: not measured (no PyTorch CUDA)")
        else:
            ratio = resident / torch_cuda
            verdict = "MET" if ratio <= TARGET_VS_TORCH else "NOT MET"
            lines.append(f"target within {TARGET_VS_TORCH}x of PyTorch CUDA: {ratio:.2f}x -> {verdict}")
        copies = times["MiniTorch GPU, per-op copies"]
        lines.append(f"per-op copies cost: resident is {copies / resident:.1f}x faster than per-op copies")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=80_000)
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--batch", type=int, default=512)
    parser.add_argument("--epochs", type=int, default=3, help="timed GPU epochs (median), after one warm-up")
    args = parser.parse_args(argv)
    if minitorch.cuda.is_available():
        print(f"GPU: {minitorch.cuda.get_device_name()} ({minitorch.cuda.unavailable_reason()})")
    else:
        print(f"GPU: none usable ({minitorch.cuda.unavailable_reason()})")
    rows = run(args)
    print(report(rows, args))
    return rows


if __name__ == "__main__":
    main()
