"""Per-call cost of forward + backward on small tensors: MiniTorch against PyTorch (CPU).

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE .venv/bin/python bench/op_overhead.py
    ... bench/op_overhead.py --json bench/results/op_overhead.json
    ... bench/op_overhead.py --profile        # where MiniTorch spends the 10-op expression

On 64x64 float32 tensors the arithmetic takes a few microseconds, so what is measured is
mostly the framework's own overhead per op: building the graph node, dispatching, dtype
promotion, and the backward walk. Each case runs one forward and one backward (a
non-scalar output is backpropagated with a fixed gradient of ones) and resets the
leaves' ``.grad``, identically in both libraries.

Timing is timeit-style: each case is first warmed up, then the number of calls per
sample is chosen so a sample lasts about ``--target-ms``; samples of MiniTorch and PyTorch
alternate case by case (so a noisy, shared machine slows both alike) and the median
sample is reported. PyTorch runs with its default thread settings (printed below) unless
``--torch-threads N`` is given: on a loaded machine its default worker threads can wait on
each other, which ``--torch-threads 1`` shows.
"""

import argparse
import cProfile
import io
import json
import pstats
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _machine import describe  # noqa: E402

import minitorch  # noqa: E402


# ---------------------------------------------------------------------- the cases
def make_inputs(lib, size, seed=0):
    """Four float32 leaves (three requiring grad, one weight) from the same NumPy data."""
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal((size, size)).astype(np.float32) for _ in range(4)]
    a, b, c, w = (lib.tensor(x, requires_grad=True) for x in arrays)
    ones = lib.ones(size, size)
    return {"a": a, "b": b, "c": c, "w": w, "ones": ones}


def ten_op_expression(a, b, c, w):
    """mul, add, relu, matmul, tanh, mul, sub, sigmoid, add, sum: ten recorded ops."""
    return ((((a * b + c).relu() @ w).tanh() * 0.5 - b).sigmoid() + a).sum()


CASES = {
    "add": lambda t: (t["a"] + t["b"]).backward(t["ones"]),
    "mul": lambda t: (t["a"] * t["b"]).backward(t["ones"]),
    "matmul": lambda t: (t["a"] @ t["w"]).backward(t["ones"]),
    "relu": lambda t: t["a"].relu().backward(t["ones"]),
    "sum": lambda t: t["a"].sum().backward(),
    "10-op expression": lambda t: ten_op_expression(t["a"], t["b"], t["c"], t["w"]).backward(),
}


def step(case, tensors):
    """One forward + backward, then clear the leaves' gradients for the next call."""
    CASES[case](tensors)
    for name in ("a", "b", "c", "w"):
        tensors[name].grad = None


# ---------------------------------------------------------------------- timing
def time_calls(case, tensors, number):
    """Seconds per call over ``number`` back-to-back calls."""
    start = time.perf_counter()
    for _ in range(number):
        step(case, tensors)
    return (time.perf_counter() - start) / number


def calls_per_sample(case, tensors, target_s):
    """How many calls make a sample of about ``target_s`` (timeit's autorange idea)."""
    number = 1
    while True:
        elapsed = time_calls(case, tensors, number) * number
        if elapsed >= target_s / 4 or number >= 1_000_000:
            return max(1, int(number * target_s / max(elapsed, 1e-9)))
        number *= 4


def benchmark(libs, size, repeat, target_ms, warmup):
    """Median microseconds per call, per case and library, with samples interleaved."""
    inputs = {name: make_inputs(lib, size) for name, lib in libs.items()}
    numbers = {}
    for case in CASES:
        for name in libs:
            for _ in range(warmup):
                step(case, inputs[name])
            numbers[case, name] = calls_per_sample(case, inputs[name], target_ms / 1000)
    samples = {key: [] for key in numbers}
    for _ in range(repeat):
        for case in CASES:
            for name in libs:
                samples[case, name].append(time_calls(case, inputs[name], numbers[case, name]))
    return {
        case: {name: statistics.median(samples[case, name]) * 1e6 for name in libs} for case in CASES
    }, numbers


def check_same_results(libs, size):
    """Both libraries compute the same gradients here, or the comparison would be unfair."""
    if "torch" not in libs:
        return
    mine, theirs = make_inputs(minitorch, size), make_inputs(libs["torch"], size)
    for tensors in (mine, theirs):
        ten_op_expression(tensors["a"], tensors["b"], tensors["c"], tensors["w"]).backward()
    for name in ("a", "b", "c", "w"):
        np.testing.assert_allclose(mine[name].grad.numpy(), theirs[name].grad.numpy(), rtol=1e-3, atol=1e-4)


# ---------------------------------------------------------------------- reporting
def table(results):
    has_torch = all("torch" in row for row in results.values())
    lines = [f"{'op (64x64 float32, fwd+bwd)':<30} {'minitorch µs':>13} {'torch µs':>10} {'ratio':>7}"]
    for case, row in results.items():
        if has_torch:
            ratio = row["minitorch"] / row["torch"]
            lines.append(f"{case:<30} {row['minitorch']:>13.1f} {row['torch']:>10.1f} {ratio:>7.2f}")
        else:
            lines.append(f"{case:<30} {row['minitorch']:>13.1f} {'-':>10} {'-':>7}")
    return "\n".join(lines)


def profile_expression(size, calls, top):
    """cProfile MiniTorch on the 10-op expression: which functions take the time."""
    tensors = make_inputs(minitorch, size)
    for _ in range(50):
        step("10-op expression", tensors)
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(calls):
        step("10-op expression", tensors)
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(top)
    return out.getvalue()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=64, help="side of the square tensors (default 64)")
    parser.add_argument("--repeat", type=int, default=15, help="samples per case and library (default 15)")
    parser.add_argument("--target-ms", type=float, default=40.0, help="length of one sample (default 40 ms)")
    parser.add_argument("--warmup", type=int, default=200, help="untimed calls before timing (default 200)")
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    parser.add_argument("--no-torch", action="store_true", help="time MiniTorch only")
    parser.add_argument(
        "--torch-threads", type=int, help="call torch.set_num_threads(N) first (default: PyTorch's own setting)"
    )
    parser.add_argument("--profile", action="store_true", help="cProfile MiniTorch on the 10-op expression")
    args = parser.parse_args(argv)

    libs = {"minitorch": minitorch}
    if not args.no_torch:
        try:
            import torch

            libs["torch"] = torch
            if args.torch_threads:
                torch.set_num_threads(args.torch_threads)
        except ImportError:
            print("PyTorch is not installed: timing MiniTorch only")
    print(describe())
    if "torch" in libs:
        how = "set by --torch-threads" if args.torch_threads else "PyTorch's default, not changed"
        print(f"- torch.get_num_threads() = {libs['torch'].get_num_threads()} ({how})")
    check_same_results(libs, args.size)
    results, numbers = benchmark(libs, args.size, args.repeat, args.target_ms, args.warmup)
    print()
    print(table(results))
    if args.json:
        path = Path(args.json)
        path.parent.mkdir(parents=True, exist_ok=True)
        payload = {
            "size": args.size,
            "repeat": args.repeat,
            "calls_per_sample": {f"{case}/{lib}": n for (case, lib), n in numbers.items()},
            "median_us": results,
            "ratio": {case: row["minitorch"] / row["torch"] for case, row in results.items() if "torch" in row},
            "torch_threads": libs["torch"].get_num_threads() if "torch" in libs else None,
            "machine": describe(),
        }
        path.write_text(json.dumps(payload, indent=2))
        print(f"\nwrote {path}")
    if args.profile:
        print("\ncProfile of MiniTorch, 10-op expression (sorted by own time):")
        print(profile_expression(args.size, calls=2000, top=25))


if __name__ == "__main__":
    main()
