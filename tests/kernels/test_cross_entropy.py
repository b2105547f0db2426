"""``kernels/cpu/cross_entropy.py``: the probabilities kept and updated in place, against SoftmaxCrossEntropy."""

import numpy as np
import pytest
from kernel_harness import check_kernel

import minitorch
from minitorch.functions.fused import SoftmaxCrossEntropy
from minitorch.kernels.cpu.cross_entropy import IN_PLACE


def _logits(rng, shape, dtype=np.float32):
    return minitorch.tensor((rng.standard_normal(shape) * 3).astype(dtype), requires_grad=True)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("n, c", [(1, 5), (7, 3), (64, 10), (0, 4)])
def test_the_kernel_is_the_op(rng, n, c, reduction, dtype):
    target = minitorch.tensor(rng.integers(0, c, n))
    check_kernel(IN_PLACE, _logits(rng, (n, c), dtype), target, reduction, None, -100)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_ignored_rows_and_row_weights(rng, reduction):
    logits = _logits(rng, (6, 4))
    ignored = minitorch.tensor(np.array([0, -100, 3, 2, -100, 1]))
    check_kernel(IN_PLACE, logits, ignored, reduction, None, -100)
    weights = rng.uniform(0.5, 2.0, 6).astype(np.float32)
    check_kernel(IN_PLACE, logits, minitorch.tensor(rng.integers(0, 4, 6)), reduction, weights)


def test_every_row_ignored_gives_nan_and_zero_gradients_both_ways(rng):
    check_kernel(IN_PLACE, _logits(rng, (3, 4)), minitorch.tensor(np.full(3, -100)), "mean", None, -100)


def test_the_predicate_takes_numpy_float_logits_only():
    labels = np.zeros(2, np.int64)
    assert IN_PLACE.applies(np.zeros((2, 3), np.float32), labels, "mean")
    assert IN_PLACE.applies(np.zeros((2, 3), np.float16), labels, "mean", None, -100)
    assert not IN_PLACE.applies(np.zeros((2, 3), np.int64), labels, "mean")
    assert IN_PLACE in SoftmaxCrossEntropy._kernels


@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_given_buffers_the_functions_write_into_them_with_the_same_bits(rng, reduction):
    # what a compiled step does (jit/kernels.py): the same calls into arrays made once
    from minitorch.kernels.cpu import cross_entropy

    n, c = 9, 5
    logits = (rng.standard_normal((n, c)) * 3).astype(np.float32)
    target, rows = rng.integers(0, c, n), np.arange(n)
    losses, probs = cross_entropy.softmax_xent_rows(logits, target, rows)
    buffers = {name: np.empty(shape, np.float32) for name, shape in
               [("top", (n, 1)), ("shifted", (n, c)), ("probs", (n, c)), ("total", (n, 1)),
                ("log_total", (n,)), ("losses", (n,))]}  # fmt: skip
    got = cross_entropy.softmax_xent_rows(logits, target, rows, **buffers)
    assert got[0] is buffers["losses"] and got[1] is buffers["probs"]
    assert got[0].tobytes() == losses.tobytes() and got[1].tobytes() == probs.tobytes()
    scale = np.float32(0.5) / n if reduction == "mean" else np.asarray(np.float32(0.5))
    fresh = cross_entropy.softmax_xent_grad(probs, target, rows, scale)
    out = np.empty((n, c), np.float32)
    assert cross_entropy.softmax_xent_grad(probs, target, rows, scale, out=out) is out
    assert out.tobytes() == fresh.tobytes()
