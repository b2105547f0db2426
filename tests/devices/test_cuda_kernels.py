"""The GPU's fast kernels (``minitorch/kernels/cuda/``) against the ops they replace, on the fake CuPy.

The fake compiles each kernel call's real CUDA source with NVRTC (when the toolchain is there)
and runs the kernel's NumPy body; ``check_kernel`` (``tests/kernels/kernel_harness.py``) runs
the op with the kernels off and on and compares outputs, what forward saved, the kernel's
gradients and the op's own backward on the kernel's node. Every CUDA kernel has such a test on
the shapes and dtypes its predicate takes, and a test of what its predicate declines.
"""

import sys
from pathlib import Path

import numpy as np
import pytest
from fake_cupy import LAUNCHES

import minitorch
from minitorch.autograd import set_debug
from minitorch.autograd.function import fast_kernel
from minitorch.functions.fused import BiasReLU, SoftmaxCrossEntropy
from minitorch.functions.unary import ReLU
from minitorch.kernels import use_fast_kernels
from minitorch.kernels.cuda import cross_entropy, elementwise, sources

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "kernels"))  # the harness of every kernel
from kernel_harness import check_kernel  # noqa: E402

FLOATS = ("float16", "float32", "float64")


def on_gpu(array, requires_grad=True):
    return minitorch.tensor(array, device="cuda", requires_grad=requires_grad)


def values(rng, shape, dtype):
    """Normal values with a few exact zeros (ReLU's kink) and a NaN-free spread."""
    x = rng.standard_normal(shape)
    x.flat[:: 5] = 0.0
    return x.astype(dtype)


# ---------------------------------------------------------------------- ReLU and bias + ReLU
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(4, 6), (2, 3, 4, 5), (1, 7), (0, 5)])
def test_relu_kernel_computes_the_op(fake_gpu, rng, dtype, shape):
    check_kernel(elementwise.RELU, on_gpu(values(rng, shape, dtype)), exact=True)


def test_relu_kernel_takes_a_transposed_input(fake_gpu, rng):
    x = on_gpu(values(rng, (6, 4), "float32"), requires_grad=False).T.requires_grad_()
    check_kernel(elementwise.RELU, x, exact=True)


def test_relu_kernels_are_the_ones_launched(fake_gpu, fast_kernels, rng):
    x = on_gpu(values(rng, (4, 6), "float32"))
    LAUNCHES.clear()
    y = minitorch.relu(x)
    y.backward(minitorch.ones_like(y))
    assert LAUNCHES["minitorch_relu_forward"] == 1 and LAUNCHES["minitorch_relu_backward"] == 1
    LAUNCHES.clear()
    with use_fast_kernels(False):
        minitorch.relu(x).backward(minitorch.ones_like(y))
    assert LAUNCHES["minitorch_relu_forward"] == LAUNCHES["minitorch_relu_backward"] == 0


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(4, 6), (2, 3, 6), (1, 6)])
def test_bias_relu_kernel_computes_the_op(fake_gpu, rng, dtype, shape):
    x, b = on_gpu(values(rng, shape, dtype)), on_gpu(values(rng, shape[-1:], dtype))
    check_kernel(elementwise.BIAS_RELU, x, b, exact=True)


def test_bias_relu_backward_takes_a_gradient_of_another_dtype(fake_gpu, fast_kernels, rng):
    """A float32 gradient into float16 outputs: the kernel has one T, so the op's expression runs."""
    x, b = on_gpu(values(rng, (3, 4), "float16")), on_gpu(values(rng, (4,), "float16"))
    node = BiasReLU.apply(x, b).grad_fn
    assert node.fast_kernel is elementwise.BIAS_RELU
    grad = minitorch.ones(3, 4, device="cuda").data  # float32
    got = elementwise.bias_relu_backward(node, grad)
    want = BiasReLU.backward(node, grad)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.get(), w.get())


def test_elementwise_predicates_decline_what_the_kernels_do_not_compute(fake_gpu, fast_kernels, rng):
    ints = on_gpu(np.arange(-3, 3), requires_grad=False)
    assert fast_kernel(ReLU, "cuda", [ints.data]) is None  # integers: the op's maximum
    x32, b64 = values(rng, (3, 4), "float32"), values(rng, (4,), "float64")
    assert fast_kernel(BiasReLU, "cuda", [on_gpu(x32).data, on_gpu(b64).data]) is None  # two dtypes, one T
    assert fast_kernel(ReLU, "cpu", [x32]) is not elementwise.RELU  # registered for the GPU only
    with use_fast_kernels(False):
        assert fast_kernel(ReLU, "cuda", [on_gpu(x32).data]) is None


# ---------------------------------------------------------------------- softmax cross-entropy
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("ignore_index", [None, -100, 7])
def test_cross_entropy_kernels_compute_the_op(fake_gpu, rng, dtype, reduction, ignore_index):
    logits = on_gpu(rng.standard_normal((6, 5)).astype(dtype))
    target = on_gpu(np.array([0, 4, 1, 1, 2, 3]), requires_grad=False)
    check_kernel(cross_entropy.ONE_KERNEL_EACH_WAY, logits, target, reduction, None, ignore_index)


@pytest.mark.parametrize("shape", [(1, 3), (3, 1), (5, sources.SOFTMAX_XENT_MAX_CLASSES)])
def test_cross_entropy_kernels_at_the_edges_of_their_predicate(fake_gpu, rng, shape):
    logits = on_gpu(rng.standard_normal(shape).astype("float32"))
    target = on_gpu(rng.integers(0, shape[1], shape[0]), requires_grad=False)
    check_kernel(cross_entropy.ONE_KERNEL_EACH_WAY, logits, target, "mean", None, -100)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("ignored", [[3], [0, 1, 2, 3, 4, 5]], ids=["one row", "every row"])
def test_cross_entropy_kernels_skip_ignored_rows_as_the_op(fake_gpu, fast_kernels, rng, reduction, ignored):
    """Rows labelled ``ignore_index``: the op masks them on the host, the kernels by their label.

    Outputs and gradients agree (every row ignored: a nan mean and zero gradients, as PyTorch),
    and the op's own backward on the kernel's node too (what gradients of gradients run).
    """
    labels = np.array([0, 4, 1, 1, 2, 3])
    labels[ignored] = -100
    logits = on_gpu(rng.standard_normal((6, 5)).astype("float32"))
    target = on_gpu(labels, requires_grad=False)
    args = (logits, target, reduction, None, -100)
    with use_fast_kernels(False):
        ref = SoftmaxCrossEntropy.apply(*args)
    fast = SoftmaxCrossEntropy.apply(*args)
    assert fast.grad_fn.fast_kernel is cross_entropy.ONE_KERNEL_EACH_WAY
    np.testing.assert_allclose(fast.data.get(), ref.data.get(), rtol=1e-6, equal_nan=True)
    grad = fast.grad_fn.xp.full(fast.data.shape, 1.5, dtype=fast.data.dtype)
    want = SoftmaxCrossEntropy.backward(ref.grad_fn, grad)[0].get()
    got = cross_entropy.softmax_xent_backward(fast.grad_fn, grad)[0].get()
    on_kernel_node = SoftmaxCrossEntropy.backward(fast.grad_fn, grad)[0].get()
    assert not np.isnan(want).any() and not want[ignored].any()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(on_kernel_node, want, rtol=1e-5, atol=1e-7)


def test_cross_entropy_kernel_flags_a_bad_label_at_the_next_sync(fake_gpu, fast_kernels, rng):
    logits = on_gpu(rng.standard_normal((4, 3)).astype("float32"))
    target = on_gpu(np.array([0, 1, 5, 2]), requires_grad=False)
    loss = SoftmaxCrossEntropy.apply(logits, target, "mean")  # PyTorch's ignore_index -100 when none is given
    assert loss.grad_fn.fast_kernel is cross_entropy.ONE_KERNEL_EACH_WAY
    with pytest.raises(IndexError, match=r"outside \[0, 2\] for 3 classes and not ignore_index=-100"):
        loss.item()


@pytest.mark.parametrize("case", ["float16", "more classes than the kernel", "set_debug", "row weights"])
def test_other_gpu_logits_run_the_op_forward_and_the_backward_kernel(fake_gpu, fast_kernels, rng, case):
    classes = sources.SOFTMAX_XENT_MAX_CLASSES + 1 if case == "more classes than the kernel" else 5
    dtype = "float16" if case == "float16" else "float32"
    logits = on_gpu(rng.standard_normal((4, classes)).astype(dtype))
    target = on_gpu(rng.integers(0, classes, 4), requires_grad=False)
    row_weight = on_gpu(np.array([1.0, 0.5, 2.0, 0.0], dtype), requires_grad=False)
    args = (logits, target, "mean", row_weight if case == "row weights" else None, -100)
    set_debug(case == "set_debug")
    try:
        assert fast_kernel(SoftmaxCrossEntropy, "cuda", [a.data if hasattr(a, "data") else a for a in args]) is (
            cross_entropy.BACKWARD_KERNEL
        )
        check_kernel(cross_entropy.BACKWARD_KERNEL, *args)
    finally:
        set_debug(False)


@pytest.mark.parametrize("reduction", ["sum", "none"])
def test_backward_kernel_after_the_op_forward_with_other_reductions(fake_gpu, rng, reduction):
    logits = on_gpu(rng.standard_normal((4, 3)).astype("float16"))
    target = on_gpu(np.array([2, 0, 1, 1]), requires_grad=False)
    check_kernel(cross_entropy.BACKWARD_KERNEL, logits, target, reduction, None, -100)


def test_cross_entropy_predicates_decline_integers_and_the_cpu(fake_gpu, fast_kernels, rng):
    target = np.array([0, 1])
    ints = on_gpu(np.arange(6).reshape(2, 3), requires_grad=False).data
    assert fast_kernel(SoftmaxCrossEntropy, "cuda", [ints, on_gpu(target, requires_grad=False).data, "mean"]) is None
    logits = rng.standard_normal((2, 3)).astype("float32")
    assert fast_kernel(SoftmaxCrossEntropy, "cpu", [logits, target, "mean"]).device == "cpu"  # the CPU's own


def test_kernel_modules_import_without_cupy():
    """Registering the CUDA kernels imports no CuPy: they are built at their first call."""
    import subprocess

    code = "import sys, minitorch; assert 'cupy' not in sys.modules, 'cupy imported'; print('ok')"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "ok", out.stderr
