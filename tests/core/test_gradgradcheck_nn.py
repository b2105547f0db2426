"""Second derivatives of the network ops: convolution (conv.py), pooling (pooling.py,
maxpool.py), dropout (dropout.py) and the element-wise losses (losses.py,
pointwise_losses.py), against finite differences (gradgradcheck) and PyTorch's
(``second_order.py``); third derivatives against PyTorch's on one case of each.

Convolution and pooling run their reference backward (im2col, col2im) on graph values,
whichever fast kernel ran the forward: a kernel leaves ``ctx`` as the op does. Max-pool
inputs are distinct values (no tie within eps), dropout draws its mask from a fixed seed
(MiniTorch's masks are PyTorch's for one seed), and the losses' inputs sit away from the
kinks of Huber and smooth L1.
"""

import numpy as np
import pytest

pytest.importorskip("torch")

from second_order import check  # noqa: E402  (PyTorch first)


def distinct(rng, shape):
    return (rng.permutation(int(np.prod(shape))) * 0.1 - 1.0).reshape(shape)


# ---------------------------------------------------------------------- convolution
@pytest.mark.filterwarnings("ignore:Using padding='same' with even kernel")  # PyTorch's, about its own copy
@pytest.mark.parametrize(
    "stride, padding",
    [(1, 0), (2, 1), ((1, 2), (2, 0)), (1, "same"), (1, "valid")],
    ids=["s1-p0", "s2-p1", "s12-p20", "same", "valid"],
)
def test_conv2d(rng, stride, padding):
    x, w, b = rng.standard_normal((2, 2, 5, 4)), rng.standard_normal((3, 2, 2, 3)), rng.standard_normal(3)

    def fn(lib, x, w, b):
        return lib.nn.functional.conv2d(x * x, w, b, stride=stride, padding=padding) * x.sum()

    check(fn, x, w, b)


def test_conv2d_without_bias_unbatched_and_third_derivatives(rng):
    x, w = rng.standard_normal((2, 4, 4)), rng.standard_normal((2, 2, 3, 3))
    check(lambda lib, x, w: lib.nn.functional.conv2d(x, w * w, padding=1) ** 2, x, w, order=3)


# ---------------------------------------------------------------------- pooling
@pytest.mark.parametrize("kernel, stride, padding", [(2, None, 0), (3, 1, 1), ((2, 3), (1, 2), (1, 1))])
def test_max_pool2d(rng, kernel, stride, padding):
    x = distinct(rng, (2, 2, 5, 6))
    check(lambda lib, t: lib.nn.functional.max_pool2d(t * t * t, kernel, stride, padding) ** 2, x, order=3)


@pytest.mark.parametrize("kernel, stride, padding", [(2, None, 0), (3, 1, 1), ((2, 3), (1, 2), (1, 1))])
def test_avg_pool2d(rng, kernel, stride, padding):
    x = rng.standard_normal((2, 2, 5, 6))
    check(lambda lib, t: lib.nn.functional.avg_pool2d(t * t, kernel, stride, padding) ** 2, x, order=3)


@pytest.mark.parametrize("size", [(2, 3), 1, (4, None), (7, 8)])
def test_adaptive_avg_pool2d(rng, size):
    x = rng.standard_normal((2, 2, 5, 6))
    check(lambda lib, t: lib.nn.functional.adaptive_avg_pool2d(t * t, size) ** 2, x, order=3)


def test_pooling_an_unbatched_image(rng):
    x = distinct(rng, (2, 4, 4))
    check(lambda lib, t: lib.nn.functional.max_pool2d(t * t, 2) * lib.nn.functional.avg_pool2d(t, 2), x)
    check(lambda lib, t: lib.nn.functional.adaptive_avg_pool2d(t, 3) ** 2, x)


# ---------------------------------------------------------------------- dropout
@pytest.mark.parametrize("p", [0.3, 0.8])
def test_dropout_with_a_fixed_seed(rng, p):
    def fn(lib, t):
        lib.manual_seed(7)  # the same mask on every call, and PyTorch's
        return lib.nn.functional.dropout(t * t, p) * t

    check(fn, rng.standard_normal((3, 5)), order=3)


# ---------------------------------------------------------------------- losses
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_mse_and_l1(rng, reduction):
    x, t, w = rng.standard_normal((3, 4)), rng.standard_normal((3, 4)), rng.uniform(0.5, 2.0, (3, 4))
    x = np.where(np.abs(x - t) < 0.1, x + 0.3, x)  # l1's kink at x == t out of reach
    check(lambda lib, a, b: lib.nn.functional.mse_loss(a * a, b, reduction=reduction), x, t, order=3)
    check(lambda lib, a, b: lib.nn.functional.l1_loss(a, b, reduction=reduction) * a.sum(), x, t)
    check(lambda lib, a, b, c: lib.nn.functional.mse_loss(a, b, reduction=reduction, weight=c), x, t, w)
    check(lambda lib, a, b, c: lib.nn.functional.l1_loss(a * a, b, reduction=reduction, weight=c), x, t, w)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_binary_cross_entropy(rng, reduction):
    p, t, w = rng.uniform(0.1, 0.9, (3, 4)), rng.uniform(0, 1, (3, 4)), rng.uniform(0.5, 2.0, (4,))
    # PyTorch's double backward of BCE is a formula of its own (1 / (p (1 - p))^2 terms of 1e2
    # beside results of 1): the two agree to ~1e-9 relative of the largest, not to the last bit.
    loose = {"torch_tolerance": {"rtol": 1e-7, "atol": 1e-7}}
    check(lambda lib, a, b: lib.nn.functional.binary_cross_entropy(a, b, reduction=reduction), p, t, order=3, **loose)

    def weighted(lib, a, b):
        return lib.nn.functional.binary_cross_entropy(a * a, b, weight=lib.tensor(w), reduction=reduction)

    check(weighted, p, t, **loose)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_binary_cross_entropy_with_logits(rng, reduction):
    x, t = rng.standard_normal((3, 4)), rng.uniform(0, 1, (3, 4))
    w, pos = rng.uniform(0.5, 2.0, (3, 4)), rng.uniform(0.5, 2.0, (4,))
    bce = "binary_cross_entropy_with_logits"
    check(lambda lib, a, b: getattr(lib.nn.functional, bce)(a, b, reduction=reduction), x, t, order=3)

    def weighted(lib, a, b):
        return getattr(lib.nn.functional, bce)(
            a * a, b, weight=lib.tensor(w), pos_weight=lib.tensor(pos), reduction=reduction
        )

    check(weighted, x, t, order=3)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_huber_and_smooth_l1(rng, reduction):
    x, t, w = rng.standard_normal((3, 4)), rng.standard_normal((3, 4)), rng.uniform(0.5, 2.0, (3, 4))
    d = np.abs(x - t)
    x = np.where((np.abs(d - 0.7) < 0.1) | (np.abs(d - 1.0) < 0.1), x + 0.25, x)  # away from delta and beta
    check(lambda lib, a, b: lib.nn.functional.huber_loss(a * a, b, reduction=reduction, delta=0.7), x, t, order=3)
    check(lambda lib, a, b: lib.nn.functional.smooth_l1_loss(a, b, reduction=reduction) * a.sum(), x, t)
    check(lambda lib, a, b, c: lib.nn.functional.huber_loss(a, b, reduction=reduction, weight=c), x, t, w)
