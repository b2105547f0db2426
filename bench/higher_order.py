"""What a Hessian-vector product costs next to a gradient: MiniTorch against PyTorch (CPU).

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE .venv/bin/python bench/higher_order.py --threads 1

The digits MLP (64-128-10, ReLU, cross-entropy, batch 64, float32) and its loss L(w):

  grad  one forward and one backward: dL/dw for every parameter;
  hvp   H v for a random direction v of the parameters' shapes, Pearlmutter's way: the
        gradient recorded (create_graph=True), then the gradient of (grad . v): one forward,
        one recorded backward, one backward through both.

Each library's ratio time(hvp) / time(grad) says what a second-order step costs in it; the
target (issue 35) is MiniTorch's ratio within 1.2x of PyTorch's, measured in the same run.
Rounds are interleaved (MiniTorch grad, MiniTorch hvp, PyTorch grad, PyTorch hvp), medians
reported; one BLAS thread and one PyTorch thread (--threads), so that a loaded machine slows
every case alike. The H v of both libraries are compared too (float32 rounding).
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

SIZES = (64, 128, 10)


def make_problem(seed=0, batch=64):
    """Digits batch, weights and a direction v, as NumPy arrays shared by both libraries."""
    split = minitorch.datasets.load_digits()
    x = split.X_train.data[:batch].astype(np.float32)
    y = split.y_train.data[:batch].astype(np.int64)
    rng = np.random.default_rng(seed)
    params, direction = [], []
    for fan_in, fan_out in zip(SIZES[:-1], SIZES[1:]):
        bound = 1 / np.sqrt(fan_in)
        for shape in ((fan_out, fan_in), (fan_out,)):
            params.append(rng.uniform(-bound, bound, shape).astype(np.float32))
            direction.append(rng.standard_normal(shape).astype(np.float32))
    return x, y, params, direction


def loss_of(lib, functional, x, y, params):
    w1, b1, w2, b2 = params
    hidden = functional.relu(functional.linear(x, w1, b1))
    return functional.cross_entropy(functional.linear(hidden, w2, b2), y)


def steps(lib, functional, problem):
    """(grad step, hvp step) as closures over fresh leaves of ``lib``."""
    x, y, params, direction = problem
    xs, ys = lib.tensor(x), lib.tensor(y)
    ps = [lib.tensor(p, requires_grad=True) for p in params]
    vs = [lib.tensor(v) for v in direction]

    def grad():
        return lib.autograd.grad(loss_of(lib, functional, xs, ys, ps), ps)

    def hvp():
        gs = lib.autograd.grad(loss_of(lib, functional, xs, ys, ps), ps, create_graph=True)
        dot = sum((g * v).sum() for g, v in zip(gs, vs))
        return lib.autograd.grad(dot, ps)

    return grad, hvp


def timed(fn, repeat):
    start = time.perf_counter()
    for _ in range(repeat):
        fn()
    return (time.perf_counter() - start) / repeat


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--repeat", type=int, default=20, help="calls per timed sample")
    parser.add_argument("--threads", type=int, default=1, help="BLAS and PyTorch threads")
    args = parser.parse_args(argv)
    import torch
    import torch.nn.functional as tf
    from threadpoolctl import threadpool_limits

    torch.set_num_threads(args.threads)
    start_report(args.threads)
    problem = make_problem()
    m_grad, m_hvp = steps(minitorch, minitorch.nn.functional, problem)
    t_grad, t_hvp = steps(torch, tf, problem)
    mine = [h.numpy() for h in m_hvp()]
    theirs = [h.numpy() for h in t_hvp()]
    worst = max(float(np.abs(a - b).max() / (np.abs(b).max() + 1e-30)) for a, b in zip(mine, theirs))
    print(f"H v, MiniTorch against PyTorch: largest difference {worst:.2e} of the largest entry")
    samples = {name: [] for name in ("minitorch grad", "minitorch hvp", "torch grad", "torch hvp")}
    with threadpool_limits(args.threads):
        for fn in (m_grad, m_hvp, t_grad, t_hvp):  # warm-up
            timed(fn, 3)
        for _ in range(args.rounds):
            samples["minitorch grad"].append(timed(m_grad, args.repeat))
            samples["minitorch hvp"].append(timed(m_hvp, args.repeat))
            samples["torch grad"].append(timed(t_grad, args.repeat))
            samples["torch hvp"].append(timed(t_hvp, args.repeat))
    ratios = {
        "minitorch": [h / g for g, h in zip(samples["minitorch grad"], samples["minitorch hvp"])],
        "torch": [h / g for g, h in zip(samples["torch grad"], samples["torch hvp"])],
    }
    for name, values in samples.items():
        print(f"{name:15s} {statistics.median(values) * 1e6:9.1f} us")
    mine_ratio, torch_ratio = statistics.median(ratios["minitorch"]), statistics.median(ratios["torch"])
    per_round = statistics.median(m / t for m, t in zip(ratios["minitorch"], ratios["torch"]))
    print(f"hvp / grad: MiniTorch {mine_ratio:.2f}, PyTorch {torch_ratio:.2f}; "
          f"MiniTorch's ratio / PyTorch's: {per_round:.2f} (target <= 1.2)")


if __name__ == "__main__":
    main()
