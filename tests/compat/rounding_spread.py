"""How far rounding alone moves each number an example prints: PyTorch against itself.

    python tests/compat/rounding_spread.py polynomial_nn_optim.py rmsprop --orders 100
    python tests/compat/rounding_spread.py corpus/nanogpt_tiny.py --orders 10

Runs ``examples/pytorch/SCRIPT`` under PyTorch once as written and then ``--orders`` times
with its samples in another order: the 2,000 points of ``torch.linspace`` (the polynomial
scripts) or the images inside each training batch (``digits_classifier.py``) are shuffled.
In exact arithmetic every printed number stays the same (a loss sums over the samples, a
gradient too); in floating point the sums round differently, as they do in another library
or on another CPU. For each printed line it reports the largest relative and absolute move
of its numbers. ``tests/compat/test_pytorch_examples.py`` takes its tolerances from these
figures (tests/README.md lists them).

The corpus scripts (``corpus/...``) draw their own data from the random stream, so nothing
can be reordered: there each run moves every weight by one unit in the last place (a random
sign per weight, or none) right after its first ``backward()``, the size of one rounding, and
the report shows what training makes of it. Lines whose words differ (a sampled or greedy
text) are counted.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import re
import runpy
import sys
import tempfile
from pathlib import Path

import numpy as np

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "pytorch"
NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")
# the digits example trains on its first 1,500 images in batches of 50 (see the script)
TRAIN, BATCH = 1500, 50


def _shuffled_linspace(torch, rng):
    """torch.linspace whose long results (the samples) come back in a random order."""
    linspace = torch.linspace

    def shuffled(*args, **kwargs):
        out = linspace(*args, **kwargs)
        if out.numel() < 1000:  # small ramps build weights, not samples: keep them
            return out
        return out[torch.from_numpy(rng.permutation(out.numel()))]

    return linspace, shuffled


def _nudge_after_first_backward(torch, rng):
    """A Tensor.backward that moves each leaf by 0 or +-1 unit in the last place after its first backward."""
    backward, nudged_ids = torch.Tensor.backward, set()

    def nudged(self, *args, **kwargs):
        result = backward(self, *args, **kwargs)
        leaves, todo, seen = [], [self.grad_fn], set()
        while todo:
            node = todo.pop()
            if node is None or node in seen:
                continue
            seen.add(node)
            if hasattr(node, "variable") and id(node.variable) not in nudged_ids:  # a leaf's AccumulateGrad
                leaves.append(node.variable)
            todo.extend(n for n, _ in node.next_functions)
        with torch.no_grad():
            for p in leaves:
                nudged_ids.add(id(p))
                signs = torch.from_numpy(rng.integers(-1, 2, tuple(p.shape))).to(p.dtype)
                p.copy_(torch.where(signs == 0, p, torch.nextafter(p, p + signs)))
        return result

    return backward, nudged


def _run(script: str, args: list[str], seed: int | None) -> list[str]:
    """The lines SCRIPT prints under PyTorch (its samples shuffled, or its weights nudged, by seed)."""
    import sklearn.datasets
    import torch

    rng = np.random.default_rng(seed)
    linspace, load_digits = torch.linspace, sklearn.datasets.load_digits
    backward = torch.Tensor.backward
    if seed is not None and script.startswith("corpus/"):
        torch.Tensor.backward = _nudge_after_first_backward(torch, rng)[1]
    elif seed is not None:
        torch.linspace = _shuffled_linspace(torch, rng)[1]

        def shuffled_digits(*a, **k):
            bunch = load_digits(*a, **k)
            order = np.arange(len(bunch.target))
            for start in range(0, TRAIN, BATCH):
                order[start:start + BATCH] = start + rng.permutation(BATCH)
            bunch.data, bunch.target = bunch.data[order], bunch.target[order]
            return bunch

        sklearn.datasets.load_digits = shuffled_digits
    out = io.StringIO()
    argv = sys.argv
    try:
        sys.argv = [script, *args]
        torch.manual_seed(0)
        with contextlib.redirect_stdout(out):
            runpy.run_path(str(EXAMPLES / script), run_name="__main__")
    finally:
        sys.argv, torch.linspace, sklearn.datasets.load_digits = argv, linspace, load_digits
        torch.Tensor.backward = backward
    return out.getvalue().splitlines()


def _numbers(line: str) -> list[float]:
    return [float(n) for n in NUMBER.findall(line)]


def _words(line: str) -> str:
    return " ".join(NUMBER.sub("#", line).split())


def main() -> None:
    """Print, per line, the largest move of its numbers over the shuffled runs."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("script")
    parser.add_argument("args", nargs="*")
    parser.add_argument("--orders", type=int, default=30)
    options = parser.parse_args()
    cwd = os.getcwd()
    with tempfile.TemporaryDirectory() as scratch:  # scripts save checkpoints where they run
        os.chdir(scratch)
        try:
            reference = _run(options.script, options.args, None)
            runs = [_run(options.script, options.args, seed) for seed in range(options.orders)]
        finally:
            os.chdir(cwd)
    for i, line in enumerate(reference):
        changed = sum(_words(run[i]) != _words(line) for run in runs)
        if changed:
            print(f"line {i + 1:3}: the words differ in {changed} of {len(runs)} runs: {line!r}")
            continue
        numbers = _numbers(line)
        if not numbers:
            continue
        ref = np.array(numbers)
        others = np.array([_numbers(run[i]) for run in runs])
        absolute = np.abs(others - ref).max(axis=0)
        relative = absolute / np.maximum(np.abs(ref), np.finfo(float).tiny)
        moves = " ".join(f"{v:.6g}±{a:.1e}" for v, a in zip(ref, absolute))
        print(f"line {i + 1:3}: largest move {relative.max():.1e} relative   {moves}")


if __name__ == "__main__":
    main()
