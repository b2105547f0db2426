"""Time per training step of an MNIST-sized MLP: CPU (1 thread, all cores), GPU with per-op copies, GPU resident.

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE .venv/bin/python bench/gpu.py
    bash bench/gpu_check.sh          # on a GPU machine: tests, then this, then a summary

Workload: 80,000 x 784 synthetic float32 inputs with 10 learnable classes, the MLP
784-256-10 (ReLU), cross-entropy, SGD with momentum 0.9, shuffled batches, swept over the
batch size (``--batches 512,2048,8192``): a GPU step costs about the same at every size
(launches dominate) while a CPU step grows with the batch, so the ratio depends on it.
Rows, for each batch size:

- ``MiniTorch CPU, 1 thread`` / ``all cores``: NumPy on the host, BLAS pinned with
  threadpoolctl (the threads actually used are printed).
- ``MiniTorch GPU, resident``: dataset, parameters, gradients and optimizer state live on
  the GPU; nothing crosses the bus in the timed steps (checked before timing by
  ``minitorch.cuda.syncs.synchronises``, which sees any host-device sync: "syncs per step: 0").
- ``... resident, no custom kernels``: the same with ``use_custom_kernels(False)``.
- ``MiniTorch GPU, per-op copies``: data on the host, every op uploads its inputs and
  downloads its result (the MiniTorch article's design, ``minitorch.examples.per_op_copies``);
  batches are gathered with NumPy outside the ops, so only the batch is uploaded.
- ``PyTorch CUDA``: the same network and recipe, when PyTorch with CUDA is installed.

Every row is warmed up first. ``first step`` is the very first step of a row, and includes
compiling its kernels: the script points CuPy at an empty kernel cache (``CUPY_CACHE_DIR``)
so that NVRTC compile time is measured cold, apart from the steady state. ``ms/step`` is the
median over ``--blocks`` blocks of steps timed between two synchronisations. GPU rows say
"skipped: <reason>" without a usable GPU, so the script runs (and is smoke-tested) anywhere.
"""

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

if "CUPY_CACHE_DIR" not in os.environ:  # before CuPy is imported: compile from scratch, and time it
    os.environ["CUPY_CACHE_DIR"] = tempfile.mkdtemp(prefix="minitorch-cupy-cache-")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _machine import blas_info, describe  # noqa: E402

import minitorch  # noqa: E402
from minitorch.cuda import syncs  # noqa: E402
from minitorch.examples.per_op_copies import host_batches, per_op_copies  # noqa: E402
from minitorch.nn import functional as F  # noqa: E402

TARGET_SPEEDUP = 20.0  # GPU resident vs MiniTorch CPU (all cores): at least this many times faster
TARGET_VS_TORCH = 1.5  # GPU resident vs PyTorch CUDA: at most this many times slower
CPU_ROWS = ("MiniTorch CPU, 1 thread", "MiniTorch CPU, all cores")
GPU_ROWS = ("MiniTorch GPU, resident", "MiniTorch GPU, resident, no custom kernels", "MiniTorch GPU, per-op copies")


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


def device_batches(x, y, order, batch):
    """One epoch of ``(x[idx], y[idx])`` with tensors (and the gather) on their own device."""
    for start in range(0, order.shape[0] - batch + 1, batch):
        idx = order[start : start + batch]
        yield x[idx], y[idx]


def endless(epoch):
    """Batches from ``epoch()`` (a fresh epoch each time one runs out), without end."""
    while True:
        yield from epoch()


def sync(device):
    if device == "cuda":
        minitorch.cuda.synchronize()


def make_step(x_np, y_np, batch, device, hidden, copies=False):
    """A training step of the MLP on ``device`` over shuffled batches; ``copies``: per-op copies mode."""
    minitorch.manual_seed(0)
    model = make_model(x_np.shape[1], hidden, 10).to(device)
    opt = minitorch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    order = np.random.default_rng(1).permutation(x_np.shape[0])
    if copies:  # the batch is gathered on the host; each op then uploads only what it computes on
        batches = endless(lambda: host_batches(x_np, y_np, order, batch))
    else:
        x, y = minitorch.tensor(x_np, device=device), minitorch.tensor(y_np, device=device)
        order_t = minitorch.tensor(order, device=device)
        batches = endless(lambda: device_batches(x, y, order_t, batch))

    def step():
        xb, yb = next(batches)
        opt.zero_grad()
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        opt.step()
        return loss

    return step


def time_minitorch(x_np, y_np, batch, device, hidden, steps, blocks=3, copies=False):
    """``(first step s, median s per step, final loss)`` for MiniTorch; ``copies``: per-op copies mode."""
    step = make_step(x_np, y_np, batch, device, hidden, copies)
    sync(device)
    start = time.perf_counter()
    loss = step()  # compiles the kernels on a GPU
    sync(device)
    first = time.perf_counter() - start
    for _ in range(max(2, steps // 2)):  # warm-up: memory pool, BLAS threads, caches
        step()
    times = []
    for _ in range(blocks):
        sync(device)
        start = time.perf_counter()
        for _ in range(steps):
            loss = step()
        sync(device)
        times.append((time.perf_counter() - start) / steps)
    return first, statistics.median(times), float(loss.item())


def resident_step_syncs(x_np, y_np, batch, hidden):
    """The note for the resident row: whether its step makes the host wait for the GPU (any sync)."""
    step = make_step(x_np, y_np, batch, "cuda", hidden)
    if syncs.synchronises(step):
        return "FAILED: the resident step synchronises with the host (minitorch.cuda.syncs)"
    return "syncs per step: 0 (checked by minitorch.cuda.syncs)"


def time_torch_cuda(x_np, y_np, batch, hidden, steps, blocks=3):
    """PyTorch on the GPU, same network and recipe; ``(None, reason)`` when unavailable."""
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
    order = torch.randperm(x.shape[0], device=dev, generator=torch.Generator(device=dev).manual_seed(1))
    batches = endless(lambda: device_batches(x, y, order, batch))

    def step():
        xb, yb = next(batches)
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(xb), yb)
        loss.backward()
        opt.step()
        return loss

    torch.cuda.synchronize()
    start = time.perf_counter()
    loss = step()
    torch.cuda.synchronize()
    first = time.perf_counter() - start
    for _ in range(max(2, steps // 2)):
        step()
    times = []
    for _ in range(blocks):
        torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(steps):
            loss = step()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - start) / steps)
    return (first, statistics.median(times), float(loss.item())), None


def steps_for(batch, args):
    """Steps per timed block: about 20,000 samples, at least 3 (``--steps`` overrides)."""
    return args.steps or max(3, 20_000 // batch)


def run(args):
    """Every row for every batch size: a list of dicts (batch, label, first, step, loss, note)."""
    from threadpoolctl import threadpool_limits

    x_np, y_np = make_data(args.samples)
    gpu = minitorch.cuda.is_available()
    rows = []
    for batch in args.batches:
        steps = steps_for(batch, args)

        def add(label, result, note, batch=batch):
            first, per_step, loss = result if result else (None, None, None)
            rows.append(dict(batch=batch, label=label, first=first, step=per_step, loss=loss, note=note))

        for label, threads in zip(CPU_ROWS, (1, os.cpu_count())):
            with threadpool_limits(threads):
                add(label, time_minitorch(x_np, y_np, batch, "cpu", args.hidden, steps, args.blocks),
                    f"BLAS: {blas_info()}")
        if not gpu:
            for label in GPU_ROWS:
                add(label, None, "skipped: no usable GPU (why: the GPU line above)")
        else:
            note = resident_step_syncs(x_np, y_np, batch, args.hidden)
            add(GPU_ROWS[0], time_minitorch(x_np, y_np, batch, "cuda", args.hidden, steps, args.blocks), note)
            with minitorch.cuda.use_custom_kernels(False):
                add(GPU_ROWS[1], time_minitorch(x_np, y_np, batch, "cuda", args.hidden, steps, args.blocks),
                    "plain CuPy expressions")
            cupy = minitorch.cuda.cupy_module()
            with per_op_copies(cupy):
                add(GPU_ROWS[2], time_minitorch(x_np, y_np, batch, "cpu", args.hidden, max(3, steps // 4),
                                                args.blocks, copies=True), "every op copies in and out")
        result, reason = time_torch_cuda(x_np, y_np, batch, args.hidden, steps, args.blocks)
        add("PyTorch CUDA", result, reason and "skipped: " + reason)
    return rows


def peak_memory(args):
    """Peak GPU memory of a few resident steps at the largest batch (measured apart: tracking costs)."""
    x_np, y_np = make_data(max(args.batches) * 2)
    minitorch.cuda.reset_peak_memory_stats()
    time_minitorch(x_np, y_np, max(args.batches), "cuda", args.hidden, 2, 1)
    return minitorch.cuda.max_memory_allocated(), minitorch.cuda.max_memory_reserved()


def report(rows, args):
    """The table (markdown) and the verdict on the targets, as text."""
    lines = [
        f"MLP {args.samples} x 784, 784-{args.hidden}-10, SGD momentum 0.9; per training step",
        "",
        "| batch | run | first step s | ms / step | s / epoch | vs CPU 1 thread | vs CPU all cores "
        "| vs PyTorch CUDA | loss | notes |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    measured = []  # (GPU resident's speed-up vs CPU all cores, batch, its ratio to PyTorch CUDA)
    for batch in args.batches:
        group = {r["label"]: r for r in rows if r["batch"] == batch}
        cpu1, cpun = group[CPU_ROWS[0]]["step"], group[CPU_ROWS[1]]["step"]
        torch_step = group["PyTorch CUDA"]["step"]
        for r in (r for r in rows if r["batch"] == batch):
            if r["step"] is None:
                lines.append(f"| {batch} | {r['label']} | - | - | - | - | - | - | - | {r['note']} |")
                continue
            epoch = r["step"] * (args.samples // batch)
            vs_torch = f"{r['step'] / torch_step:.2f}x" if torch_step else "-"
            lines.append(
                f"| {batch} | {r['label']} | {r['first']:.3f} | {r['step'] * 1e3:.2f} | {epoch:.3f} "
                f"| {cpu1 / r['step']:.1f}x | {cpun / r['step']:.1f}x | {vs_torch} | {r['loss']:.4f} | {r['note']} |"
            )
        resident = group[GPU_ROWS[0]]["step"]
        if resident:
            measured.append((cpun / resident, batch, torch_step and resident / torch_step))
            copies = group[GPU_ROWS[2]]["step"]
            if copies:
                lines.append(f"per-op copies cost at batch {batch}: resident is {copies / resident:.1f}x faster")
    lines.append("")
    if not measured:
        lines.append("targets: not measured (no usable GPU)")
        return "\n".join(lines)
    speedup, batch, vs_torch = max(measured)  # the batch where the GPU gains most
    verdict = "MET" if speedup >= TARGET_SPEEDUP else "NOT MET"
    lines.append(f"target GPU resident >= {TARGET_SPEEDUP:.0f}x faster than MiniTorch CPU (all cores), "
                 f"best batch {batch}: {speedup:.1f}x -> {verdict}")
    if vs_torch:
        verdict = "MET" if vs_torch <= TARGET_VS_TORCH else "NOT MET"
        lines.append(f"target within {TARGET_VS_TORCH}x of PyTorch CUDA at batch {batch}: {vs_torch:.2f}x -> {verdict}")
    else:
        lines.append(f"target within {TARGET_VS_TORCH}x of PyTorch CUDA: not measured (no PyTorch CUDA)")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=80_000)
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--batches", type=lambda s: [int(b) for b in s.split(",")], default=[512, 2048, 8192])
    parser.add_argument("--steps", type=int, default=0, help="steps per timed block (default: ~20,000 samples)")
    parser.add_argument("--blocks", type=int, default=3, help="timed blocks per row (median)")
    args = parser.parse_args(argv)
    print("## Machine\n")
    print(describe())
    print(f"- NumPy BLAS at start: {blas_info()}; CuPy kernel cache: {os.environ['CUPY_CACHE_DIR']}")
    if minitorch.cuda.is_available():
        print(f"- GPU: {minitorch.cuda.get_device_name()} ({minitorch.cuda.unavailable_reason()})\n")
    else:
        print(f"- GPU: none usable ({minitorch.cuda.unavailable_reason()})\n")
    rows = run(args)
    print(report(rows, args))
    if minitorch.cuda.is_available():
        allocated, reserved = peak_memory(args)
        print(f"\npeak GPU memory, batch {max(args.batches)}: allocated {allocated / 2**20:.0f} MiB, "
              f"reserved {reserved / 2**20:.0f} MiB")
    return rows


if __name__ == "__main__":
    main()
