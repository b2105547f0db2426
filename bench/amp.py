"""Mixed precision: what float16 costs or buys, per device: matrix products and an MLP training step.

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE .venv/bin/python bench/amp.py --threads 1
    .venv/bin/python bench/amp.py --devices cpu,cuda     # on a GPU machine (bench/gpu_check.sh runs it)

Two measurements on each device (the GPU one says "skipped: <reason>" without a usable GPU):

- **matmul**: ``a @ b`` for n x n float32 tensors against the same in float16, for each
  ``--sizes``. On the CPU also NumPy's own float16 ``@`` (MiniTorch multiplies float16
  matrices as float32 ones and rounds once, because NumPy has no float16 BLAS).
- **training step**: the MLP 784-256-10 (ReLU), batch 256, Adam, cross-entropy; float32
  against ``autocast`` + ``GradScaler`` (float16 matrix products, float32 parameters).

Each figure is the median over ``--repeats`` interleaved rounds (float32, float16,
float32, ...), so a busy machine slows both alike; the ratio column is float16 / float32
time (above 1: mixed precision is slower). With PyTorch installed, its CPU rows are added
for comparison (``torch.autocast("cpu", dtype=torch.float16)``).
"""

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _machine import start_report  # noqa: E402

import minitorch  # noqa: E402
from minitorch import nn  # noqa: E402
from minitorch.nn import functional as F  # noqa: E402


def sync(device):
    if device == "cuda":
        minitorch.cuda.synchronize()


def seconds(fn, device, inner):
    """Seconds per call of ``fn``, timed over ``inner`` calls."""
    sync(device)
    start = time.perf_counter()
    for _ in range(inner):
        fn()
    sync(device)
    return (time.perf_counter() - start) / inner


def interleaved(fns, device, repeats, inner):
    """Median seconds per call of each function in ``fns`` (a dict), measured in alternation."""
    for fn in fns.values():  # warm up: caches, kernel compilation, the memory pool
        fn()
    times = {name: [] for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            times[name].append(seconds(fn, device, inner))
    return {name: statistics.median(t) for name, t in times.items()}


# ---------------------------------------------------------------------- matmul
def square(m):
    """A function computing ``m @ m``."""
    return lambda: m @ m


def matmul_rows(device, sizes, repeats):
    rows = []
    rng = np.random.default_rng(0)
    for n in sizes:
        a_np = rng.standard_normal((n, n), dtype=np.float32)
        a32 = minitorch.tensor(a_np, device=device)
        a16 = a32.half()
        fns = {"float32": square(a32), "float16": square(a16)}
        if device == "cpu" and n <= 512:  # NumPy's float16 product is very slow: small sizes only
            fns["numpy float16"] = square(a_np.astype(np.float16))
        t = interleaved(fns, device, repeats, inner=1 if n >= 1024 else 5)
        rows.append((f"MiniTorch matmul {n}x{n}", t["float32"], t["float16"], ""))
        if "numpy float16" in t:
            rows.append((f"NumPy's own float16 @ {n}x{n}", t["float32"], t["numpy float16"], "no BLAS for float16"))
    return rows


# ---------------------------------------------------------------------- training step
def mlp_step_fns(device, batch, hidden):
    """One training step of the float32 model and one of the mixed-precision model, as closures."""
    rng = np.random.default_rng(0)
    x = minitorch.tensor(rng.standard_normal((batch, 784), dtype=np.float32), device=device)
    y = minitorch.tensor(rng.integers(0, 10, batch), device=device)
    fns = {}
    for name, amp in (("float32", False), ("float16", True)):
        minitorch.manual_seed(0)
        model = nn.Sequential(nn.Linear(784, hidden), nn.ReLU(), nn.Linear(hidden, 10)).to(device)
        opt = minitorch.optim.Adam(model.parameters(), lr=1e-3)
        scaler = minitorch.amp.GradScaler(device, enabled=amp)

        def step(model=model, opt=opt, scaler=scaler, amp=amp):
            with minitorch.autocast(device, enabled=amp):
                loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()

        fns[name] = step
    return fns


def torch_rows(sizes, batch, hidden, repeats):
    """PyTorch's CPU float32 vs float16 for the same two measurements (None without PyTorch)."""
    try:
        import torch
    except ImportError:
        return []
    rows = []
    for n in sizes:
        a32 = torch.randn(n, n)
        t = interleaved({"float32": square(a32), "float16": square(a32.half())}, "cpu", repeats,
                        inner=1 if n >= 1024 else 5)
        rows.append((f"PyTorch matmul {n}x{n}", t["float32"], t["float16"], ""))
    x, y = torch.randn(batch, 784), torch.randint(0, 10, (batch,))
    fns = {}
    for name, amp in (("float32", False), ("float16", True)):
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(784, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, 10))
        opt = torch.optim.Adam(model.parameters(), lr=1e-3)
        scaler = torch.amp.GradScaler("cpu", enabled=amp)

        def step(model=model, opt=opt, scaler=scaler, amp=amp):
            with torch.autocast("cpu", dtype=torch.float16, enabled=amp):
                loss = torch.nn.functional.cross_entropy(model(x), y)
            opt.zero_grad()
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()

        fns[name] = step
    t = interleaved(fns, "cpu", repeats, inner=5)
    rows.append((f"PyTorch MLP step (784-{hidden}-10, batch {batch})", t["float32"], t["float16"], "autocast"))
    return rows


def run(args):
    """Every row: (device, label, float32 seconds or None, float16 seconds or None, note)."""
    rows = []
    for device in args.devices.split(","):
        if device == "cuda" and not minitorch.cuda.is_available():
            reason = f"skipped: no usable GPU ({minitorch.cuda.unavailable_reason()})"
            rows.append((device, "all rows", None, None, reason))
            continue
        for label, t32, t16, note in matmul_rows(device, args.sizes, args.repeats):
            rows.append((device, label, t32, t16, note))
        t = interleaved(mlp_step_fns(device, args.batch, args.hidden), device, args.repeats, inner=5)
        rows.append((device, f"MiniTorch MLP step (784-{args.hidden}-10, batch {args.batch})", t["float32"],
                     t["float16"], "autocast + GradScaler"))
        if device == "cpu" and not args.no_torch:
            rows.extend(("cpu", label, t32, t16, note)
                        for label, t32, t16, note in torch_rows(args.sizes, args.batch, args.hidden, args.repeats))
    return rows


def report(rows):
    lines = ["| device | measurement | float32 ms | float16 / autocast ms | float16 / float32 | notes |",
             "|---|---|---:|---:|---:|---|"]
    for device, label, t32, t16, note in rows:
        if t32 is None:
            lines.append(f"| {device} | {label} | - | - | - | {note} |")
        else:
            lines.append(f"| {device} | {label} | {1e3 * t32:.3f} | {1e3 * t16:.3f} | {t16 / t32:.2f}x | {note} |")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", default="cpu,cuda")
    parser.add_argument("--sizes", default="256,1024", type=lambda s: [int(v) for v in s.split(",")])
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--threads", type=int, default=None, help="BLAS/PyTorch threads (default: leave as is)")
    parser.add_argument("--no-torch", action="store_true", help="skip the PyTorch rows")
    args = parser.parse_args(argv)
    start_report(args.threads)
    if minitorch.cuda.is_available():
        print(f"- GPU: {minitorch.cuda.get_device_name()}")
    print("\n## Mixed precision\n")
    rows = run(args)
    print(report(rows))
    return rows


if __name__ == "__main__":
    main()
