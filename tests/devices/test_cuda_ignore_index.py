"""cross_entropy's ignore_index on the GPU kernel path, checked with the fake CuPy.

On a GPU the labels are not read back, so the fused softmax-cross-entropy kernel itself
skips the rows whose label is ``ignore_index`` (-100 by default: loss 0, not counted in the
mean, no gradient) and flags the other out-of-range labels for the device-side check.
Values and gradients must equal the CPU's (which masks on the host) in every case.
"""

import numpy as np
import pytest

import minitorch
from minitorch.errors import MiniTorchIndexError
from minitorch.nn import functional as F


def loss_and_grad(logits, target, device, **kwargs):
    x = minitorch.tensor(logits, device=device, requires_grad=True)
    loss = F.cross_entropy(x, minitorch.tensor(target, device=device), **kwargs)
    loss.backward(minitorch.ones_like(loss))
    return loss.detach().cpu().numpy(), x.grad.cpu().numpy()


CASES = [
    ([0, -100, 2, 1, -100, 3], {}),  # the default ignore_index
    ([0, 2, 2, 1, 2, 3], {"ignore_index": 2}),  # an ignore_index that is also a valid class
    ([-100] * 6, {}),  # every row ignored: nan mean, zero gradients (as PyTorch)
    ([0, 1, 2, 3, 0, 1], {}),  # nothing ignored
]


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("target, kwargs", CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gpu_kernel_path_matches_the_cpu(fake_gpu, rng, target, kwargs, reduction, dtype):
    logits = rng.standard_normal((6, 4)).astype(dtype)
    target = np.array(target)
    want_loss, want_grad = loss_and_grad(logits, target, "cpu", reduction=reduction, **kwargs)
    got_loss, got_grad = loss_and_grad(logits, target, "cuda", reduction=reduction, **kwargs)
    np.testing.assert_allclose(got_loss, want_loss, rtol=1e-6, equal_nan=True)
    np.testing.assert_allclose(got_grad, want_grad, rtol=1e-6, atol=1e-7)


def test_against_torch(fake_gpu, rng):
    torch = pytest.importorskip("torch")
    logits = rng.standard_normal((6, 4))
    target = np.array([0, -100, 2, 1, -100, 3])
    got_loss, got_grad = loss_and_grad(logits, target, "cuda")
    xt = torch.tensor(logits, requires_grad=True)
    want = torch.nn.functional.cross_entropy(xt, torch.tensor(target))
    want.backward()
    np.testing.assert_allclose(got_loss, want.item(), rtol=1e-12)
    np.testing.assert_allclose(got_grad, xt.grad.numpy(), rtol=1e-12, atol=1e-15)


def test_an_out_of_range_label_still_raises_at_the_next_sync(fake_gpu):
    x = minitorch.zeros(3, 4, device="cuda")
    loss = F.cross_entropy(x, minitorch.tensor([0, -100, 7], device="cuda"))  # 7 is bad, -100 ignored
    with pytest.raises(MiniTorchIndexError, match="outside \\[0, 3\\]"):
        loss.item()
    assert F.cross_entropy(x, minitorch.tensor([0, -100, 3], device="cuda")).item() > 0  # cleared
