"""Max-pooling of windows that tile the image (the mask path of functions/maxpool.py) against PyTorch.

Ties (a ReLU's zeros), NaN, an infinite gradient, a channels-last input, a size that
leaves rows out and integer inputs: values and gradients as PyTorch's.
"""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")


def _both(x: np.ndarray, kernel: int, grad: np.ndarray | None = None, channels_last: bool = False):
    """(MiniTorch's output and input gradient, PyTorch's), max-pooling ``x`` with ``kernel``."""
    results = []
    for lib in (mt, torch):
        t = lib.tensor(x, requires_grad=True)
        source = t
        if channels_last:  # the NCHW view of channels-last memory, as a conv's output is
            source = t.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2)
        out = lib.nn.functional.max_pool2d(source, kernel)
        g = np.ones(out.shape, dtype=x.dtype) if grad is None else grad
        out.backward(lib.tensor(g))
        results.append((np.asarray(out.detach().numpy()), np.asarray(t.grad.numpy())))
    return results


@pytest.mark.parametrize("shape", [(3, 4, 8, 8), (2, 3, 7, 5), (1, 2, 6, 9)])
@pytest.mark.parametrize("kernel", [2, 3])
@pytest.mark.parametrize("channels_last", [False, True])
def test_tiled_max_pool_ties_go_to_the_first_maximum(shape, kernel, channels_last):
    rng = np.random.default_rng(0)
    x = np.maximum(rng.standard_normal(shape), 0).astype(np.float32)  # many all-zero windows
    x[0, 0, :2, :2] = 1.5  # a tie of four non-zero values
    ho, wo = shape[2] // kernel, shape[3] // kernel
    grad = rng.standard_normal((shape[0], shape[1], ho, wo)).astype(np.float32)
    (mine, mine_grad), (theirs, their_grad) = _both(x, kernel, grad, channels_last)
    np.testing.assert_array_equal(mine, theirs)
    np.testing.assert_array_equal(mine_grad, their_grad)


def test_tiled_max_pool_nan_and_infinite_gradient():
    x = np.arange(2 * 2 * 4 * 4, dtype=np.float32).reshape(2, 2, 4, 4) % 5
    x[0, 0, 0, 1] = x[0, 0, 1, 1] = np.nan  # two NaNs in one window: the last one takes the gradient
    grad = np.ones((2, 2, 2, 2), dtype=np.float32)
    grad[1, 1, 1, 1] = np.inf  # 0 * inf must not put NaN on the window's other pixels
    (mine, mine_grad), (theirs, their_grad) = _both(x, 2, grad)
    np.testing.assert_array_equal(mine, theirs)
    np.testing.assert_array_equal(mine_grad, their_grad)
    x[0, 0, 0, 1] = x[0, 0, 1, 1] = 0.0
    (_, mine_grad), (_, their_grad) = _both(x, 2, grad)
    np.testing.assert_array_equal(mine_grad, their_grad)


def test_tiled_max_pool_integers_and_float64_gradcheck():
    x = np.random.default_rng(1).integers(-3, 3, size=(2, 3, 6, 6))
    np.testing.assert_array_equal(
        mt.nn.functional.max_pool2d(mt.tensor(x), 2).numpy(),
        torch.nn.functional.max_pool2d(torch.tensor(x).double(), 2).long().numpy(),
    )
    t = mt.tensor(np.random.default_rng(2).standard_normal((2, 3, 6, 4)), requires_grad=True)
    assert mt.autograd.gradcheck(lambda a: mt.nn.functional.max_pool2d(a, 2), (t,))
