"""``multinomial`` and ``bernoulli`` of a probability tensor draw PyTorch's samples after the same seed.

Compared exactly with PyTorch 2.13 on the CPU: with and without replacement, one row or
several, float32 and float64 weights (the exponential race PyTorch uses without
replacement, the cumulative-sum search with it), and PyTorch's errors.
"""

import numpy as np
import pytest

import minitorch
from minitorch.errors import MiniTorchError

torch = pytest.importorskip("torch")


def assert_identical(mine, theirs, what):
    a, b = mine.detach().numpy(), theirs.detach().numpy()
    assert a.shape == b.shape and a.dtype == b.dtype, f"{what}: {a.shape} {a.dtype} vs {b.shape} {b.dtype}"
    assert np.array_equal(a, b), f"{what}: {np.count_nonzero(a != b)} of {a.size} values differ"


def both(seed, fn):
    minitorch.manual_seed(seed)
    torch.manual_seed(seed)
    return fn(minitorch), fn(torch)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("replacement, num_samples", [(False, 1), (False, 4), (False, 10), (True, 1), (True, 25)])
@pytest.mark.parametrize("rows", [None, 1, 5])
def test_multinomial_matches_torch(dtype, replacement, num_samples, rows):
    weights = np.random.default_rng(1).random((rows or 1, 10)).astype(dtype)
    weights[:, 3] = 0  # a category that can never come up
    if rows is None:
        weights = weights[0]
    if not replacement and num_samples > 9:
        weights[..., 3] = 0.5  # without replacement every sampled category needs weight
    mine, theirs = both(8, lambda lib: lib.multinomial(lib.tensor(weights), num_samples, replacement))
    assert_identical(mine, theirs, f"multinomial({weights.shape}, {num_samples}, replacement={replacement})")
    mine, theirs = both(8, lambda lib: lib.tensor(weights).multinomial(num_samples, replacement=replacement))
    assert_identical(mine, theirs, "Tensor.multinomial")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_bernoulli_of_probabilities_matches_torch(dtype):
    probs = np.random.default_rng(2).random((40, 3)).astype(dtype)
    mine, theirs = both(4, lambda lib: lib.bernoulli(lib.tensor(probs)))
    assert_identical(mine, theirs, "bernoulli(probs)")
    mine, theirs = both(4, lambda lib: lib.tensor(probs).bernoulli(0.7))
    assert_identical(mine, theirs, "Tensor.bernoulli(p=0.7)")
    mine, theirs = both(4, lambda lib: lib.zeros(40, 3, dtype=getattr(lib, dtype)).bernoulli_(lib.tensor(probs)))
    assert_identical(mine, theirs, "bernoulli_(probs tensor)")


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda lib: lib.multinomial(lib.ones(3), 4), "without replacement"),
        (lambda lib: lib.multinomial(lib.tensor([0.5, -0.1]), 1), "inf"),
        (lambda lib: lib.multinomial(lib.zeros(2, 3), 2, True), "sum of probabilities"),
        (lambda lib: lib.multinomial(lib.ones(2, 2, 2), 1), "1 or 2 dim"),
        (lambda lib: lib.multinomial(lib.tensor([1, 2]), 1), "floating-point"),
        (lambda lib: lib.multinomial(lib.ones(3), 0), "n_sample <= 0"),
        (lambda lib: lib.bernoulli(lib.tensor([0.5, 1.5])), r"\[0, 1\]"),
        (lambda lib: lib.zeros(3).bernoulli_(2.0), "range"),
    ],
)
def test_multinomial_and_bernoulli_refuse_what_torch_refuses(call, message):
    with pytest.raises(RuntimeError):
        call(torch)
    with pytest.raises(MiniTorchError, match=message):
        call(minitorch)
