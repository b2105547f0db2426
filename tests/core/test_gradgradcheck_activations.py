"""Second derivatives of the activations (activations.py) and the normalisations
(normalization.py), against finite differences (gradgradcheck) and PyTorch's
(``second_order.py``), broadcasting and each ``dim`` included; third derivatives against
PyTorch's on one case of each family.

Piecewise-linear activations (leaky_relu, hardtanh, threshold) have a second derivative of 0
away from their kinks, but their first backward must still be recorded: a gradient penalty
differentiates through the mask (d/dx of slope(x) * g is 0, d/dg is slope(x)). They are
checked away from the kinks, alone and multiplied by x (so the mask meets a nonzero second
derivative). Batch norm runs in training (batch statistics, which depend on x) and in
evaluation (running statistics: constants), with and without weight and bias; layer norm
over one and two trailing dims. The fast kernels of the normalisations run the forward here
(float64 NumPy): graph mode runs each op's own backward on their nodes, and the tests at the
end compare that with the kernels off.
"""

import numpy as np
import pytest

pytest.importorskip("torch")

from second_order import check, compare_with_torch, derivatives  # noqa: E402  (PyTorch first)

import minitorch  # noqa: E402
from minitorch.kernels import use_fast_kernels  # noqa: E402


def normal(rng, shape):
    return rng.standard_normal(shape)


def away_from(rng, shape, kinks, margin=0.1):
    """Normal draws moved off each kink by at least ``margin`` (a finite difference across a
    kink means nothing)."""
    x = rng.standard_normal(shape) * 1.5
    for k in kinks:
        near = np.abs(x - k) < margin
        x = np.where(near, k + np.where(x >= k, margin, -margin) * 2, x)
    return x


def F(lib):  # noqa: N802  (PyTorch's name for the module)
    return lib.nn.functional


# ---------------------------------------------------------------------- softmax and log_softmax
@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
@pytest.mark.parametrize("shape, dim", [((3, 4), -1), ((3, 4), 0), ((2, 3, 4), 1), ((5,), 0)], ids=str)
def test_softmax_and_log_softmax(rng, op, shape, dim):
    check(lambda lib, x: getattr(F(lib), op)(x, dim=dim), normal(rng, shape))


@pytest.mark.parametrize("op", ["softmax", "log_softmax", "softmin"])
def test_softmax_family_broadcast_and_third_derivatives(rng, op):
    # logits made by broadcasting (3, 1) + (4,): the sums over dim of the backward meet the broadcast's
    fn = lambda lib, a, b: getattr(F(lib), op)(a * b + b, dim=-1) * b  # noqa: E731
    check(fn, normal(rng, (3, 1)), normal(rng, (4,)), order=3)


# ---------------------------------------------------------------------- smooth activations
SMOOTH = {
    "silu": lambda lib, x: F(lib).silu(x),
    "softplus": lambda lib, x: F(lib).softplus(x),
    "softplus_beta": lambda lib, x: F(lib).softplus(x, beta=2.5),
    "mish": lambda lib, x: F(lib).mish(x),
    "logsigmoid": lambda lib, x: F(lib).logsigmoid(x),
    "elu": lambda lib, x: F(lib).elu(x, alpha=1.3),
}


@pytest.mark.parametrize("name", SMOOTH)
def test_smooth_activations_broadcast(rng, name):
    fn = SMOOTH[name]
    # elu's second derivative jumps at 0 (alpha e^x on the left, 0 on the right): inputs away from it
    draw = (lambda r, s: away_from(r, s, [0.0])) if name == "elu" else (lambda r, s: normal(r, s) * 2)
    check(lambda lib, x: fn(lib, x), draw(rng, (3, 4)))
    check(lambda lib, a, b: fn(lib, a + b), draw(rng, (3, 1)) / 2, draw(rng, (4,)) / 2 + 0.01)


@pytest.mark.parametrize("name", SMOOTH)
def test_smooth_activations_third_derivatives(rng, name):
    x = away_from(rng, (2, 5), [0.0]) if name == "elu" else normal(rng, (2, 5)) * 2
    check(SMOOTH[name], x, order=3, torch_check=True)


@pytest.mark.parametrize("name", SMOOTH)
def test_smooth_activations_at_zero(name):
    """x = 0 exactly (a padded input, a ReLU's zeros): the overflow-safe forms go through |x|,
    whose derivative there is 0; the recorded backward must still have the true derivatives."""
    check(SMOOTH[name], np.array([0.0, -0.0, 1.0, -2.0]) if name != "elu" else np.array([1.0, -2.0]), order=3)


def test_softplus_above_its_threshold(rng):
    # beta * x > threshold: x itself (derivative 1, then 0); below it the smooth branch
    x = away_from(rng, (3, 4), [0.5 / 1.5], margin=0.2)
    check(lambda lib, t: F(lib).softplus(t, beta=1.5, threshold=0.5) * t, x, order=3)


def test_tails_do_not_overflow(rng):
    """Second and third derivatives of the smooth activations far out are finite (and PyTorch's to |x| = 40)."""
    x = np.array([-40.0, -15.0, -3.0, 3.0, 15.0, 40.0])
    far = np.array([-800.0, -40.0, 40.0, 800.0])  # exp(800) overflows float64: no form may take it
    for name, fn in SMOOTH.items():
        mine = derivatives(minitorch, fn, [far], order=3)
        assert all(np.isfinite(d).all() for order in mine for d in order), name
    check(SMOOTH["silu"], x)
    check(SMOOTH["logsigmoid"], x)
    check(SMOOTH["softplus"], x)


# ---------------------------------------------------------------------- piecewise linear
PIECEWISE = {
    "leaky_relu": (lambda lib, x: F(lib).leaky_relu(x, 0.1), [0.0]),
    "hardtanh": (lambda lib, x: F(lib).hardtanh(x, -0.8, 1.2), [-0.8, 1.2]),
    "relu6": (lambda lib, x: F(lib).relu6(x * 4), [0.0, 1.5]),
    "threshold": (lambda lib, x: F(lib).threshold(x, 0.3, -2.0), [0.3]),
}


@pytest.mark.parametrize("name", PIECEWISE)
def test_piecewise_linear_away_from_the_kinks(rng, name):
    fn, kinks = PIECEWISE[name]
    x = away_from(rng, (3, 4), kinks)
    check(fn, x)  # second derivative 0, but d/d(grad_output) of the recorded mask * g is checked
    check(lambda lib, t: fn(lib, t) * t, x, order=3)  # the mask meets x's own second derivative
    # every kink is a multiple of 0.1 and a + b sits 0.04 off that grid
    a, b = rng.integers(-10, 10, (3, 1)) * 0.1 + 0.03, rng.integers(-10, 10, (4,)) * 0.1 + 0.01
    check(lambda lib, s, t: fn(lib, s + t) ** 2, a, b)


def test_gradient_penalty_through_leaky_relu(rng):
    """WGAN-GP's penalty through a piecewise-linear critic: ||d critic / dx||^2 differentiated
    with respect to the weights (the mask is recorded, not dropped)."""
    x, w, v = normal(rng, (4, 3)), normal(rng, (3, 5)), normal(rng, (5,))

    def penalty(lib, w, v):
        xs = lib.tensor(x, requires_grad=True)
        out = (F(lib).leaky_relu(xs @ w, 0.2) * v).sum()
        (g,) = lib.autograd.grad(out, xs, create_graph=True)
        return ((g * g).sum(dim=1) - 1) ** 2

    check(penalty, w, v, order=2)


# ---------------------------------------------------------------------- normalisation
@pytest.mark.parametrize("affine", [True, False], ids=["affine", "plain"])
@pytest.mark.parametrize("shape, normalized", [((3, 4), (4,)), ((2, 3, 4), (4,)), ((2, 3, 4), (3, 4))], ids=str)
def test_layer_norm(rng, shape, normalized, affine):
    x = normal(rng, shape)
    if affine:
        w, b = normal(rng, normalized), normal(rng, normalized)
        check(lambda lib, x, w, b: F(lib).layer_norm(x, normalized, w, b) * x, x, w, b)
    else:
        check(lambda lib, x: F(lib).layer_norm(x, normalized) * x, x)


def composed_normalization(x, axes, weight, eps):
    """(x - mean) / sqrt(var + eps) * weight in elementary ops (for PyTorch's third derivatives:
    torch 2.13's layer_norm and batch_norm give wrong ones, their double backward formulas are
    not differentiated correctly again; the composition's agree with MiniTorch's to 1e-12)."""
    mean = x.mean(dim=axes, keepdim=True)
    var = ((x - mean) ** 2).mean(dim=axes, keepdim=True)
    return (x - mean) / (var + eps).sqrt() * weight


def test_layer_norm_broadcast_and_third_derivatives(rng):
    # the input made by broadcasting (2, 1, 4) * (3, 1): every row shares parts of the others
    def fn(lib, a, c, w):
        if lib is minitorch:
            return F(lib).layer_norm(a * c + c, (4,), w * w, None, eps=1e-3) ** 2
        return composed_normalization(a * c + c, (-1,), w * w, 1e-3) ** 2

    check(fn, normal(rng, (2, 1, 4)), normal(rng, (3, 1)), normal(rng, (4,)), order=3)


@pytest.mark.parametrize("affine", [True, False], ids=["affine", "plain"])
@pytest.mark.parametrize("shape", [(4, 3), (3, 2, 2, 3)], ids=str)
def test_batch_norm_training(rng, shape, affine):
    x = normal(rng, shape)
    c = shape[1]
    if affine:
        fn = lambda lib, x, w, b: F(lib).batch_norm(x, None, None, w, b, training=True) * x  # noqa: E731
        check(fn, x, normal(rng, (c,)), normal(rng, (c,)))
    else:
        check(lambda lib, x: F(lib).batch_norm(x, None, None, training=True) * x, x)


def test_batch_norm_training_updates_running_statistics_and_differentiates_twice(rng):
    x = minitorch.tensor(normal(rng, (5, 3)), requires_grad=True)
    mean, var = minitorch.zeros(3, dtype=minitorch.float64), minitorch.ones(3, dtype=minitorch.float64)
    y = F(minitorch).batch_norm(x * x, mean, var, training=True, momentum=0.5)
    (g,) = minitorch.autograd.grad((y * y * x).sum(), x, create_graph=True)
    (gg,) = minitorch.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(mean.numpy(), 0.5 * (x.detach().numpy() ** 2).mean(axis=0), rtol=1e-12)
    assert np.isfinite(gg.numpy()).all()


@pytest.mark.parametrize("affine", [True, False], ids=["affine", "plain"])
@pytest.mark.parametrize("shape", [(4, 3), (3, 2, 2, 3)], ids=str)
def test_batch_norm_evaluation(rng, shape, affine):
    c = shape[1]
    running_mean, running_var = normal(rng, (c,)), rng.uniform(0.5, 2.0, (c,))

    def stats(lib):  # constants of each library, made anew per call (eval mode never updates them)
        return lib.tensor(running_mean), lib.tensor(running_var)

    x = normal(rng, shape)
    if affine:
        fn = lambda lib, x, w, b: F(lib).batch_norm(x * x, *stats(lib), w, b, training=False) * x  # noqa: E731
        check(fn, x, normal(rng, (c,)), normal(rng, (c,)))
    else:
        check(lambda lib, x: F(lib).batch_norm(x * x, *stats(lib), training=False) * x, x)


class ScaledSquare(minitorch.autograd.Function):
    """x * x * scale, with ``scale`` a plain array argument (not a Tensor) saved as it is."""

    @staticmethod
    def forward(ctx, x, scale):
        ctx.save_for_backward(x, scale)
        return x * x * scale

    @staticmethod
    def backward(ctx, grad):
        x, scale = ctx.saved_tensors
        return 2 * x * scale * grad, None


def test_an_array_argument_saved_as_it_is_is_a_constant(rng):
    """What lets batch norm's evaluation run twice: its running statistics come into apply as
    arrays; saved as they are, they are constants of the graph (role: their position)."""
    scale = rng.uniform(0.5, 2.0, (3, 4))
    x = minitorch.tensor(normal(rng, (3, 4)), requires_grad=True)
    assert ScaledSquare.apply(x, scale).grad_fn.saved_roles == (0, 1)
    assert minitorch.autograd.gradgradcheck(lambda t: ScaledSquare.apply(t, scale), (x,))
    (g,) = minitorch.autograd.grad(ScaledSquare.apply(x, scale).sum(), x, create_graph=True)
    (gg,) = minitorch.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(gg.numpy(), 2 * scale, rtol=1e-15)


def test_batch_norm_broadcast_and_third_derivatives(rng):
    # the input (4, 3, 2) made by broadcasting (4, 1, 2) * (3, 1); third derivatives against the composition
    def fn(lib, a, c, w):
        if lib is minitorch:
            return F(lib).batch_norm(a * c, None, None, w * w, None, training=True, eps=1e-3) ** 2
        return composed_normalization(a * c, (0, 2), (w * w).reshape(1, 3, 1), 1e-3) ** 2

    check(fn, normal(rng, (4, 1, 2)), normal(rng, (3, 1)), normal(rng, (3,)), order=3)


# ---------------------------------------------------------------------- the fast kernels keep the contract
KERNEL_CASES = {
    "layer_norm": (lambda lib, x, w: F(lib).layer_norm(x, (4,), w) ** 2, [(3, 4), (4,)]),
    "batch_norm": (lambda lib, x, w: F(lib).batch_norm(x, None, None, w, training=True) ** 2, [(4, 3), (3,)]),
    "silu": (lambda lib, x, w: F(lib).silu(x * w), [(3, 4), (4,)]),
    "mish": (lambda lib, x, w: F(lib).mish(x * w), [(3, 4), (4,)]),
}


@pytest.mark.parametrize("case", KERNEL_CASES)
def test_graph_mode_on_a_kernels_node_gives_the_references_derivatives(rng, case):
    fn, shapes = KERNEL_CASES[case]
    arrays = [normal(rng, s) for s in shapes]
    with use_fast_kernels(True):
        fast = derivatives(minitorch, fn, arrays, order=3)
    with use_fast_kernels(False):
        reference = derivatives(minitorch, fn, arrays, order=3)
    for ours, theirs in zip(fast, reference):
        for a, b in zip(ours, theirs):
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


# ---------------------------------------------------------------------- kinks, analytically
@pytest.mark.parametrize(
    "fn, x",
    [
        # at the kink each op takes PyTorch's slope (leaky_relu: the negative slope at 0, hardtanh:
        # 0 at a bound, threshold: 0 at the threshold, elu: alpha at 0), and every higher derivative
        # of the recorded backward is PyTorch's there too
        (lambda lib, t: F(lib).leaky_relu(t, 0.1) * t, [0.0, -1.0, 2.0]),
        (lambda lib, t: F(lib).hardtanh(t, -0.5, 1.0) * t, [-0.5, 1.0, 0.2, -2.0]),
        (lambda lib, t: F(lib).threshold(t, 0.3, -1.0) * t, [0.3, 0.0, 1.0]),
        (lambda lib, t: F(lib).elu(t, 1.3) * t, [0.0, -1.0, 1.0]),
    ],
    ids=["leaky_relu", "hardtanh", "threshold", "elu"],
)
def test_kinks_follow_torch(fn, x):
    compare_with_torch(fn, np.asarray(x), order=3)


def test_softplus_at_its_threshold_keeps_the_smooth_branch_twice():
    """At beta * x == threshold the first derivative is the smooth branch's, sigmoid(beta x), in
    both libraries; MiniTorch's second derivative is that branch's too, beta s (1 - s).
    (PyTorch 2.13 gives 0 there: its double backward masks with a strict inequality.)"""
    x = minitorch.tensor([0.5], dtype=minitorch.float64, requires_grad=True)
    (g,) = minitorch.autograd.grad(F(minitorch).softplus(x, 2.0, 1.0).sum(), x, create_graph=True)
    (gg,) = minitorch.autograd.grad(g.sum(), x)
    s = 1 / (1 + np.exp(-1.0))
    np.testing.assert_allclose(g.detach().numpy(), [s], rtol=1e-14)
    np.testing.assert_allclose(gg.numpy(), [2.0 * s * (1 - s)], rtol=1e-14)
