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
    ],
)
def test_refused_with_a_clear_error(make, words):
    with pytest.raises(MiniTorchValueError, match=words):
        make()


@pytest.mark.parametrize("kernel, stride, padding", [(2, 2, 1), (3, 1, 1), (3, 2, (1, 0)), ((3, 2), 1, (1, 1))])
def test_max_pool_padding_matches_torch(rng, kernel, stride, padding):
    torch = pytest.importorskip("torch")
    x = rng.standard_normal((2, 3, 7, 6))
    xm, xt = minitorch.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    out = F.max_pool2d(xm, kernel, stride, padding)
    want = torch.nn.functional.max_pool2d(xt, kernel, stride, padding)
    np.testing.assert_array_equal(out.detach().numpy(), want.detach().numpy())
    g = rng.standard_normal(tuple(want.shape))
    out.backward(minitorch.tensor(g))
    want.backward(torch.tensor(g))
    np.testing.assert_allclose(xm.grad.numpy(), xt.grad.numpy(), rtol=1e-12)
    module = minitorch.nn.MaxPool2d(kernel, stride, padding)
    np.testing.assert_array_equal(module(xm).detach().numpy(), want.detach().numpy())


def test_max_pool_padding_over_half_the_kernel_is_refused():
    with pytest.raises(MiniTorchValueError, match="at most half"):
        F.max_pool2d(minitorch.randn(1, 1, 4, 4), 2, 2, 2)


@pytest.mark.filterwarnings("ignore:Using padding='same' with even kernel")  # PyTorch's own note
@pytest.mark.parametrize("kernel", [(2, 2), (4, 4), (2, 3), (3, 4)])
def test_same_padding_with_an_even_kernel_pads_bottom_right_as_torch(rng, kernel):
    # PyTorch pads (k - 1) // 2 on each side and the one extra row (column) at the bottom (right).
    torch = pytest.importorskip("torch")
    x, w, b = rng.standard_normal((2, 3, 6, 5)), rng.standard_normal((4, 3, *kernel)), rng.standard_normal(4)
    xm, wm = minitorch.tensor(x, requires_grad=True), minitorch.tensor(w, requires_grad=True)
    xt, wt = torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)
    out = F.conv2d(xm, wm, minitorch.tensor(b), padding="same")
    expected = torch.nn.functional.conv2d(xt, wt, torch.tensor(b), padding="same")
    (out * out).sum().backward()
    (expected * expected).sum().backward()
    assert tuple(out.shape) == (2, 4, 6, 5)
    np.testing.assert_allclose(out.detach().numpy(), expected.detach().numpy(), rtol=1e-10)
    np.testing.assert_allclose(xm.grad.numpy(), xt.grad.numpy(), rtol=1e-10)
    np.testing.assert_allclose(wm.grad.numpy(), wt.grad.numpy(), rtol=1e-10)
    unbatched = minitorch.nn.Conv2d(3, 4, kernel, padding="same")(minitorch.randn(3, 6, 5))
    assert tuple(unbatched.shape) == (4, 6, 5)
