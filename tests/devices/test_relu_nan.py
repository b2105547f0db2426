"""ReLU at NaN as PyTorch: the output stays NaN and the gradient passes through, on every path.

The CPU ops, the GPU kernels (run here through the fake CuPy, which executes each kernel's
body as written) and the fused bias + ReLU kernel must agree, or a NaN would vanish on
one device and not on the other.
"""

import numpy as np
import pytest

import minitorch
from minitorch.functions.fused import bias_relu
from minitorch.kernels.cuda import sources as cuda_kernels
from minitorch.nn import functional as F

X = np.array([[-2.0, -0.0, 0.0, 0.5, np.nan], [1.0, np.nan, -np.inf, np.inf, -1.0]], dtype=np.float32)
B = np.array([0.0, 1.0, -1.0, 0.0, 0.0], dtype=np.float32)


def relu_and_grad(device, fused=False):
    x = minitorch.tensor(X, device=device, requires_grad=True)
    b = minitorch.tensor(B, device=device, requires_grad=True)
    y = bias_relu(x, b) if fused else F.relu(x + b)
    y.backward(minitorch.ones_like(y))
    return y.detach().cpu().numpy(), x.grad.cpu().numpy(), b.grad.cpu().numpy()


def test_cpu_relu_keeps_nan_and_passes_its_gradient():
    y, gx, _ = relu_and_grad("cpu")
    v = X + B
    np.testing.assert_array_equal(np.isnan(y), np.isnan(v))
    # d relu / dx: 1 where v > 0 or v is NaN (PyTorch's threshold_backward), else 0
    np.testing.assert_array_equal(gx, ((v > 0) | np.isnan(v)).astype(np.float32))


@pytest.mark.parametrize("fused", [False, True])
def test_gpu_kernels_agree_with_the_cpu(fake_gpu, fused):
    want = relu_and_grad("cpu")
    got = relu_and_grad("cuda", fused=fused)
    for w, g in zip(want, got):
        np.testing.assert_array_equal(g, w)


def test_kernel_references_keep_nan():
    assert np.isnan(cuda_kernels.reference_relu_forward(np.array([np.nan], np.float32))[0])
    assert cuda_kernels.reference_relu_backward(np.array([np.nan], np.float32), np.array([3.0], np.float32))[0] == 3
    assert np.isnan(
        cuda_kernels.reference_bias_relu_forward(np.array([np.nan], np.float32), np.zeros(1, np.float32))[0]
    )
