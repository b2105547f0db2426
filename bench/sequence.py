"""Sequence models, MiniTorch against PyTorch on the CPU: training-step time and final loss.

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE .venv/bin/python bench/sequence.py
    .venv/bin/python bench/sequence.py --steps 20 --train-steps 60     # a quick look

Two models of ``minitorch.examples.charlm``, and the same written with ``torch.nn``
(same parameter names, so MiniTorch's initial weights are copied into PyTorch's):

  (a) LSTM language model: Embedding(80, 64) -> LSTM(64, 256) -> Linear(256, 80),
      batch 32, sequence 64;
  (b) one-block transformer: d_model 128, 4 heads, context 64, batch 32 (causal
      MultiheadAttention, LayerNorm, GELU MLP).

Part 1 times one training step (forward, cross-entropy, backward, clip_grad_norm_, Adam),
interleaving the two libraries step by step so a noisy shared machine slows both alike,
and reports medians and the ratio MiniTorch / PyTorch. Part 2 trains both from the same
initial weights on the same batches of the stdlib-docstring corpus for ``--train-steps``
steps and compares the validation loss. One thread each (``--threads``).
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
from minitorch.examples import charlm  # noqa: E402

BATCH, CONTEXT, VOCAB = 32, 64, 80


# ---------------------------------------------------------------------- the PyTorch twins
def torch_models():
    """PyTorch classes with the same structure and parameter names as charlm's models."""
    import torch
    from torch import nn as tnn

    class TorchLSTM(tnn.Module):
        def __init__(self, vocab):
            super().__init__()
            self.embed = tnn.Embedding(vocab, 64)
            self.lstm = tnn.LSTM(64, 256, batch_first=True)
            self.head = tnn.Linear(256, vocab)

        def forward(self, idx):
            out, _ = self.lstm(self.embed(idx))
            return self.head(out), None

    class TorchBlock(tnn.Module):
        def __init__(self, d, heads):
            super().__init__()
            self.ln1 = tnn.LayerNorm(d)
            self.attn = tnn.MultiheadAttention(d, heads, batch_first=True)
            self.ln2 = tnn.LayerNorm(d)
            self.mlp = tnn.Sequential(tnn.Linear(d, 4 * d), tnn.GELU(), tnn.Linear(4 * d, d))

        def forward(self, x):
            T = x.shape[1]
            causal = torch.ones(T, T, dtype=torch.bool).triu(1)
            h = self.ln1(x)
            a, _ = self.attn(h, h, h, attn_mask=causal, need_weights=False)
            x = x + a
            return x + self.mlp(self.ln2(x))

    class TorchTransformer(tnn.Module):
        def __init__(self, vocab, d=128, heads=4, context=CONTEXT):
            super().__init__()
            self.tok = tnn.Embedding(vocab, d)
            self.pos = tnn.Embedding(context, d)
            self.blocks = tnn.ModuleList([TorchBlock(d, heads)])
            self.ln = tnn.LayerNorm(d)
            self.head = tnn.Linear(d, vocab)

        def forward(self, idx):
            x = self.tok(idx) + self.pos(torch.arange(idx.shape[1]))
            for block in self.blocks:
                x = block(x)
            return self.head(self.ln(x)), None

    return {"lstm": TorchLSTM, "transformer": TorchTransformer}


def twins(kind, vocab, seed=0):
    """MiniTorch's model and PyTorch's with the same initial weights (copied from MiniTorch's)."""
    import torch

    minitorch.manual_seed(seed)
    mine = charlm.make_model(kind, vocab, CONTEXT)
    theirs = torch_models()[kind](vocab)
    state = {k: torch.tensor(v.numpy()) for k, v in mine.state_dict().items()}
    theirs.load_state_dict(state)
    return mine, theirs


def trainers(mine, theirs, lr=3e-3):
    """One training step for each library: forward, loss, backward, clip, Adam."""
    import torch

    m_opt = minitorch.optim.Adam(mine.parameters(), lr=lr)
    t_opt = torch.optim.Adam(theirs.parameters(), lr=lr)

    def m_step(x, y):
        loss = charlm.loss_of(mine, minitorch.tensor(x), minitorch.tensor(y))
        m_opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(mine.parameters(), 1.0)
        m_opt.step()
        return loss.item()

    def t_step(x, y):
        logits, _ = theirs(torch.from_numpy(x))
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), torch.from_numpy(y).reshape(-1))
        t_opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(theirs.parameters(), 1.0)
        t_opt.step()
        return loss.item()

    return m_step, t_step


def windows(data, rng):
    starts = rng.integers(0, len(data) - CONTEXT - 1, BATCH)
    rows = starts[:, None] + np.arange(CONTEXT)
    return data[rows], data[rows + 1]


# ---------------------------------------------------------------------- part 1: step time
def time_steps(kind, steps):
    mine, theirs = twins(kind, VOCAB)
    m_step, t_step = trainers(mine, theirs)
    data = np.random.default_rng(0).integers(0, VOCAB, 200_000)
    rng = np.random.default_rng(1)
    for _ in range(3):  # warm up both (allocations, caches)
        x, y = windows(data, rng)
        m_step(x, y)
        t_step(x, y)
    m_times, t_times = [], []
    for _ in range(steps):
        x, y = windows(data, rng)
        start = time.perf_counter()
        m_step(x, y)
        m_times.append(time.perf_counter() - start)
        start = time.perf_counter()
        t_step(x, y)
        t_times.append(time.perf_counter() - start)
    return statistics.median(m_times), statistics.median(t_times)


# ---------------------------------------------------------------------- part 2: same recipe, same loss?
def train_both(kind, train_steps, seed=0):
    import torch

    text = charlm.load_corpus()
    vocab = charlm.Vocab(text)
    data = vocab.encode(text)
    split = int(0.9 * len(data))
    mine, theirs = twins(kind, len(vocab), seed)
    m_step, t_step = trainers(mine, theirs)
    rng = np.random.default_rng(seed)
    for _ in range(train_steps):
        x, y = windows(data[:split], rng)
        m_step(x, y)
        t_step(x, y)
    val = data[split:]
    vrng = np.random.default_rng(1234)
    m_losses, t_losses = [], []
    mine.eval()
    theirs.eval()
    for _ in range(8):
        x, y = windows(val, vrng)
        with minitorch.no_grad():
            m_losses.append(charlm.loss_of(mine, minitorch.tensor(x), minitorch.tensor(y)).item())
        with torch.no_grad():
            logits, _ = theirs(torch.from_numpy(x))
            t_losses.append(torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]),
                                                              torch.from_numpy(y).reshape(-1)).item())  # fmt: skip
    return float(np.mean(m_losses)), float(np.mean(t_losses))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=40, help="timed training steps per library and model")
    parser.add_argument("--train-steps", type=int, default=300, help="steps of the same-recipe comparison")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--models", default="lstm,transformer")
    args = parser.parse_args(argv)
    start_report(args.threads)
    kinds = args.models.split(",")
    print("\n## Training step (median seconds, batch 32, sequence 64)\n")
    print("| model | MiniTorch | PyTorch | MiniTorch / PyTorch |")
    print("|---|---|---|---|")
    for kind in kinds:
        m, t = time_steps(kind, args.steps)
        print(f"| {kind} | {m * 1000:.1f} ms | {t * 1000:.1f} ms | {m / t:.2f} |", flush=True)
    print(f"\n## Same recipe, same seed, same batches: validation loss after {args.train_steps} steps\n")
    print("| model | MiniTorch | PyTorch | difference |")
    print("|---|---|---|---|")
    for kind in kinds:
        m, t = train_both(kind, args.train_steps)
        print(f"| {kind} | {m:.4f} | {t:.4f} | {100 * (m - t) / t:+.2f}% |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
