"""cross_entropy / nll_loss with weight, ignore_index, label_smoothing and probability targets, against PyTorch."""

import itertools

import numpy as np
import pytest

import minitorch
from minitorch import nn
from minitorch.autograd import gradcheck
from minitorch.errors import MiniTorchError, MiniTorchIndexError
from minitorch.nn import functional as F

torch = pytest.importorskip("torch")

C = 4
SHAPES = {"2d": (6, C), "4d": (2, C, 3, 2)}
DTYPES = {"float32": (np.float32, 1e-5), "float64": (np.float64, 1e-10)}


def _target_shape(shape):
    return (shape[0],) + shape[2:]


def _make(shape, dtype, targets, ignore, rng):
    x = rng.standard_normal(shape).astype(dtype)
    if targets == "probs":
        p = rng.random(shape).astype(dtype)
        return x, p / p.sum(axis=1, keepdims=True)
    t = rng.integers(0, C, _target_shape(shape))
    if ignore == "all":
        t[...] = -100
    elif ignore == "some":
        t.reshape(-1)[::3] = -100  # PyTorch's default ignore_index appears in the labels
    elif ignore == "index1":
        t.reshape(-1)[::2] = 1
    return x, t


def _both(x, t, w, dtype):
    mx = minitorch.tensor(x, requires_grad=True)
    tx = torch.tensor(x, requires_grad=True)
    mt, tt = minitorch.tensor(t), torch.tensor(t)
    mw = None if w is None else minitorch.tensor(w.astype(dtype))
    tw = None if w is None else torch.tensor(w.astype(dtype))
    return mx, tx, mt, tt, mw, tw


def _check(mine, theirs, mx, tx, rtol):
    got = mine.data
    want = theirs.detach().numpy()
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol)
    if np.isnan(want).any():
        return
    mine.sum().backward()
    theirs.sum().backward()
    np.testing.assert_allclose(mx.grad.data, tx.grad.numpy(), rtol=rtol, atol=rtol)


CASES = list(
    itertools.product(
        SHAPES, DTYPES, ["none", "sum", "mean"], [False, True], [0.0, 0.3],
        [("index", "no"), ("index", "some"), ("index", "all"), ("index", "index1"), ("probs", "no")],
    )
)


@pytest.mark.parametrize(("shape", "dtype", "reduction", "weighted", "smoothing", "target"), CASES)
def test_cross_entropy_matches_torch(shape, dtype, reduction, weighted, smoothing, target, rng):
    kind, ignore = target
    np_dtype, rtol = DTYPES[dtype]
    x, t = _make(SHAPES[shape], np_dtype, kind, ignore, rng)
    w = rng.random(C) + 0.5 if weighted else None
    mx, tx, mt, tt, mw, tw = _both(x, t, w, np_dtype)
    options = {"reduction": reduction, "label_smoothing": smoothing}
    if ignore == "index1":
        options["ignore_index"] = 1
    mine = F.cross_entropy(mx, mt, mw, **options)
    theirs = torch.nn.functional.cross_entropy(tx, tt, tw, **options)
    _check(mine, theirs, mx, tx, rtol)


@pytest.mark.parametrize(("shape", "dtype", "reduction", "weighted", "ignore"),
                         list(itertools.product(SHAPES, DTYPES, ["none", "sum", "mean"], [False, True],
                                                ["no", "some", "all", "index1"])))
def test_nll_loss_matches_torch(shape, dtype, reduction, weighted, ignore, rng):
    np_dtype, rtol = DTYPES[dtype]
    x, t = _make(SHAPES[shape], np_dtype, "index", ignore, rng)
    w = rng.random(C) + 0.5 if weighted else None
    mx, tx, mt, tt, mw, tw = _both(x, t, w, np_dtype)
    options = {"reduction": reduction, "ignore_index": 1 if ignore == "index1" else -100}
    mine = F.nll_loss(F.log_softmax(mx, 1), mt, mw, **options)
    theirs = torch.nn.functional.nll_loss(torch.log_softmax(tx, 1), tt, tw, **options)
    _check(mine, theirs, mx, tx, rtol)


def test_unbatched_input_with_ignored_and_probability_targets(rng):
    x = rng.standard_normal(C)
    for t in (np.array(2), np.array(-100), rng.random(C)):
        for reduction in ("none", "mean", "sum"):
            mine = F.cross_entropy(minitorch.tensor(x), minitorch.tensor(t), reduction=reduction, label_smoothing=0.2)
            theirs = torch.nn.functional.cross_entropy(
                torch.tensor(x), torch.tensor(t), reduction=reduction, label_smoothing=0.2
            )
            np.testing.assert_allclose(mine.data, theirs.numpy(), rtol=1e-10)


def test_default_path_is_one_fused_node_and_minus_100_is_ignored(rng):
    x = minitorch.tensor(rng.standard_normal((5, C)), requires_grad=True)
    assert type(F.cross_entropy(x, minitorch.tensor([0, 1, 2, 3, 0])).grad_fn).__name__ == "SoftmaxCrossEntropyBackward"
    loss = F.cross_entropy(x, minitorch.tensor([0, -100, 2, -100, 0]))
    assert type(loss.grad_fn).__name__ == "SoftmaxCrossEntropyBackward"
    loss.backward()
    assert (x.grad.data[[1, 3]] == 0).all()
    np.testing.assert_allclose(loss.item(), F.cross_entropy(x[[0, 2, 4]], minitorch.tensor([0, 2, 0])).item())


def test_an_out_of_range_label_that_is_not_ignore_index_still_raises():
    x = minitorch.randn(3, C)
    with pytest.raises(MiniTorchIndexError, match=r"\[0, 3\].*got 7$"):
        F.cross_entropy(x, minitorch.tensor([0, -100, 7]))
    with pytest.raises(MiniTorchIndexError, match="-100"):
        F.cross_entropy(x, minitorch.tensor([0, -100, 1]), ignore_index=1)
    with pytest.raises(MiniTorchIndexError, match="-1"):
        F.nll_loss(x, minitorch.tensor([0, -1, 1]), minitorch.ones(C))


ERRORS = [
    ("weight-length", lambda T, F, x: F.cross_entropy(x, T.tensor([0, 1, 2]), weight=T.ones(3, dtype=T.float64)),
     ["weight", "(3,)", "(4,)"]),
    ("weight-2d", lambda T, F, x: F.nll_loss(x, T.tensor([0, 1, 2]), weight=T.ones(4, 1, dtype=T.float64)),
     ["weight", "(4, 1)"]),
    ("weight-dtype", lambda T, F, x: F.cross_entropy(x, T.tensor([0, 1, 2]), weight=T.ones(4)),
     ["weight", "float32", "float64"]),
    ("smoothing-high", lambda T, F, x: F.cross_entropy(x, T.tensor([0, 1, 2]), label_smoothing=1.5),
     ["label_smoothing", "1.5"]),
    ("probs-shape", lambda T, F, x: F.cross_entropy(x, T.rand(3, 5, dtype=T.float64)), ["(3, 5)"]),
    ("probs-long", lambda T, F, x: F.cross_entropy(x, T.ones(3, 4, dtype=T.int64)), ["floating", "int64"]),
    ("probs-ignore", lambda T, F, x: F.cross_entropy(x, T.rand(3, 4, dtype=T.float64), ignore_index=1),
     ["ignore_index", "probabilit"]),
]


@pytest.mark.parametrize(("name", "call", "words"), ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_where_pytorch_raises(name, call, words):
    with pytest.raises(RuntimeError):
        call(torch, torch.nn.functional, torch.randn(3, 4, dtype=torch.float64))
    with pytest.raises(MiniTorchError) as info:
        call(minitorch, F, minitorch.randn(3, 4, dtype=minitorch.float64))
    for word in words:
        assert word in str(info.value)


def test_keywords_are_pytorchs():
    x, t = minitorch.randn(3, 4), minitorch.tensor([0, 1, 2])
    with pytest.raises(TypeError, match="reduction='sum'"):
        F.cross_entropy(x, t, "sum")
    with pytest.raises(TypeError):
        F.nll_loss(x, t, label_smoothing=0.1)
    with pytest.raises(TypeError, match="Tensor"):
        F.cross_entropy(x, t, weight=[1.0, 2.0, 3.0, 4.0])
    F.cross_entropy(input=x, target=t, weight=None, ignore_index=-100, reduction="sum", label_smoothing=0.0)


GRAD_CASES = [
    ((5, C), {"weight": True, "ignore_index": 2}),
    ((5, C), {"label_smoothing": 0.2, "weight": True}),
    ((2, C, 3), {"label_smoothing": 0.1, "ignore_index": 0}),
    ((2, C, 2, 2), {"weight": True}),
    ((5, C), {"probs": True, "label_smoothing": 0.3, "weight": True}),
    ((2, C, 3), {"probs": True}),
    ((C,), {"probs": True, "label_smoothing": 0.1}),
]


@pytest.mark.parametrize(("shape", "opts"), GRAD_CASES)
@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
def test_gradcheck(shape, opts, reduction, rng):
    opts = dict(opts)
    x = minitorch.tensor(rng.standard_normal(shape), requires_grad=True)
    weight = minitorch.tensor(rng.random(C) + 0.5) if opts.pop("weight", False) else None
    if opts.pop("probs", False):
        p = rng.random(shape)
        target = minitorch.tensor(p / p.sum(axis=1 if len(shape) > 1 else 0, keepdims=True), requires_grad=True)
        assert gradcheck(lambda a, b: F.cross_entropy(a, b, weight, reduction=reduction, **opts), (x, target))
        return
    target = minitorch.tensor(rng.integers(0, C, _target_shape(shape)))
    assert gradcheck(lambda a: F.cross_entropy(a, target, weight, reduction=reduction, **opts), (x,))
    if "label_smoothing" not in opts:
        assert gradcheck(lambda a: F.nll_loss(a, target, weight, reduction=reduction, **opts), (x,))


def test_gradcheck_with_default_ignored_labels(rng):
    x = minitorch.tensor(rng.standard_normal((5, C)), requires_grad=True)
    target = minitorch.tensor([0, -100, 3, -100, 1])
    for reduction in ("none", "sum", "mean"):
        assert gradcheck(lambda a, r=reduction: F.cross_entropy(a, target, reduction=r), (x,))


def test_modules_store_settings_and_weight_buffer_as_pytorch(rng):
    w = rng.random(C).astype(np.float32)
    mine = nn.CrossEntropyLoss(weight=minitorch.tensor(w), ignore_index=1, reduction="sum", label_smoothing=0.1)
    theirs = torch.nn.CrossEntropyLoss(weight=torch.tensor(w), ignore_index=1, reduction="sum", label_smoothing=0.1)
    assert list(mine.state_dict()) == list(theirs.state_dict()) == ["weight"]
    assert list(nn.NLLLoss(minitorch.tensor(w)).state_dict()) == list(torch.nn.NLLLoss(torch.tensor(w)).state_dict())
    assert list(nn.CrossEntropyLoss().state_dict()) == list(torch.nn.CrossEntropyLoss().state_dict()) == []
    assert repr(nn.CrossEntropyLoss()) == "CrossEntropyLoss()"
    assert "ignore_index=1" in repr(mine) and "label_smoothing=0.1" in repr(mine) and "weight" in repr(mine)
    x = rng.standard_normal((6, C)).astype(np.float32)
    t = np.array([0, 1, 2, 3, -100, 1])
    t[4] = 0
    np.testing.assert_allclose(
        mine(minitorch.tensor(x), minitorch.tensor(t)).item(),
        theirs(torch.tensor(x), torch.tensor(t)).item(), rtol=1e-5,
    )
    nll = nn.NLLLoss(minitorch.tensor(w), ignore_index=2, reduction="none")
    np.testing.assert_allclose(
        nll(minitorch.tensor(x), minitorch.tensor(t)).data,
        torch.nn.NLLLoss(torch.tensor(w), ignore_index=2, reduction="none")(torch.tensor(x), torch.tensor(t)).numpy(),
        rtol=1e-6,
    )


@pytest.mark.parametrize("use_weight", [False, True])
@pytest.mark.parametrize("logits,target", [([[0.5, 1.0, -0.3]], [1]), ([0.5, 1.0, -0.3], 1)])
def test_label_smoothing_with_every_target_ignored_gives_nan_loss_and_zero_gradient(logits, target, use_weight):
    # PyTorch: the 'mean' loss is 0/0 = nan, the gradient 0 (nothing counts); it was 0 * inf = nan.
    weight = [1.0, 2.0, 3.0] if use_weight else None
    x = minitorch.tensor(logits, dtype=minitorch.float64, requires_grad=True)
    w = None if weight is None else minitorch.tensor(weight, dtype=minitorch.float64)
    loss = F.cross_entropy(x, minitorch.tensor(target), weight=w, ignore_index=1, label_smoothing=0.2)
    loss.backward()
    xt = torch.tensor(logits, dtype=torch.float64, requires_grad=True)
    wt = None if weight is None else torch.tensor(weight, dtype=torch.float64)
    expected = torch.nn.functional.cross_entropy(
        xt, torch.tensor(target), weight=wt, ignore_index=1, label_smoothing=0.2
    )
    expected.backward()
    assert np.isnan(loss.item()) and np.isnan(expected.item())
    np.testing.assert_array_equal(x.grad.numpy(), xt.grad.numpy())
    assert not np.isnan(x.grad.numpy()).any()
