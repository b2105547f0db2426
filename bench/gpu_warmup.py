"""Fill CuPy's kernel cache and say how long compiling took, cold, apart from everything else.

    CUPY_CACHE_DIR=/tmp/empty-cache python bench/gpu_warmup.py      # bench/gpu_check.sh runs it

CuPy compiles every kernel with NVRTC at its first use (about 0.1-0.3 s each) and keeps
the binary in ``CUPY_CACHE_DIR``. Run with an empty cache, this script measures that cold
cost in two parts, then the same work again warm:

1. MiniTorch's own kernels (``minitorch/kernels/cuda/sources.py``, and ``syncs.spin``), each entry point for float16,
   float32 and float64, contiguous and transposed inputs;
2. the CuPy kernels a training step uses (elementwise ops, reductions, random numbers):
   the first step of an MLP in float32 and under autocast (float16), against the second.

Later runs that share the cache (the tests, ``bench/gpu.py``) then start warm.
"""

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import minitorch  # noqa: E402
from minitorch.cuda import syncs  # noqa: E402
from minitorch.kernels.cuda import sources as kernels  # noqa: E402
from minitorch.nn import functional as F  # noqa: E402


def cached_files():
    """How many compiled kernels the cache directory holds."""
    folder = Path(os.environ.get("CUPY_CACHE_DIR", Path.home() / ".cupy" / "kernel_cache"))
    return sum(1 for p in folder.rglob("*") if p.is_file()) if folder.exists() else 0


def minitorch_kernels(cupy):
    """Every entry point of ``kernels/cuda/sources.py`` (and the spin) once per dtype and layout; waits for the GPU."""
    for dtype in ("float16", "float32", "float64"):
        for transposed in (False, True):
            x = cupy.random.standard_normal((64, 10)).astype(dtype)
            x = cupy.ascontiguousarray(x.T).T if transposed else x
            target = cupy.arange(64) % 10
            y = kernels.relu_forward(x)
            kernels.relu_backward(y, x)
            kernels.bias_relu_forward(x, cupy.ones(10, dtype=dtype))
            losses, probs, counts, bad = kernels.softmax_xent_forward(x, target)
            kernels.softmax_xent_backward(probs, target, 1 / 64)
            kernels.softmax_xent_backward(probs, target, losses.sum())
            p, buf, m, v = (cupy.zeros((64, 10), dtype=dtype) for _ in range(4))
            kernels.sgd_momentum_step(p, buf, x, 0.1, 0.9, 0.0)
            kernels.adam_step(p, m, v, x, 1e-3, 0.9, 0.999, 1e-8, 0.0, 1.0, 1.0)
    syncs.spin(0)
    cupy.cuda.Device().synchronize()


def training_step(amp):
    """A step function of the MLP 784-256-10 (Adam, cross-entropy) on the GPU, float32 or autocast."""
    minitorch.manual_seed(0)
    nn = minitorch.nn
    model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10)).to("cuda")
    opt = minitorch.optim.Adam(model.parameters(), lr=1e-3)
    scaler = minitorch.amp.GradScaler("cuda", enabled=amp)
    x = minitorch.randn(256, 784, device="cuda")
    y = minitorch.randint(0, 10, (256,), device="cuda")

    def step():
        with minitorch.autocast("cuda", enabled=amp):
            loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        minitorch.cuda.synchronize()

    return step


def timed(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main():
    if not minitorch.cuda.is_available():
        print(f"- skipped: no usable GPU ({minitorch.cuda.unavailable_reason()})")
        return 1
    cupy = minitorch.cuda.cupy_module()
    before = cached_files()
    cold = timed(lambda: minitorch_kernels(cupy))
    mine = cached_files() - before
    warm = timed(lambda: minitorch_kernels(cupy))
    print(f"- cold compile, MiniTorch's kernels: {cold:.2f} s for {mine} new cache entries "
          f"(float16/32/64, contiguous and transposed); the same calls warm: {warm:.3f} s")
    for amp in (False, True):
        step = training_step(amp)
        before = cached_files()
        first = timed(step)
        compiled = cached_files() - before
        second = timed(step)
        label = "autocast float16" if amp else "float32"
        print(f"- cold compile, a training step ({label}): first step {first:.2f} s ({compiled} new cache entries), "
              f"second step {second * 1e3:.1f} ms")
    print(f"- kernel cache: {cached_files()} entries in {os.environ.get('CUPY_CACHE_DIR', '~/.cupy/kernel_cache')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
