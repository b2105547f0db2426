"""BCE, BCE with logits, L1, smooth L1 and Huber: float64 gradchecks, PyTorch as the oracle, errors."""

import numpy as np
import pytest

import minitorch
import minitorch.nn.functional as F
from minitorch import nn
from minitorch.autograd import gradcheck
from minitorch.errors import MiniTorchError

REDUCTIONS = ["mean", "sum", "none"]


def _probs(rng, *shape):
    return rng.uniform(0.05, 0.95, shape)


def _inputs(rng, name, shape=(4, 3)):
    """(input, target) arrays suited to the loss: probabilities for BCE, logits otherwise."""
    if name == "binary_cross_entropy":
        return _probs(rng, *shape), _probs(rng, *shape)
    if name == "binary_cross_entropy_with_logits":
        return 3 * rng.standard_normal(shape), _probs(rng, *shape)
    # regression: keep |input - target| away from the kinks at 0 and at beta/delta
    x = rng.standard_normal(shape) * 2
    return x, x + rng.choice([-1, 1], shape) * rng.uniform(0.1, 0.4, shape) * rng.choice([1, 8], shape)


LOSSES = [
    ("binary_cross_entropy", {}),
    ("binary_cross_entropy_with_logits", {}),
    ("l1_loss", {}),
    ("smooth_l1_loss", {}),
    ("smooth_l1_loss", {"beta": 0.5}),
    ("smooth_l1_loss", {"beta": 0.0}),
    ("huber_loss", {}),
    ("huber_loss", {"delta": 2.5}),
]


# ---------------------------------------------------------------------- gradchecks
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name,kwargs", LOSSES, ids=str)
def test_gradcheck_input_and_target(rng, name, kwargs, reduction):
    x, t = _inputs(rng, name)
    fn = getattr(F, name)
    xs = (minitorch.tensor(x, requires_grad=True), minitorch.tensor(t, requires_grad=True))
    assert gradcheck(lambda a, b: fn(a, b, reduction=reduction, **kwargs), xs)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_gradcheck_weights(rng, reduction):
    x, t = _inputs(rng, "binary_cross_entropy_with_logits")
    w, pw = minitorch.tensor(rng.uniform(0.5, 2, 3)), minitorch.tensor(rng.uniform(0.5, 3, 3))
    xs = (minitorch.tensor(x, requires_grad=True), minitorch.tensor(t, requires_grad=True))
    assert gradcheck(lambda a, b: F.binary_cross_entropy_with_logits(a, b, w, reduction, pw), xs)
    p, q = _inputs(rng, "binary_cross_entropy")
    xs = (minitorch.tensor(p, requires_grad=True), minitorch.tensor(q, requires_grad=True))
    assert gradcheck(lambda a, b: F.binary_cross_entropy(a, b, w, reduction), xs)


# ---------------------------------------------------------------------- PyTorch as the oracle
def _compare(torch, mt_fn, th_fn, arrays, grads=True, rtol=1e-10, atol=1e-12):
    """Same values, same gradients of input and target, same shape and dtype."""
    mt_in = [minitorch.tensor(a, requires_grad=grads) for a in arrays]
    th_in = [torch.tensor(a, requires_grad=grads) for a in arrays]
    mt_out, th_out = mt_fn(*mt_in), th_fn(*th_in)
    assert mt_out.shape == tuple(th_out.shape)
    assert str(mt_out.dtype).split(".")[-1] == str(th_out.dtype).split(".")[-1]
    np.testing.assert_allclose(mt_out.data, th_out.detach().numpy(), rtol=rtol, atol=atol)
    if not grads:
        return
    seed = np.random.default_rng(1).standard_normal(mt_out.shape)
    mt_out.backward(minitorch.tensor(seed))
    th_out.backward(torch.tensor(seed))
    for m, t in zip(mt_in, th_in):
        np.testing.assert_allclose(m.grad.data, t.grad.numpy(), rtol=rtol, atol=atol)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name,kwargs", LOSSES, ids=str)
@pytest.mark.parametrize("shape", [(4, 3), (), (2, 3, 2)], ids=str)
def test_matches_torch(rng, name, kwargs, reduction, shape):
    torch = pytest.importorskip("torch")
    x, t = _inputs(rng, name, shape)
    _compare(
        torch,
        lambda a, b: getattr(F, name)(a, b, reduction=reduction, **kwargs),
        lambda a, b: getattr(torch.nn.functional, name)(a, b, reduction=reduction, **kwargs),
        [np.asarray(x), np.asarray(t)],
    )


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("wshape,pwshape", [((3,), (3,)), ((4, 3), None), (None, (3,)), ((4, 1), (1,))], ids=str)
def test_weights_match_torch(rng, reduction, wshape, pwshape):
    torch = pytest.importorskip("torch")
    w = None if wshape is None else rng.uniform(0.5, 2, wshape)
    pw = None if pwshape is None else rng.uniform(0.5, 3, pwshape)

    def call(lib, fn, *args, **kw):
        wt = None if w is None else lib.tensor(w)
        pwt = None if pw is None else lib.tensor(pw)
        return fn(*args, weight=wt, reduction=reduction, **({"pos_weight": pwt} if kw else {}))

    x, t = _inputs(rng, "binary_cross_entropy_with_logits")
    _compare(torch, lambda a, b: call(minitorch, F.binary_cross_entropy_with_logits, a, b, pw=1),
             lambda a, b: call(torch, torch.nn.functional.binary_cross_entropy_with_logits, a, b, pw=1), [x, t])
    p, q = _inputs(rng, "binary_cross_entropy")
    _compare(torch, lambda a, b: call(minitorch, F.binary_cross_entropy, a, b),
             lambda a, b: call(torch, torch.nn.functional.binary_cross_entropy, a, b), [p, q])


def test_extremes_match_torch():
    """BCE clamps its logs at -100; BCE with logits is finite for huge logits; binary targets."""
    torch = pytest.importorskip("torch")
    p = np.array([0.0, 1.0, 1.0, 0.0, 0.5, 1e-30])
    t = np.array([1.0, 0.0, 1.0, 0.0, 1.0, 0.0])
    for reduction in REDUCTIONS:
        _compare(torch, lambda a, b, r=reduction: F.binary_cross_entropy(a, b, reduction=r),
                 lambda a, b, r=reduction: torch.nn.functional.binary_cross_entropy(a, b, reduction=r), [p, t])
    x = np.array([-1000.0, 1000.0, 0.0, 800.0, -800.0, 40.0])
    for reduction in REDUCTIONS:
        _compare(torch, lambda a, b, r=reduction: F.binary_cross_entropy_with_logits(a, b, reduction=r),
                 lambda a, b, r=reduction: torch.nn.functional.binary_cross_entropy_with_logits(a, b, reduction=r),
                 [x, t])
    out = F.binary_cross_entropy_with_logits(minitorch.tensor(x, requires_grad=True), minitorch.tensor(t))
    assert np.isfinite(out.item())


@pytest.mark.filterwarnings("ignore:Mean of empty slice")
def test_empty_input_gives_nan_as_torch():
    for name, _ in LOSSES:
        out = getattr(F, name)(minitorch.zeros(0, 3), minitorch.zeros(0, 3))
        assert np.isnan(out.item()), name
        assert getattr(F, name)(minitorch.zeros(0, 3), minitorch.zeros(0, 3), reduction="sum").item() == 0


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_float32_and_float64_keep_their_dtype(rng, dtype):
    torch = pytest.importorskip("torch")
    for name, kwargs in LOSSES:
        x, t = (a.astype(dtype) for a in _inputs(rng, name))
        _compare(torch, lambda a, b, n=name, kw=kwargs: getattr(F, n)(a, b, **kw),
                 lambda a, b, n=name, kw=kwargs: getattr(torch.nn.functional, n)(a, b, **kw), [x, t],
                 rtol=2e-6, atol=1e-7)


def test_mixed_dtypes_promote_as_torch(rng):
    """float32 logits with float64 targets give float64, as PyTorch (BCE itself refuses, as PyTorch)."""
    torch = pytest.importorskip("torch")
    x, t = rng.standard_normal(4).astype(np.float32), _probs(rng, 4)
    for name in ["binary_cross_entropy_with_logits", "l1_loss", "smooth_l1_loss"]:
        _compare(torch, getattr(F, name), getattr(torch.nn.functional, name), [x, t], rtol=1e-6)
    # PyTorch's huber_loss returns the input's dtype here (and bce_with_logits the target's
    # when the input is float64): MiniTorch promotes the pair in every loss (DIFFERENCES page).
    assert F.huber_loss(minitorch.tensor(x), minitorch.tensor(t)).dtype == minitorch.float64
    # an integer target for a regression loss is promoted too
    mt = F.l1_loss(minitorch.tensor(x), minitorch.tensor([1, 0, 1, 0]))
    th = torch.nn.functional.l1_loss(torch.tensor(x), torch.tensor([1, 0, 1, 0]))
    assert mt.item() == pytest.approx(th.item(), rel=1e-6) and mt.dtype == minitorch.float32


# ---------------------------------------------------------------------- modules
def _modules(lib, w, pw):
    return [
        (lib.nn.BCELoss(), "p"), (lib.nn.BCELoss(weight=w, reduction="sum"), "p"),
        (lib.nn.BCEWithLogitsLoss(), "x"), (lib.nn.BCEWithLogitsLoss(weight=w, pos_weight=pw, reduction="none"), "x"),
        (lib.nn.L1Loss(), "x"), (lib.nn.L1Loss(reduction="sum"), "x"),
        (lib.nn.SmoothL1Loss(), "x"), (lib.nn.SmoothL1Loss(beta=0.3, reduction="none"), "x"),
        (lib.nn.HuberLoss(), "x"), (lib.nn.HuberLoss(delta=0.4, reduction="sum"), "x"),
    ]


def test_modules_match_torch(rng):
    torch = pytest.importorskip("torch")
    w, pw = rng.uniform(0.5, 2, 3), rng.uniform(0.5, 2, 3)
    p, t = _probs(rng, 5, 3), _probs(rng, 5, 3)
    x = 2 * rng.standard_normal((5, 3))
    mt_mods = _modules(minitorch, minitorch.tensor(w), minitorch.tensor(pw))
    th_mods = _modules(torch, torch.tensor(w), torch.tensor(pw))
    for (mt, kind), (th, _) in zip(mt_mods, th_mods):
        inp = p if kind == "p" else x
        _compare(torch, mt, th, [inp, t])
        assert repr(mt) == repr(th)
        assert sorted(mt.state_dict()) == sorted(th.state_dict())


def test_module_buffers_move_with_the_module():
    loss = nn.BCEWithLogitsLoss(pos_weight=minitorch.ones(3))
    assert list(loss.state_dict()) == ["pos_weight"]
    assert loss.double().pos_weight.dtype == minitorch.float64


def test_graph_is_one_node_per_loss(rng):
    x = minitorch.tensor(rng.standard_normal(3), requires_grad=True)
    t = minitorch.tensor(_probs(rng, 3))
    assert type(F.binary_cross_entropy_with_logits(x, t).grad_fn).__name__ == "BinaryCrossEntropyWithLogitsBackward"
    assert type(F.huber_loss(x, t).grad_fn).__name__ == "HuberLossBackward"
    assert type(F.smooth_l1_loss(x, t).grad_fn).__name__ == "SmoothL1LossBackward"


# ---------------------------------------------------------------------- errors, as PyTorch
def _raises_like_torch(torch, call, mt_type, words):
    """MiniTorch raises ``mt_type`` with ``words``; PyTorch raises the same kind of error."""
    with pytest.raises(mt_type) as mt_err:
        call(minitorch)
    msg = str(mt_err.value)
    assert all(w in msg for w in words), msg
    if torch is not None:
        with pytest.raises(Exception) as th_err:
            call(torch)
        # the same kind of error: PyTorch's NotImplementedError for integer inputs is a RuntimeError
        kind = next(k for k in (ValueError, TypeError, IndexError, RuntimeError) if isinstance(th_err.value, k))
        assert isinstance(mt_err.value, kind), (type(mt_err.value), type(th_err.value))


BAD_CALLS = [
    ("bce-shape", lambda lib: lib.nn.functional.binary_cross_entropy(lib.rand(3, 1), lib.rand(3)),
     ValueError, ["(3,)", "(3, 1)", "squeeze"]),
    ("bcel-shape", lambda lib: lib.nn.functional.binary_cross_entropy_with_logits(lib.rand(3), lib.rand(2)),
     ValueError, ["(2,)", "(3,)"]),
    ("bce-range", lambda lib: lib.nn.functional.binary_cross_entropy(lib.rand(3) + 1, lib.rand(3)),
     MiniTorchError, ["between 0 and 1", "with_logits"]),
    ("bce-long-target", lambda lib: lib.nn.functional.binary_cross_entropy(lib.rand(3), lib.ones(3).long()),
     MiniTorchError, ["floating-point", ".float()"]),
    ("bcel-long-target",
     lambda lib: lib.nn.functional.binary_cross_entropy_with_logits(lib.rand(3), lib.ones(3).long()),
     MiniTorchError, ["floating-point", ".float()"]),
    ("bce-dtypes", lambda lib: lib.nn.functional.binary_cross_entropy(lib.rand(3), lib.rand(3).double()),
     MiniTorchError, ["float32", "float64", "target.to"]),
    ("bce-reduction", lambda lib: lib.nn.functional.binary_cross_entropy(lib.rand(3), lib.rand(3), reduction="avg"),
     ValueError, ["'avg'", "reduction"]),
    ("l1-reduction", lambda lib: lib.nn.functional.l1_loss(lib.rand(3), lib.rand(3), reduction="avg"),
     ValueError, ["'avg'"]),
    ("bce-weight-shape",
     lambda lib: lib.nn.functional.binary_cross_entropy(lib.rand(3, 2), lib.rand(3, 2), weight=lib.ones(3)),
     MiniTorchError, ["weight", "(3,)"]),
    ("bcel-pos-weight-shape",
     lambda lib: lib.nn.functional.binary_cross_entropy_with_logits(lib.rand(3, 2), lib.rand(3, 2),
                                                                      pos_weight=lib.ones(3)),
     MiniTorchError, ["pos_weight", "(3,)"]),
    ("bcel-weight-grad",
     lambda lib: lib.nn.functional.binary_cross_entropy_with_logits(
         lib.rand(3), lib.rand(3), weight=lib.ones(3, requires_grad=True)),
     MiniTorchError, ["not differentiable", "'weight'"]),
    ("smooth-l1-negative-beta", lambda lib: lib.nn.functional.smooth_l1_loss(lib.rand(3), lib.rand(3), beta=-1.0),
     MiniTorchError, ["negative", "beta"]),
    ("huber-zero-delta", lambda lib: lib.nn.functional.huber_loss(lib.rand(3), lib.rand(3), delta=0.0),
     MiniTorchError, ["non-positive", "delta"]),
    ("huber-int", lambda lib: lib.nn.functional.huber_loss(lib.ones(3).long(), lib.ones(3).long()),
     MiniTorchError, ["floating-point"]),
    ("bce-int", lambda lib: lib.nn.functional.binary_cross_entropy(lib.ones(3).long(), lib.ones(3).long()),
     MiniTorchError, ["floating-point"]),
]


@pytest.mark.parametrize("case", BAD_CALLS, ids=lambda c: c[0])
def test_bad_calls_raise_as_torch(case):
    try:
        import torch
    except ImportError:
        torch = None
    _, call, mt_type, words = case
    _raises_like_torch(torch, call, mt_type, words)


@pytest.mark.parametrize("name", ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("shapes", [((4, 1), (4,)), ((2, 3), (3,)), ((3,), (1,)), ((), (2,)), ((2, 2), (1, 1, 2))])
def test_regression_losses_broadcast_another_target_shape_with_a_warning_as_torch(name, reduction, shapes):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(shapes[0]), rng.standard_normal(shapes[1])
    x, y = minitorch.tensor(a, requires_grad=True), minitorch.tensor(b, requires_grad=True)
    xt, yt = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    with pytest.warns(UserWarning, match="different to the input size") as caught:
        loss = getattr(F, name)(x, y, reduction=reduction)
    assert caught[0].filename == __file__  # the warning points at the caller's line
    with pytest.warns(UserWarning):
        expected = getattr(torch.nn.functional, name)(xt, yt, reduction=reduction)
    loss.sum().backward()
    expected.sum().backward()
    np.testing.assert_allclose(loss.detach().numpy(), expected.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(y.grad.numpy(), yt.grad.numpy(), rtol=1e-12)


def test_regression_losses_name_the_fix_and_refuse_shapes_that_do_not_broadcast():
    for fn in (F.mse_loss, F.l1_loss, F.smooth_l1_loss, F.huber_loss):
        with pytest.warns(UserWarning, match=r"squeeze\(1\)"):
            fn(minitorch.rand(4, 1), minitorch.rand(4))
        with pytest.warns(UserWarning), pytest.raises(RuntimeError, match=r"\(4, 2\) and \(4,\) cannot be broadcast"):
            fn(minitorch.rand(4, 2), minitorch.rand(4))
    with pytest.raises(TypeError, match="must be a Tensor"):
        F.l1_loss(np.ones(3), minitorch.ones(3))
