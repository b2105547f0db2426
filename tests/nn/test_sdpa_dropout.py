"""scaled_dot_product_attention's dropout_p: dropout on the attention weights, as PyTorch's math."""

import numpy as np
import pytest

import minitorch
from minitorch.errors import MiniTorchValueError
from minitorch.nn import functional as F


def qkv(rng, requires_grad=False):
    return [minitorch.tensor(rng.standard_normal((2, 4, 3)), requires_grad=requires_grad) for _ in range(3)]


@pytest.mark.parametrize("mask", ["none", "bool", "float", "causal"])
def test_p_one_drops_everything_and_p_zero_is_the_fused_op(rng, mask):
    q, k, v = qkv(rng)
    kwargs = {
        "none": {},
        "bool": {"attn_mask": minitorch.tensor(rng.random((4, 4)) < 0.7) | minitorch.eye(4, dtype=minitorch.bool)},
        "float": {"attn_mask": minitorch.tensor(rng.standard_normal((4, 4)))},
        "causal": {"is_causal": True},
    }[mask]
    assert np.abs(F.scaled_dot_product_attention(q, k, v, dropout_p=1.0, **kwargs).numpy()).max() == 0
    # The mean over many draws is the undropped attention (kept weights are scaled by 1/(1-p)).
    plain = F.scaled_dot_product_attention(q, k, v, **kwargs).numpy()
    minitorch.manual_seed(0)
    draws = [F.scaled_dot_product_attention(q, k, v, dropout_p=0.25, **kwargs).numpy() for _ in range(3000)]
    np.testing.assert_allclose(np.mean(draws, axis=0), plain, atol=0.06)


def test_gradients_with_a_fixed_mask_are_right(rng):
    q, k, v = qkv(rng, requires_grad=True)

    def attention(q, k, v):
        minitorch.manual_seed(3)  # the same dropout mask at every evaluation
        return F.scaled_dot_product_attention(q, k, v, dropout_p=0.3, is_causal=True)

    assert minitorch.autograd.gradcheck(attention, (q, k, v))


def test_a_probability_outside_zero_one_is_refused(rng):
    q, k, v = qkv(rng)
    with pytest.raises(MiniTorchValueError, match="between 0 and 1"):
        F.scaled_dot_product_attention(q, k, v, dropout_p=1.5)
