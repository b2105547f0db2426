"""How long the matrix products alone of a charlm training step take in NumPy, against PyTorch.

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE .venv/bin/python bench/product_floor.py --threads 1

A training step of charlm's LSTM LM or one-block transformer (the shapes of
bench/sequence.py) needs a fixed list of matrix products: forward, and the two gradient
products of each. NumPy runs them on its BLAS (OpenBLAS in NumPy's wheels), PyTorch on its
own (MKL, and oneDNN's fused LSTM). This script times exactly those products, each in the
operand layout MiniTorch's kernels use, in both libraries, interleaved in the same run,
and PyTorch's whole training step beside them. The NumPy products are a floor no NumPy
program of that step can go below: if they alone take most of PyTorch's whole step, the
element-wise work (gates, GELU, softmax, layer norm, Adam) cannot fit in what is left.
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

from minitorch.kernels.cpu.small_products import matmul_narrow  # noqa: E402  (and MiniTorch's allocator settings)

BATCH, CONTEXT, VOCAB = 32, 64, 80
TOKENS = BATCH * CONTEXT


def lstm_products(rng, embed=64, hidden=256):
    """(name, a, b, times): the LSTM step's products, a @ b each, ``times`` per step."""
    gates = 4 * hidden

    def m(*shape):
        return rng.standard_normal(shape).astype(np.float32)

    w_hh = m(gates, hidden)
    return [
        ("input projection  x W_ih^T", m(TOKENS, embed), m(gates, embed).T, 1),
        ("step product      W_hh h^T", w_hh, m(hidden, BATCH), CONTEXT),  # (h^T feature-major, as the LSTM keeps it)
        ("head              h W^T", m(TOKENS, hidden), m(VOCAB, hidden).T, 1),
        ("step gradient     W_hh^T dz", np.ascontiguousarray(w_hh.T), m(gates, BATCH), CONTEXT),
        ("dW_hh             dz^T h", m(gates, TOKENS), m(TOKENS, hidden), 1),
        ("dW_ih             dz^T x", m(gates, TOKENS), m(TOKENS, embed), 1),
        ("dx                dz W_ih", m(TOKENS, gates), m(gates, embed), 1),
        ("head dx           g W", m(TOKENS, VOCAB), m(VOCAB, hidden), 1),
        ("head dW           g^T h", m(TOKENS, VOCAB).T, m(TOKENS, hidden), 1),
    ]


def transformer_products(rng, d=128, heads=4):
    """(name, a, b, times): the one-block transformer step's products (its five Linear
    layers forward and back, and attention's six batched products)."""

    def m(*shape):
        return rng.standard_normal(shape).astype(np.float32)

    out = []
    for label, fan_in, fan_out in (("qkv", d, 3 * d), ("attn out", d, d), ("mlp up", d, 4 * d),
                                   ("mlp down", 4 * d, d), ("head", d, VOCAB)):  # fmt: skip
        x, w, g = m(TOKENS, fan_in), m(fan_out, fan_in), m(TOKENS, fan_out)
        out += [(f"{label:9s} x W^T", x, w.T, 1), (f"{label:9s} dx = g W", g, w, 1),
                (f"{label:9s} dW = g^T x", g.T, x, 1)]  # fmt: skip
    stack, e = BATCH * heads, d // heads
    q, k, v, p = m(stack, CONTEXT, e), m(stack, CONTEXT, e), m(stack, CONTEXT, e), m(stack, CONTEXT, CONTEXT)
    out += [("attention q k^T", q, k.transpose(0, 2, 1), 1), ("attention p v", p, v, 1),
            ("attention dv = p^T g", p.transpose(0, 2, 1), q, 1), ("attention dp = g v^T", q, v.transpose(0, 2, 1), 1),
            ("attention dq = ds k", p, k, 1), ("attention dk = ds^T q", p.transpose(0, 2, 1), q, 1)]  # fmt: skip
    return out


def numpy_product(a, b):
    """a @ b as MiniTorch's kernels run it: a recurrent step's product (few columns) through
    ``kernels/cpu/small_products.matmul_narrow`` (row blocks on OpenBLAS's AVX-512 small-product kernels)."""
    if a.ndim == 2 and b.shape[-1] <= 48:
        out = np.empty((a.shape[0], b.shape[1]), dtype=np.result_type(a, b))
        return lambda: matmul_narrow(np, a, b, out)
    return lambda: np.matmul(a, b)


def time_once(fn, times):
    start = time.perf_counter()
    for _ in range(times):
        fn()
    return time.perf_counter() - start


def measure(products, torch, rounds):
    """Median seconds per step of each product, NumPy and PyTorch, interleaved."""
    rows = []
    for name, a, b, times in products:
        ta, tb = torch.from_numpy(np.ascontiguousarray(a)), torch.from_numpy(np.ascontiguousarray(b))
        # the same layout on both sides: a transposed view stays one
        if not a.flags.c_contiguous:
            ta = torch.from_numpy(np.ascontiguousarray(np.swapaxes(a, -1, -2))).transpose(-1, -2)
        if not b.flags.c_contiguous:
            tb = torch.from_numpy(np.ascontiguousarray(np.swapaxes(b, -1, -2))).transpose(-1, -2)
        mine, theirs = [], []
        for _ in range(rounds):
            mine.append(time_once(numpy_product(a, b), times))
            theirs.append(time_once(lambda ta=ta, tb=tb: torch.matmul(ta, tb), times))
        rows.append((name, times, statistics.median(mine), statistics.median(theirs)))
    return rows


def torch_step_time(kind, rounds):
    """Median seconds of PyTorch's whole training step of that model, as bench/compiled.py
    times it (forward, cross-entropy, backward, Adam; the twin of bench/sequence.py)."""
    import sequence
    import torch

    _, theirs = sequence.twins(kind, VOCAB)
    opt = torch.optim.Adam(theirs.parameters(), lr=3e-3)

    def step(x, y):
        logits, _ = theirs(torch.from_numpy(x))
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, VOCAB), torch.from_numpy(y).reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()

    data = np.random.default_rng(0).integers(0, VOCAB, 200_000)
    rng = np.random.default_rng(1)
    for _ in range(3):
        step(*sequence.windows(data, rng))
    times = []
    for _ in range(rounds):
        x, y = sequence.windows(data, rng)
        start = time.perf_counter()
        step(x, y)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def report(kind, products, torch, rounds):
    rows = measure(products, torch, rounds)
    step = torch_step_time(kind, rounds)
    print(f"\n### charlm {kind}: the step's matrix products, {rounds} rounds\n")
    print("| product | per step | NumPy ms | PyTorch ms | NumPy / PyTorch |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name, times, mine, theirs in rows:
        print(f"| {name} | {times} | {mine * 1e3:.2f} | {theirs * 1e3:.2f} | {mine / theirs:.2f} |")
    total_mine, total_theirs = sum(r[2] for r in rows), sum(r[3] for r in rows)
    print(f"| **all products** | | **{total_mine * 1e3:.1f}** | **{total_theirs * 1e3:.1f}** | "
          f"**{total_mine / total_theirs:.2f}** |")  # fmt: skip
    print(f"\nPyTorch's whole training step: {step * 1e3:.1f} ms. NumPy's products alone are "
          f"{total_mine / step:.2f} of it, leaving {max(step - total_mine, 0) * 1e3:.1f} ms for everything else "
          f"(PyTorch's own products leave {max(step - total_theirs, 0) * 1e3:.1f} ms).")  # fmt: skip


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--cases", default="lstm,transformer")
    args = parser.parse_args(argv)
    start_report(args.threads)
    import torch

    rng = np.random.default_rng(0)
    cases = {"lstm": lstm_products, "transformer": transformer_products}
    for kind in args.cases.split(","):
        report(kind, cases[kind](rng), torch, args.rounds)


if __name__ == "__main__":
    main()
