"""nn.functional: float64 gradchecks of every op, stability, errors, and PyTorch as an oracle."""

import numpy as np
import pytest

import minitorch
import minitorch.nn.functional as F
from minitorch.autograd import gradcheck
from minitorch.errors import MiniTorchError
from minitorch.switches import SWITCHES


def t64(rng, *shape, requires_grad=True):
    return minitorch.tensor(rng.standard_normal(shape), requires_grad=requires_grad)


# ---------------------------------------------------------------------- gradchecks


@pytest.mark.parametrize("fn", [F.relu, F.sigmoid, F.tanh])
def test_activations_gradcheck(rng, fn):
    x = minitorch.tensor(rng.standard_normal((3, 4)) + 0.05, requires_grad=True)  # avoid relu's kink at 0
    assert gradcheck(fn, (x,))


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_softmax_and_log_softmax_gradcheck(rng, dim):
    x = t64(rng, 3, 5)
    assert gradcheck(lambda a: F.softmax(a, dim), (x,))
    assert gradcheck(lambda a: F.log_softmax(a, dim), (x,))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_and_nll_gradcheck(rng, reduction):
    x = t64(rng, 6, 4)
    target = minitorch.tensor(rng.integers(0, 4, 6))
    assert gradcheck(lambda a: F.cross_entropy(a, target, reduction=reduction), (x,))
    assert gradcheck(lambda a: F.nll_loss(a, target, reduction=reduction), (x,))


def test_cross_entropy_spatial_targets_gradcheck(rng):
    x = t64(rng, 2, 3, 2, 2)
    target = minitorch.tensor(rng.integers(0, 3, (2, 2, 2)))
    assert gradcheck(lambda a: F.cross_entropy(a, target), (x,))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_mse_loss_gradcheck(rng, reduction):
    a, b = t64(rng, 3, 4), t64(rng, 3, 4)
    assert gradcheck(lambda x, y: F.mse_loss(x, y, reduction), (a, b))


@pytest.mark.parametrize("with_bias", [True, False])
def test_linear_gradcheck(rng, with_bias):
    x, w = t64(rng, 2, 3, 4), t64(rng, 5, 4)
    b = t64(rng, 5) if with_bias else None
    inputs = (x, w, b) if with_bias else (x, w)
    assert gradcheck(lambda *a: F.linear(*a), inputs)


def test_dropout_gradcheck_with_fixed_mask(rng):
    x = t64(rng, 4, 5)

    def fn(a):
        minitorch.manual_seed(3)  # the same mask on every call of the finite differences
        return F.dropout(a, 0.4, training=True)

    assert gradcheck(fn, (x,))


@pytest.fixture(params=["im2col", "shifted"])
def conv_design(request):
    """Run a test with each convolution design (``SWITCHES.conv_design``; shifted is stride 1 only)."""

    previous = SWITCHES.conv_design
    SWITCHES.conv_design = request.param
    yield request.param
    SWITCHES.conv_design = previous


@pytest.mark.parametrize("stride,padding", [(1, 0), (1, 1), (2, 1), ((2, 1), (0, 2))])
def test_conv2d_gradcheck(rng, stride, padding, conv_design):
    x, w, b = t64(rng, 2, 3, 5, 5), t64(rng, 4, 3, 3, 2), t64(rng, 4)
    assert gradcheck(lambda *a: F.conv2d(*a, stride=stride, padding=padding), (x, w, b))


@pytest.mark.parametrize("kernel,stride", [(2, None), (3, 1), (2, 1), ((2, 3), (1, 2))])
def test_max_pool2d_gradcheck(rng, kernel, stride):
    # Distinct values: the max of every window is unique, so the gradient is well defined.
    x = minitorch.tensor(rng.permutation(2 * 2 * 6 * 6).reshape(2, 2, 6, 6) / 10.0, requires_grad=True)
    assert gradcheck(lambda a: F.max_pool2d(a, kernel, stride), (x,))


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("shape", [(6, 3), (4, 3, 2, 2)])
def test_batch_norm_gradcheck(rng, training, shape):
    x, w, b = t64(rng, *shape), t64(rng, 3), t64(rng, 3)
    mean = minitorch.tensor(rng.standard_normal(3))
    var = minitorch.tensor(rng.random(3) + 0.5)
    assert gradcheck(lambda *a: F.batch_norm(a[0], mean.detach().clone() if training else mean,
                                             var.detach().clone() if training else var,
                                             a[1], a[2], training=training), (x, w, b))


# ---------------------------------------------------------------------- numerics and errors


def test_log_softmax_is_stable_for_huge_logits():
    x = minitorch.tensor([[1000.0, -1000.0, 0.0], [-1000.0, -1000.0, -1000.0]], requires_grad=True)
    out = F.log_softmax(x, dim=1)
    assert np.isfinite(out.data).all()
    np.testing.assert_allclose(out.data[0], [0.0, -2000.0, -1000.0])
    loss = F.cross_entropy(x, minitorch.tensor([1, 0]))
    loss.backward()
    assert np.isfinite(loss.item()) and np.isfinite(x.grad.data).all()
    assert np.isfinite(F.softmax(x, 1).data).all()


def test_cross_entropy_errors_are_clear():
    x = minitorch.randn(4, 3)
    with pytest.raises(MiniTorchError, match="integer class indices"):
        F.cross_entropy(x, minitorch.tensor([0.0, 1.0, 2.0, 1.0]))
    with pytest.raises(MiniTorchError, match=r"in \[0, 2\]"):
        F.cross_entropy(x, minitorch.tensor([0, 1, 3, 1]))
    with pytest.raises(MiniTorchError, match=r"target must have shape \(4,\)"):
        F.cross_entropy(x, minitorch.tensor([0, 1]))
    with pytest.raises(MiniTorchError, match="reduction"):
        F.cross_entropy(x, minitorch.tensor([0, 1, 2, 1]), reduction="avg")


def test_max_pool2d_tie_sends_gradient_to_the_first_maximum_like_torch():
    x = minitorch.ones(1, 1, 4, 4, requires_grad=True)
    F.max_pool2d(x, 2).sum().backward()
    expected = np.zeros((4, 4))
    expected[::2, ::2] = 1
    np.testing.assert_array_equal(x.grad.data[0, 0], expected)


def test_max_pool2d_nan_wins_like_torch():
    torch = pytest.importorskip("torch")
    x = np.ones((1, 1, 4, 6))
    x[0, 0, 0, 1] = x[0, 0, 3, 3] = x[0, 0, 2, 5] = np.nan
    for kernel, stride in [(2, None), (3, 1)]:
        mt = minitorch.tensor(x, requires_grad=True)
        th = torch.tensor(x, requires_grad=True)
        out = F.max_pool2d(mt, kernel, stride)
        out.sum().backward()
        torch.nn.functional.max_pool2d(th, kernel, stride).sum().backward()
        np.testing.assert_array_equal(out.data, torch.nn.functional.max_pool2d(th, kernel, stride).detach().numpy())
        np.testing.assert_array_equal(mt.grad.data, th.grad.numpy())


def test_conv_and_pool_shape_errors():
    with pytest.raises(MiniTorchError, match="channels"):
        F.conv2d(minitorch.randn(1, 2, 5, 5), minitorch.randn(4, 3, 3, 3))
    with pytest.raises(MiniTorchError, match=r"\(N, C, H, W\)"):  # (C, H, W) is accepted, as in PyTorch
        F.conv2d(minitorch.randn(5, 5), minitorch.randn(4, 2, 3, 3))
    with pytest.raises(MiniTorchError, match="larger"):
        F.max_pool2d(minitorch.randn(1, 1, 2, 2), 3)
    with pytest.raises(MiniTorchError, match="weight of shape"):
        F.linear(minitorch.randn(2, 3), minitorch.randn(4, 5))
    # As PyTorch: a target of another shape broadcasts with a warning, here naming the fix.
    with pytest.warns(UserWarning, match=r"different to the input size.*squeeze\(1\)"):
        F.mse_loss(minitorch.randn(3, 1), minitorch.randn(3))
    with pytest.warns(UserWarning), pytest.raises(MiniTorchError, match="cannot be broadcast"):
        F.mse_loss(minitorch.randn(3, 2), minitorch.randn(3))


def test_dropout_scales_kept_values_and_is_identity_in_eval():
    minitorch.manual_seed(0)
    x = minitorch.ones(1000, 100)
    y = F.dropout(x, 0.25, training=True)
    kept = y.data != 0
    assert abs(kept.mean() - 0.75) < 0.01
    np.testing.assert_allclose(y.data[kept], 1 / 0.75, rtol=1e-6)
    assert F.dropout(x, 0.25, training=False) is x


def test_conv2d_forward_has_no_python_loop_over_pixels_and_handles_a_large_batch(rng):
    # 256 images of 28x28: the op is one matmul; this would take seconds with per-pixel loops.
    x = minitorch.tensor(rng.standard_normal((256, 1, 28, 28)).astype(np.float32))
    w = minitorch.tensor(rng.standard_normal((8, 1, 3, 3)).astype(np.float32), requires_grad=True)
    out = F.conv2d(x, w, padding=1)
    assert out.shape == (256, 8, 28, 28)
    out.sum().backward()
    assert w.grad.shape == (8, 1, 3, 3)


# ---------------------------------------------------------------------- PyTorch oracle


def _to_torch(torch, t, requires_grad=True):
    return torch.tensor(t.data, requires_grad=requires_grad)


def _compare(torch, mt_fn, torch_fn, inputs, rtol=1e-10, atol=1e-12):
    mt_in = [minitorch.tensor(a, requires_grad=True) for a in inputs]
    th_in = [torch.tensor(a, requires_grad=True) for a in inputs]
    mt_out, th_out = mt_fn(*mt_in), torch_fn(*th_in)
    np.testing.assert_allclose(mt_out.data, th_out.detach().numpy(), rtol=rtol, atol=atol)
    seed = np.random.default_rng(1).standard_normal(mt_out.shape)
    mt_out.backward(minitorch.tensor(seed))
    th_out.backward(torch.tensor(seed))
    for m, t in zip(mt_in, th_in):
        np.testing.assert_allclose(m.grad.data, t.grad.numpy(), rtol=rtol, atol=atol)


@pytest.mark.parametrize("stride,padding", [(1, 0), (1, 1), (2, 2), ((1, 2), (1, 0)), (1, (2, 0))])
def test_conv2d_matches_torch(rng, stride, padding, conv_design):
    torch = pytest.importorskip("torch")
    x, w, b = rng.standard_normal((3, 2, 7, 6)), rng.standard_normal((4, 2, 3, 3)), rng.standard_normal(4)
    _compare(
        torch,
        lambda *a: F.conv2d(*a, stride=stride, padding=padding),
        lambda *a: torch.nn.functional.conv2d(*a, stride=stride, padding=padding),
        [x, w, b],
    )


@pytest.mark.parametrize("kernel,stride", [(2, None), (3, 2), (2, 1)])
def test_max_pool2d_matches_torch(rng, kernel, stride):
    torch = pytest.importorskip("torch")
    x = rng.standard_normal((2, 3, 7, 7))
    _compare(
        torch,
        lambda a: F.max_pool2d(a, kernel, stride),
        lambda a: torch.nn.functional.max_pool2d(a, kernel, stride),
        [x],
    )


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_losses_match_torch(rng, reduction):
    torch = pytest.importorskip("torch")
    logits = rng.standard_normal((7, 5)) * 3
    target = rng.integers(0, 5, 7)
    tt = torch.tensor(target)
    mt_t = minitorch.tensor(target)
    _compare(torch, lambda a: F.cross_entropy(a, mt_t, reduction=reduction),
             lambda a: torch.nn.functional.cross_entropy(a, tt, reduction=reduction), [logits])
    _compare(torch, lambda a: F.nll_loss(F.log_softmax(a, 1), mt_t, reduction=reduction),
             lambda a: torch.nn.functional.nll_loss(torch.log_softmax(a, 1), tt, reduction=reduction), [logits])
    _compare(torch, lambda a, b: F.mse_loss(a, b, reduction),
             lambda a, b: torch.nn.functional.mse_loss(a, b, reduction=reduction), [logits, logits[::-1].copy()])


def test_softmax_family_and_linear_match_torch(rng):
    torch = pytest.importorskip("torch")
    x = rng.standard_normal((4, 6)) * 10
    _compare(torch, lambda a: F.softmax(a, 1), lambda a: torch.softmax(a, 1), [x])
    _compare(torch, lambda a: F.log_softmax(a, 0), lambda a: torch.log_softmax(a, 0), [x])
    w, b = rng.standard_normal((3, 6)), rng.standard_normal(3)
    _compare(torch, F.linear, torch.nn.functional.linear, [x, w, b])


@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_matches_torch(rng, training):
    torch = pytest.importorskip("torch")
    x = rng.standard_normal((5, 3, 4, 4))
    mean, var = rng.standard_normal(3), rng.random(3) + 0.5
    m_mean, m_var = minitorch.tensor(mean), minitorch.tensor(var)
    t_mean, t_var = torch.tensor(mean), torch.tensor(var)
    w, b = rng.standard_normal(3), rng.standard_normal(3)
    _compare(torch, lambda a, ww, bb: F.batch_norm(a, m_mean, m_var, ww, bb, training, 0.1, 1e-5),
             lambda a, ww, bb: torch.nn.functional.batch_norm(a, t_mean, t_var, ww, bb, training, 0.1, 1e-5),
             [x, w, b])
    np.testing.assert_allclose(m_mean.data, t_mean.numpy(), rtol=1e-12)
    np.testing.assert_allclose(m_var.data, t_var.numpy(), rtol=1e-12)


def test_functional_arguments_have_pytorchs_names():
    # PyTorch code passes them by keyword: F.relu(input=x), F.linear(input=x, weight=w).
    x, w = minitorch.tensor([[-1.0, 2.0]]), minitorch.ones(3, 2)
    assert F.relu(input=x).tolist() == [[0.0, 2.0]]
    assert F.relu(x, inplace=True).tolist() == [[0.0, 2.0]] and x.tolist() == [[-1.0, 2.0]]  # a new tensor
    assert minitorch.relu(input=x).tolist() == [[0.0, 2.0]]
    assert F.sigmoid(input=x).shape == F.tanh(input=x).shape == F.gelu(input=x).shape == (1, 2)
    assert F.linear(input=x, weight=w, bias=None).shape == (1, 3)


def test_tensor_softmax_takes_a_dtype_and_gelu_refuses_integers():
    x = minitorch.tensor([[1.0, 2.0]])
    assert x.softmax(-1, dtype=minitorch.float64).dtype == minitorch.float64
    assert x.log_softmax(1, minitorch.float64).dtype == minitorch.float64
    with pytest.raises(NotImplementedError, match=r"gelu: .*int64.*\.float\(\)"):  # as PyTorch
        F.gelu(minitorch.ones(3, dtype=minitorch.int64))
