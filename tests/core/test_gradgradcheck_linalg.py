"""Second derivatives of the products, norms, fused ops, classification losses and attention:
MatMul and the vector norms (linalg.py), Linear, BiasReLU and SoftmaxCrossEntropy (fused.py),
NLLLoss (class_losses.py) and ScaledDotProductAttention (attention.py), against finite
differences (gradgradcheck) and PyTorch's (``second_order.py``); third derivatives against
PyTorch's on one case of each family.

Each op's reference backward runs on graph values whichever fast kernel ran its forward (the
stacked BLAS Linear, the cross-entropy that keeps its probabilities, the attention that keeps
its weights): a kernel leaves ``ctx`` as the op does, so every test runs with the kernels on
and off. The losses' constants (class weights, ignored rows) are values without a gradient
to the recorded backward; norms and ReLU see inputs away from their kinks and ties.
"""

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from second_order import check  # noqa: E402  (PyTorch first)

import minitorch  # noqa: E402
from minitorch.autograd.graph_arrays import DoubleBackwardError  # noqa: E402
from minitorch.functions.fused import SoftmaxCrossEntropy  # noqa: E402
from minitorch.kernels import use_fast_kernels  # noqa: E402

KERNELS = pytest.mark.parametrize("kernels", [True, False], ids=["kernels", "reference"])


def distinct(rng, shape, low=0.3):
    """Values of distinct magnitudes, none within ``low`` of 0 (no ties, no kinks of |x|)."""
    size = int(np.prod(shape))
    magnitudes = low + 0.17 * rng.permutation(size)
    return (magnitudes * rng.choice([-1.0, 1.0], size)).reshape(shape)


# ---------------------------------------------------------------------- matmul
@KERNELS
@pytest.mark.parametrize(
    "a_shape, b_shape",
    [
        ((3, 4), (4, 2)),
        ((4,), (4, 3)),
        ((3, 4), (4,)),
        ((4,), (4,)),
        ((2, 3, 4), (4,)),
        ((4,), (2, 4, 3)),
        ((2, 1, 3, 4), (5, 4, 2)),
        ((3, 4), (2, 4, 5)),
    ],
    ids=["mm", "vm", "mv", "dot", "batch-v", "v-batch", "broadcast", "matrix-batch"],
)
def test_matmul(rng, kernels, a_shape, b_shape):
    a, b = rng.standard_normal(a_shape), rng.standard_normal(b_shape)
    with use_fast_kernels(kernels):
        check(lambda lib, x, y: lib.matmul(x, y), a, b)
        check(lambda lib, x, y: (x * x) @ y, a, b)


def test_mm_mv_bmm_and_third_derivatives(rng):
    a, b, v = rng.standard_normal((3, 4)), rng.standard_normal((4, 2)), rng.standard_normal(4)
    check(lambda lib, x, y: lib.mm(x * x, y) * x.sum(), a, b, order=3)
    check(lambda lib, x, y: lib.mv(x, y * y), a, v, order=3)
    p, q = rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 4, 2))
    check(lambda lib, x, y: lib.bmm(x, y) ** 2, p, q, order=3)


# ---------------------------------------------------------------------- linear
@KERNELS
@pytest.mark.parametrize("x_shape", [(5, 4), (2, 3, 4), (4,)], ids=["rows", "sequences", "one-sample"])
@pytest.mark.parametrize("bias", [True, False], ids=["bias", "no-bias"])
def test_linear(rng, kernels, x_shape, bias):
    x, w, b = rng.standard_normal(x_shape), rng.standard_normal((3, 4)), rng.standard_normal(3)
    with use_fast_kernels(kernels):
        if bias:
            check(lambda lib, x, w, b: lib.nn.functional.linear(x, w, b), x, w, b)
            check(lambda lib, x, w, b: lib.nn.functional.linear(x * x, w, b) ** 2, x, w, b)
        else:
            check(lambda lib, x, w: lib.nn.functional.linear(x, w) ** 2, x, w)


@KERNELS
def test_linear_third_derivatives_and_float32_gradients(rng, kernels):
    x, w, b = rng.standard_normal((2, 3, 4)), rng.standard_normal((3, 4)), rng.standard_normal(3)
    with use_fast_kernels(kernels):
        check(lambda lib, x, w, b: lib.nn.functional.linear(x, w * w, b) ** 2, x, w, b, order=3)
        # float32, as a model trains: the recorded backward gives the float64 one's numbers
        xs = [minitorch.tensor(a.astype(np.float32), requires_grad=True) for a in (x, w, b)]
        loss = (minitorch.nn.functional.linear(*xs) ** 2).sum()
        grads = minitorch.autograd.grad(loss, xs, create_graph=True)
        hvp = minitorch.autograd.grad(sum((g * g).sum() for g in grads), xs)
    exact = [minitorch.tensor(a, requires_grad=True) for a in (x, w, b)]
    grads = minitorch.autograd.grad((minitorch.nn.functional.linear(*exact) ** 2).sum(), exact, create_graph=True)
    want = minitorch.autograd.grad(sum((g * g).sum() for g in grads), exact)
    for got, ref in zip(hvp, want):
        assert got.dtype == minitorch.float32
        np.testing.assert_allclose(got.numpy(), ref.numpy(), rtol=1e-4, atol=1e-4)


# ---------------------------------------------------------------------- bias + relu
@KERNELS
@pytest.mark.parametrize("x_shape", [(3, 4), (2, 3, 4)], ids=["rows", "sequences"])
def test_bias_relu(rng, kernels, x_shape):
    x, b = distinct(rng, x_shape), distinct(rng, (4,), low=0.05) * 0.1  # x + b stays away from 0

    def fn(lib, x, b):
        y = minitorch.functions.bias_relu(x, b) if lib is minitorch else lib.relu(x + b)
        return y * y * x

    with use_fast_kernels(kernels):
        check(fn, x, b, order=3)


# ---------------------------------------------------------------------- softmax cross-entropy
LABELS = {
    "classes": [0, 2, 1, 3, 3],
    "ignored": [0, -100, 1, 2, -100],
    "all-ignored": [-100] * 5,
}


@KERNELS
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("labels", sorted(LABELS))
def test_softmax_cross_entropy(rng, kernels, reduction, labels):
    x, t = rng.standard_normal((5, 4)), np.array(LABELS[labels])
    if labels == "all-ignored" and reduction == "mean":
        pytest.skip("the loss is nan (0/0) on both sides: its derivatives have no value to compare")

    def fn(lib, x):
        return lib.nn.functional.cross_entropy(x * x, lib.tensor(t), reduction=reduction)

    with use_fast_kernels(kernels):
        check(fn, x, order=3 if labels == "ignored" else 2)


@KERNELS
def test_softmax_cross_entropy_with_an_ignore_index_that_is_a_class(rng, kernels):
    x, t = rng.standard_normal((6, 4)), np.array([0, 1, 3, 1, 2, 1])

    def fn(lib, x):
        return lib.nn.functional.cross_entropy(x, lib.tensor(t), ignore_index=1) * x.sum()

    with use_fast_kernels(kernels):
        check(fn, x)


def test_the_fused_cross_entropy_is_the_one_differentiated(rng):
    x = minitorch.tensor(rng.standard_normal((5, 4)), requires_grad=True)
    t = minitorch.tensor(np.array(LABELS["ignored"]))
    loss = minitorch.nn.functional.cross_entropy(x, t)
    assert type(loss.grad_fn).__name__.startswith("SoftmaxCrossEntropy")
    (g,) = minitorch.autograd.grad(loss, [x], create_graph=True)
    assert g.requires_grad and g.grad_fn is not None
    np.testing.assert_array_equal(g.detach().numpy()[[1, 4]], 0)  # the ignored rows learn nothing


def test_a_float_row_weight_kept_on_ctx_is_refused_by_name(rng):
    # Only a direct caller passes the fused op float row weights (cross_entropy's class weights
    # take the NLLLoss path): kept on ctx, they are refused, never treated as constants silently.
    x = minitorch.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    loss = SoftmaxCrossEntropy.apply(x, minitorch.tensor(np.array([0, 1, 2])), "mean", np.array([1.0, 2.0, 3.0]))
    with pytest.raises(DoubleBackwardError, match="SoftmaxCrossEntropyBackward.*ctx.row_weight"):
        minitorch.autograd.grad(loss, [x], create_graph=True)


# ---------------------------------------------------------------------- nll_loss and its cross-entropies
@KERNELS
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "class-weights"])
@pytest.mark.parametrize("labels", ["classes", "ignored"])
def test_nll_loss(rng, kernels, reduction, weighted, labels):
    x, t, w = rng.standard_normal((5, 4)), np.array(LABELS[labels]), rng.uniform(0.5, 2.0, 4)

    def fn(lib, x):
        weight = lib.tensor(w) if weighted else None
        logp = lib.nn.functional.log_softmax(x, 1)
        return lib.nn.functional.nll_loss(logp * x, lib.tensor(t), weight, reduction=reduction)

    with use_fast_kernels(kernels):
        check(fn, x)


@pytest.mark.parametrize("reduction", ["mean", "none"])
@pytest.mark.parametrize("shape", [(4,), (2, 4, 3)], ids=["one-sample", "spatial"])
def test_nll_loss_one_sample_and_spatial(rng, shape, reduction):
    x, w = rng.standard_normal(shape), rng.uniform(0.5, 2.0, 4)
    t = np.array(2) if len(shape) == 1 else np.array([[0, 3, -100], [1, 1, 2]])

    def fn(lib, x):
        return lib.nn.functional.nll_loss(x * x, lib.tensor(t), lib.tensor(w), reduction=reduction)

    check(fn, x)


@KERNELS
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("smoothing", [0.0, 0.2])
def test_cross_entropy_with_weights_ignore_index_and_label_smoothing(rng, kernels, reduction, smoothing):
    x, t, w = rng.standard_normal((5, 4)), np.array(LABELS["ignored"]), rng.uniform(0.5, 2.0, 4)

    def fn(lib, x):
        return lib.nn.functional.cross_entropy(
            x * x, lib.tensor(t), lib.tensor(w), reduction=reduction, label_smoothing=smoothing
        )

    with use_fast_kernels(kernels):
        check(fn, x, order=3 if smoothing and reduction == "mean" else 2)


def test_every_row_ignored_gives_zero_second_derivatives(rng):
    x = minitorch.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    t = minitorch.tensor(np.full(3, -100))
    for loss in (
        minitorch.nn.functional.cross_entropy(x * x, t),
        minitorch.nn.functional.nll_loss(x * x, t, minitorch.tensor(np.ones(4))),
    ):
        (g,) = minitorch.autograd.grad(loss, [x], create_graph=True)
        (h,) = minitorch.autograd.grad(g.sum(), [x], allow_unused=True)
        assert np.isnan(loss.item())
        np.testing.assert_array_equal(g.detach().numpy(), 0)
        assert h is None or not np.any(h.numpy())


# ---------------------------------------------------------------------- attention
def attention(mask=None, causal=False, scale=None):
    """fn(lib, q, k, v[, float mask]): scaled_dot_product_attention with these settings."""

    def fn(lib, q, k, v, *float_mask):
        m = float_mask[0] if float_mask else (None if mask is None else lib.tensor(mask))
        out = lib.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=m, is_causal=causal, scale=scale)
        return out * out

    return fn


@KERNELS
@pytest.mark.parametrize(
    "q_shape, k_shape, v_shape",
    [((3, 4), (5, 4), (5, 2)), ((2, 3, 4), (2, 5, 4), (2, 5, 3)), ((2, 1, 3, 4), (3, 5, 4), (1, 5, 2))],
    ids=["2d", "batch", "broadcast"],
)
def test_attention(rng, kernels, q_shape, k_shape, v_shape):
    q, k, v = (rng.standard_normal(s) for s in (q_shape, k_shape, v_shape))
    with use_fast_kernels(kernels):
        check(attention(), q, k, v)
        check(attention(scale=0.3), q, k, v)


@KERNELS
def test_attention_with_masks(rng, kernels):
    q, k, v = rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 4, 4)), rng.standard_normal((2, 4, 2))
    allowed = rng.uniform(size=(3, 4)) > 0.4
    allowed[:, 0] = True  # every query sees a key (PyTorch's math path gives NaN for a row without one)
    with use_fast_kernels(kernels):
        check(attention(mask=allowed), q, k, v)
        check(attention(causal=True), q, k, v, order=3)
        check(attention(), q, k, v, rng.standard_normal((3, 4)))  # a float mask that learns


def test_attention_a_fully_masked_row_stays_zero_twice(rng):
    q, k, v = (minitorch.tensor(rng.standard_normal(s), requires_grad=True) for s in ((3, 4), (4, 4), (4, 2)))
    allowed = np.ones((3, 4), bool)
    allowed[1] = False
    out = minitorch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=minitorch.tensor(allowed))
    grads = minitorch.autograd.grad((out * out).sum(), [q, k, v], create_graph=True)
    second = minitorch.autograd.grad(sum((g * g).sum() for g in grads), [q, k, v])
    for g in (*grads, *second):
        assert np.all(np.isfinite(g.detach().numpy()))
    assert not np.any(grads[0].detach().numpy()[1])  # the masked query's gradient is 0
    assert minitorch.autograd.gradgradcheck(
        lambda q, k, v: minitorch.nn.functional.scaled_dot_product_attention(
            q, k, v, attn_mask=minitorch.tensor(allowed)
        ),
        [q, k, v],
    )


# ---------------------------------------------------------------------- norms
@pytest.mark.parametrize("p", [2, "fro", 3, 1.5, 0.5, -1.0, float("inf"), float("-inf")])
@pytest.mark.parametrize("dim, keepdim", [(None, False), (1, False), ((0, 2), True)])
def test_norms(rng, p, dim, keepdim):
    x = distinct(rng, (2, 3, 4))

    check(lambda lib, x: lib.norm(x * x.sum(), p=p, dim=dim, keepdim=keepdim) ** 2, x)


def test_norm_third_derivatives(rng):
    x = distinct(rng, (3, 4))
    check(lambda lib, x: x.norm(dim=1) * x.sum(), x, order=3)
    check(lambda lib, x: x.norm(p=3, dim=0, keepdim=True) ** 2, x, order=3)
    check(lambda lib, x: (x * x).norm(p=float("inf"), dim=1) * x.norm(), x, order=3)


# ---------------------------------------------------------------------- the GPU's kernel path
@pytest.fixture
def fake_gpu(monkeypatch):
    """The device tests' fake CuPy as ``cupy``: the GPU's fused cross-entropy kernels on the CPU's arrays."""
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "devices"))
    import fake_cupy

    from minitorch import backends

    fake_cupy.install(monkeypatch)
    backends.reset_probes()
    assert minitorch.cuda.is_available()
    yield
    backends.reset_probes()


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("labels, ignore_index", [("ignored", -100), ("classes", 3), ("all-ignored", -100)])
def test_cross_entropy_after_the_gpu_kernel_differentiates_twice_as_on_the_cpu(
    rng, fake_gpu, reduction, labels, ignore_index
):
    # The GPU's forward kernel keeps the raw labels (it skips ignored rows itself): the
    # recorded backward masks them the same way, and gives the CPU's second derivatives.
    x, t, v = rng.standard_normal((5, 4)), np.array(LABELS[labels]), rng.standard_normal((5, 4))
    results = []
    for device in ("cpu", "cuda"):
        logits = minitorch.tensor(x, device=device, requires_grad=True)
        loss = minitorch.nn.functional.cross_entropy(
            logits * logits, minitorch.tensor(t, device=device), ignore_index=ignore_index, reduction=reduction
        )
        (g,) = minitorch.autograd.grad(loss.sum(), [logits], create_graph=True)
        (h,) = minitorch.autograd.grad((g * minitorch.tensor(v, device=device)).sum(), [logits])
        results.append((g.detach().cpu().numpy(), h.cpu().numpy()))
    for got, want in zip(results[1], results[0]):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
