"""ReLU and Tanh kernels (``kernels/cpu/activations.py``) against the ops of ``functions/unary.py``.

The same NumPy calls, so the same bits (``exact=True``): on float32 and float64, several
shapes (one row, empty, 4-d, a channels-last view as a convolution gives), with zeros, NaN
and infinities; given buffers, the functions write into them and give the same bits; the
predicates leave float16, integers and GPU arrays to the ops.
"""

import numpy as np
import pytest
from kernel_harness import check_kernel

import minitorch
from minitorch.autograd.function import fast_kernel
from minitorch.functions.unary import ReLU, Tanh
from minitorch.kernels import use_fast_kernels
from minitorch.kernels.cpu import activations
from minitorch.kernels.cpu.activations import RELU, TANH

SHAPES = [(3, 5), (1, 7), (0, 4), (2, 3, 4, 5)]


def values(shape, dtype, seed=0):
    x = np.random.default_rng(seed).standard_normal(shape) * 3
    flat = x.reshape(-1)
    edges = [0.0, -0.0, np.nan, np.inf, -np.inf, 40.0, -40.0]
    flat[: min(len(edges), flat.size)] = edges[: flat.size]
    return minitorch.tensor(x.astype(dtype), requires_grad=True)


@pytest.mark.parametrize("kernel", [RELU, TANH], ids=["relu", "tanh"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_the_kernel_gives_the_op_s_bits(kernel, dtype, shape):
    check_kernel(kernel, values(shape, dtype), exact=True)


@pytest.mark.parametrize("kernel", [RELU, TANH], ids=["relu", "tanh"])
def test_a_channels_last_view(kernel):
    x = np.random.default_rng(1).standard_normal((2, 4, 4, 3)).astype(np.float32).transpose(0, 3, 1, 2)
    check_kernel(kernel, minitorch.tensor(x, requires_grad=True), exact=True)


def test_given_buffers_the_functions_write_into_them_with_the_same_bits():
    rng = np.random.default_rng(2)
    a, grad = (rng.standard_normal((6, 5)).astype(np.float32) for _ in range(2))
    a[0, :3] = [0.0, -0.0, np.nan]
    out, mask, into = np.empty_like(a), np.empty(a.shape, bool), np.empty_like(a)
    assert activations.relu(a, out=out) is out and out.tobytes() == np.maximum(a, 0).tobytes()
    assert activations.relu_backward(out, grad, mask=mask, out=into) is into
    assert into.tobytes() == (grad * (out != 0)).tobytes()
    t = np.tanh(a)
    assert activations.tanh(a, out=out) is out and out.tobytes() == t.tobytes()
    assert activations.tanh_backward(t, grad, out=into) is into
    assert into.tobytes() == (grad * (1 - t * t)).tobytes()


def test_relu_of_a_0d_array_gives_the_op_s_bits():
    check_kernel(RELU, minitorch.tensor(np.float32(-0.5), requires_grad=True), exact=True)


@pytest.mark.parametrize("op", [ReLU, Tanh])
def test_the_predicate_leaves_other_arrays_to_the_op(op):
    with use_fast_kernels(True):
        for array in (np.ones(3, np.float16), np.ones(3, np.int64), np.ones((3, 2), np.float32)[:, 0]):
            chosen = fast_kernel(op, "cpu", [array])
            assert (chosen is not None) == (array.dtype in (np.float32, np.float64))
        on_gpu = fast_kernel(op, "cuda", [np.ones(3, np.float32)])
        assert on_gpu is None or on_gpu.device == "cuda"  # these CPU kernels never serve GPU arrays
    with use_fast_kernels(True):  # 0-d: NumPy's results are scalars, which Tanh's kernel cannot compute in
        assert fast_kernel(Tanh, "cpu", [np.array(0.5, np.float32)]) is None
