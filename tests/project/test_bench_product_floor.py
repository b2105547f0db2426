"""``bench/product_floor.py`` runs and lists the products a charlm step needs (timings are not checked).

The list is checked against the models' sizes: every forward product of the step appears
with its two gradient products, so the floor it prints is the whole step's matrix work.
"""

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
BENCH = Path(__file__).resolve().parents[2] / "bench"


def _load():
    sys.path.insert(0, str(BENCH))
    spec = importlib.util.spec_from_file_location("bench_product_floor", BENCH / "product_floor.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _flops(products):
    """Multiply-adds times two of a list of (name, a, b, times), a @ b batched over leading dims."""
    total = 0
    for _, a, b, times in products:
        stack = np.prod(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]))
        total += 2 * stack * a.shape[-2] * a.shape[-1] * b.shape[-1] * times
    return total


def test_the_lstm_products_are_three_times_its_forward_products():
    floor = _load()
    rng = np.random.default_rng(0)
    tokens, embed, hidden, vocab = floor.TOKENS, 64, 256, floor.VOCAB
    forward = 2 * tokens * (embed * 4 * hidden + hidden * 4 * hidden + hidden * vocab)
    assert _flops(floor.lstm_products(rng)) == 3 * forward


def test_the_transformer_products_are_three_times_its_forward_products():
    floor = _load()
    d, tokens = 128, floor.TOKENS
    linears = 2 * tokens * d * (3 * d + d + 4 * d + 4 * d + floor.VOCAB)
    attention = 2 * 2 * floor.BATCH * floor.CONTEXT * floor.CONTEXT * d  # q k^T and p v, over all heads
    assert _flops(floor.transformer_products(np.random.default_rng(0))) == 3 * (linears + attention)


def test_it_prints_the_table_and_the_floor(capsys):
    floor = _load()
    floor.main(["--rounds", "1", "--cases", "lstm"])
    out = capsys.readouterr().out
    assert out.count("| step product      W_hh h^T | 64 |") == 1
    assert "| **all products** |" in out and "PyTorch's whole training step:" in out
