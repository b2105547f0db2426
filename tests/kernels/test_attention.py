"""``kernels/cpu/attention.py``: p kept, the row max by halving, the work in place, against the op."""

import math

import numpy as np
import pytest
from kernel_harness import check_kernel

import minitorch
from minitorch.kernels.cpu.attention import IN_PLACE, row_max


def _t(rng, shape, dtype=np.float32, grad=True):
    return minitorch.tensor(rng.standard_normal(shape).astype(dtype), requires_grad=grad)


def _qkv(rng, batch, L, S, E, dtype=np.float32):
    return _t(rng, (*batch, L, E), dtype), _t(rng, (*batch, S, E), dtype), _t(rng, (*batch, S, 3), dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("batch, L, S, E", [((2, 3), 5, 6, 4), ((), 1, 1, 2), ((4,), 7, 64, 8), ((2,), 3, 5, 16)])
def test_the_kernel_is_the_op_without_a_mask(rng, batch, L, S, E, dtype):
    q, k, v = _qkv(rng, batch, L, S, E, dtype)
    check_kernel(IN_PLACE, q, k, v, None, 1 / math.sqrt(E))


@pytest.mark.parametrize("L, S", [(5, 5), (4, 7), (3, 1)])
def test_with_a_causal_bool_mask_and_an_all_masked_row(rng, L, S):
    q, k, v = _qkv(rng, (2,), L, S, 4)
    causal = np.tril(np.ones((L, S), bool))
    check_kernel(IN_PLACE, q, k, v, minitorch.tensor(causal), 0.5)
    causal[1] = False  # query 1 sees no key: its output and gradients are zeros
    check_kernel(IN_PLACE, q, k, v, minitorch.tensor(causal), 0.5)


def test_with_float_masks_added_in_place_or_broadcast_to_more_dims(rng):
    q, k, v = _qkv(rng, (2, 3), 4, 6, 4)
    check_kernel(IN_PLACE, q, k, v, _t(rng, (4, 6)), 0.5)  # broadcast into the scores: added in place
    check_kernel(IN_PLACE, q, k, v, _t(rng, (5, 2, 3, 4, 6)), 0.5)  # makes the scores bigger
    check_kernel(IN_PLACE, q, k, v, _t(rng, (4, 6), np.float64), 0.5, scale=10)  # another dtype: promoted


def test_no_keys_gives_zeros(rng):
    q, k, v = _qkv(rng, (2,), 3, 0, 4)
    check_kernel(IN_PLACE, q, k, v, None, 0.5)


def test_only_some_gradients_and_a_broadcast_batch(rng):
    q = _t(rng, (2, 3, 4, 8))
    check_kernel(IN_PLACE, q, _t(rng, (3, 5, 8), grad=False), _t(rng, (3, 5, 3)), None, 0.25)
    check_kernel(IN_PLACE, _t(rng, (3, 4, 8), grad=False), _t(rng, (2, 1, 5, 8)), _t(rng, (2, 1, 5, 3)), None, 0.25)


@pytest.mark.parametrize("keys", [1, 2, 5, 7, 64, 65])
def test_the_row_max_by_halving_is_numpys_max(keys):
    """The same maxima as ``max``, odd lengths, -inf and NaN included (moved from tests/core)."""
    scores = np.random.default_rng(keys).standard_normal((3, 4, keys)).astype(np.float32)
    scores[0, 0] = -np.inf
    scores[1, 2, keys // 2] = np.nan
    np.testing.assert_array_equal(row_max(scores), scores.max(axis=-1, keepdims=True))


def test_the_predicate_declines_float16(rng):
    q = rng.standard_normal((2, 3, 4)).astype(np.float32)
    assert IN_PLACE.applies(q, q, q, None, 0.5)
    half = q.astype(np.float16)
    assert not IN_PLACE.applies(half, half, half, None, 0.5)
