"""``minitorch.compile``d training steps against eager MiniTorch, PyTorch eager and NumPy by hand.

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE .venv/bin/python bench/compiled.py --threads 1

Four cases, the models of the course:
  mlp          digits 64-128-10, batch 64, Adam: one epoch (the runners of train_mlp.py), and
               23 steps on batches taken beforehand (the step alone, without the loaders);
  cnn          the digits CNN, batch 64, Adam: one epoch (the runners of train_cnn.py);
  lstm         charlm's LSTM LM (80-64-256, batch 32, context 64), Adam: one step;
  transformer  charlm's one-block transformer (d_model 128, 4 heads), Adam: one step.

Runs are interleaved (every implementation once per round, ``gc.collect()`` before each),
and each ratio is the median over rounds of (compiled time / the other's time in the same
round). The trace cost is the first call of a fresh compiled step against the first
eager step of a fresh model, and against a steady eager step.
"""

import argparse
import gc
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import train_cnn  # noqa: E402
import train_mlp  # noqa: E402
from _machine import start_report  # noqa: E402

import minitorch  # noqa: E402
from minitorch.examples import charlm  # noqa: E402
from minitorch.nn import functional as F  # noqa: E402


def compiled_epoch(runner):
    """Replace ``runner.epoch`` by the same epoch whose step is ``minitorch.compile``d."""
    model, opt = runner.model, runner.opt

    @minitorch.compile
    def step(xb, yb):
        opt.zero_grad()
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        opt.step()
        return loss

    def epoch():
        for xb, yb in runner.loader:
            loss = step(xb, yb)
        return loss.item()

    runner.name += " compiled"
    runner.epoch = epoch
    runner.step = step
    return runner


class StepRunner:
    """``steps`` training steps on batches taken beforehand (no DataLoader, no shuffling):
    the digits MLP step itself, compiled MiniTorch or NumPy by hand."""

    def __init__(self, runner, steps=23):
        n = runner.X.shape[0] if hasattr(runner, "X") else len(runner.loader.dataset)
        order = np.random.default_rng(0).permutation(n)
        self.batches = [order[i * 64 : (i + 1) * 64] for i in range(steps)]
        if isinstance(runner, train_mlp.NumpyRunner):
            self.name = "NumPy (by hand), steps"
            data = [(runner.X[idx], runner.y[idx]) for idx in self.batches]
            self.epoch = lambda: [runner.step(x, y) for x, y in data][-1]
            return
        compiled_epoch(runner)
        self.name = "MiniTorch compiled, steps"
        X, y = runner.loader.dataset.tensors
        data = [(minitorch.tensor(X.data[idx]), minitorch.tensor(y.data[idx])) for idx in self.batches]
        self.epoch = lambda: [runner.step(x, t) for x, t in data][-1].item()


class SequenceRunner:
    """One training step of a charlm model per ``epoch()`` call, eager or compiled, or PyTorch's."""

    def __init__(self, kind, library, compiled=False):
        import sequence

        mine, theirs = sequence.twins(kind, sequence.VOCAB)
        self.data = np.random.default_rng(0).integers(0, sequence.VOCAB, 200_000)
        self.rng = np.random.default_rng(1)
        self.windows = sequence.windows
        self.name = {"minitorch": "MiniTorch", "torch": "PyTorch"}[library] + (" compiled" if compiled else "")
        if library == "torch":
            import torch

            opt = torch.optim.Adam(theirs.parameters(), lr=3e-3)

            def step(x, y):
                logits, _ = theirs(torch.from_numpy(x))
                loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]),
                                                         torch.from_numpy(y).reshape(-1))  # fmt: skip
                opt.zero_grad()
                loss.backward()
                opt.step()
                return loss

            self.run = step
            return
        m_opt = minitorch.optim.Adam(mine.parameters(), lr=3e-3)

        def m_step(x, y):
            loss = charlm.loss_of(mine, x, y)
            m_opt.zero_grad()
            loss.backward()
            m_opt.step()
            return loss

        self.step = minitorch.compile(m_step) if compiled else m_step
        self.run = lambda x, y: self.step(minitorch.tensor(x), minitorch.tensor(y))

    def epoch(self):
        x, y = self.windows(self.data, self.rng)
        return self.run(x, y).item()


def interleave(runners, rounds, reference):
    """Median seconds per call of each runner, and median per-round ratios ``reference / other``."""
    times = {r.name: [] for r in runners}
    for i in range(rounds + 2):  # two rounds of warm-up (the trace, the first replay)
        for r in runners:
            gc.collect()
            start = time.perf_counter()
            r.epoch()
            if i >= 2:
                times[r.name].append(time.perf_counter() - start)
    ref = times[reference]
    median = {n: statistics.median(ts) for n, ts in times.items()}
    ratio = {n: statistics.median(a / b for a, b in zip(ref, ts)) for n, ts in times.items()}
    return median, ratio


def trace_cost(make_eager, make_compiled, repeats=5):
    """(first compiled call / first eager call, first compiled call / steady eager call, second
    compiled call / steady eager call: the first replay, which lowers the program), medians."""
    first, steady, traced, lowered = [], [], [], []
    for _ in range(repeats):
        eager = make_eager()
        gc.collect()
        start = time.perf_counter()
        eager()
        first.append(time.perf_counter() - start)
        start = time.perf_counter()
        eager()
        steady.append(time.perf_counter() - start)
        compiled = make_compiled()
        gc.collect()
        start = time.perf_counter()
        compiled()
        traced.append(time.perf_counter() - start)
        start = time.perf_counter()
        compiled()
        lowered.append(time.perf_counter() - start)
    t, s = statistics.median(traced), statistics.median(steady)
    return t / statistics.median(first), t / s, statistics.median(lowered) / s


def one_step(runner):
    """A function doing one training step of a fresh runner's first batch."""
    xb, yb = next(iter(runner.loader))
    model, opt = runner.model, runner.opt

    def step(x, y):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss

    return step, xb, yb


def report(label, runners, rounds, reference, make):
    median, ratio = interleave(runners, rounds, reference)
    print(f"\n### {label}: {rounds} interleaved rounds\n")
    print(f"| implementation | median s | {reference} / this |")
    print("| --- | ---: | ---: |")
    for name, sec in median.items():
        print(f"| {name} | {sec:.5f} | {ratio[name]:.2f} |")

    def eager():
        step, x, y = make()
        return lambda: step(x, y)

    def compiled():
        step, x, y = make()
        run = minitorch.compile(step)
        return lambda: run(x, y)

    vs_first, vs_steady, second = trace_cost(eager, compiled)
    print(f"\ntrace cost: first compiled call = {vs_first:.2f} x the first eager step, {vs_steady:.2f} x a steady one;"
          f" second call (the first replay, which lowers) = {second:.2f} x a steady eager step")  # fmt: skip


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", default="mlp,cnn,lstm,transformer")
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args(argv)
    start_report(args.threads)
    cases = args.cases.split(",")
    if "mlp" in cases:
        X, y = train_mlp.digits_data()
        sizes = (64, 128, 10)
        runners = [train_mlp.MiniTorchRunner(X, y, sizes, 64),
                   compiled_epoch(train_mlp.MiniTorchRunner(X, y, sizes, 64)),
                   train_mlp.TorchRunner(X, y, sizes, 64), train_mlp.NumpyRunner(X, y, sizes, 64)]  # fmt: skip
        report("digits MLP, one epoch", runners, args.rounds, "MiniTorch compiled",
               lambda: one_step(train_mlp.MiniTorchRunner(X, y, sizes, 64)))  # fmt: skip
        steps = [StepRunner(train_mlp.MiniTorchRunner(X, y, sizes, 64)),
                 StepRunner(train_mlp.NumpyRunner(X, y, sizes, 64))]  # fmt: skip
        median, ratio = interleave(steps, args.rounds, "MiniTorch compiled, steps")
        print(f"\n### digits MLP, 23 steps on batches taken beforehand: {args.rounds} interleaved rounds\n")
        print("| implementation | median s | MiniTorch compiled / this |")
        print("| --- | ---: | ---: |")
        for name, sec in median.items():
            print(f"| {name} | {sec:.5f} | {ratio[name]:.2f} |")
    if "cnn" in cases:
        split = minitorch.datasets.load_digits(images=True)
        X, y = split.X_train.data, split.y_train.data
        minitorch.manual_seed(0)
        state = {k: v.data.copy() for k, v in train_cnn.make_cnn().state_dict().items()}
        runners = [train_cnn.MiniTorchCNN(X, y, state), compiled_epoch(train_cnn.MiniTorchCNN(X, y, state)),
                   train_cnn.TorchCNN(X, y, state)]  # fmt: skip
        report("digits CNN, one epoch", runners, max(args.rounds // 3, 5), "MiniTorch compiled",
               lambda: one_step(train_cnn.MiniTorchCNN(X, y, state)))  # fmt: skip
    for kind in ("lstm", "transformer"):
        if kind in cases:
            runners = [SequenceRunner(kind, "minitorch"), SequenceRunner(kind, "minitorch", compiled=True),
                       SequenceRunner(kind, "torch")]  # fmt: skip
            report(f"charlm {kind}, one training step", runners, args.rounds, "MiniTorch compiled",
                   lambda kind=kind: _sequence_step(kind))  # fmt: skip


def _sequence_step(kind):
    runner = SequenceRunner(kind, "minitorch")
    x, y = runner.windows(runner.data, runner.rng)
    return runner.step, minitorch.tensor(x), minitorch.tensor(y)


if __name__ == "__main__":
    main()
