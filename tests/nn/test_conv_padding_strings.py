"""conv2d's padding='valid' / 'same' as PyTorch's (stride 1, odd kernels; the rest refused clearly)."""

import numpy as np
import pytest

import minitorch
from minitorch.errors import MiniTorchValueError
from minitorch.nn import functional as F


@pytest.mark.parametrize("padding", ["valid", "same"])
@pytest.mark.parametrize("kernel", [(1, 1), (3, 3), (3, 5), (5, 1)])
def test_values_and_gradients_match_torch(rng, padding, kernel):
    torch = pytest.importorskip("torch")
    x = rng.standard_normal((2, 3, 7, 6))
    w = rng.standard_normal((4, 3, *kernel))
    b = rng.standard_normal(4)
    xm, wm, bm = (minitorch.tensor(a, requires_grad=True) for a in (x, w, b))
    xt, wt, bt = (torch.tensor(a, requires_grad=True) for a in (x, w, b))
    out = F.conv2d(xm, wm, bm, padding=padding)
    want = torch.nn.functional.conv2d(xt, wt, bt, padding=padding)
    assert tuple(out.shape) == tuple(want.shape)
    np.testing.assert_allclose(out.detach().numpy(), want.detach().numpy(), rtol=1e-10, atol=1e-12)
    g = rng.standard_normal(tuple(want.shape))
    out.backward(minitorch.tensor(g))
    want.backward(torch.tensor(g))
    for ours, theirs in ((xm, xt), (wm, wt), (bm, bt)):
        np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_same_keeps_the_size_and_the_module_prints_it():
    conv = minitorch.nn.Conv2d(1, 2, 3, padding="same")
    assert conv(minitorch.randn(1, 1, 5, 4)).shape == (1, 2, 5, 4)
    assert "padding=same" in repr(conv)
    assert minitorch.nn.Conv2d(1, 2, 3, padding="valid")(minitorch.randn(1, 1, 5, 4)).shape == (1, 2, 3, 2)


@pytest.mark.parametrize(
    "make, words",
    [
        (
            lambda: F.conv2d(minitorch.randn(1, 1, 5, 5), minitorch.randn(1, 1, 3, 3), stride=2, padding="same"),
            "strided",
        ),
        (lambda: minitorch.nn.Conv2d(1, 1, 3, stride=2, padding="same"), "strided"),
        (lambda: F.conv2d(minitorch.randn(1, 1, 5, 5), minitorch.randn(1, 1, 3, 3), padding="full"), "'valid', 'same'"),
        (lambda: minitorch.nn.Conv2d(1, 1, 2, padding="same"), "even kernel"),
    ],
)
def test_refused_with_a_clear_error(make, words):
    with pytest.raises(MiniTorchValueError, match=words):
        make()
