"""The layers hold at run time: the ops and the engine never call the ``Tensor`` face's methods.

``test_architecture.py`` reads the imports; this file runs code. Every tensor an op returns is
a ``Tensor``, so an op *could* call ``x.reshape(...)`` or ``a * b`` on its inputs and work while
importing only ``TensorBase``. Two checks say it does not:

- ``watching_face_methods`` (``face_guard.py``) wraps every attribute the face adds to
  ``TensorBase`` and notes each call made from ``minitorch.functions``, ``minitorch.autograd``
  and the rest of the layers below the face; the ops below run forward and backward under it.
- A bare face: ``TensorBase._face`` set to a class with no methods at all, so an op that
  reached for one would fail; a few ops run forward and backward on its tensors.
"""

import numpy as np
import pytest
from face_guard import face_only_names, watching_face_methods

import minitorch
import minitorch.nn.functional as F
from minitorch.autograd import engine
from minitorch.functions import activations, arithmetic, linalg, reductions, shape, unary
from minitorch.tensor_base import TensorBase


def leaf(rng, *shape, dtype=np.float64):
    return minitorch.tensor(rng.standard_normal(shape).astype(dtype), requires_grad=True)


def ints(*values):
    return minitorch.tensor(np.array(values, dtype=np.int64))


# name -> f(rng) returning the output of one op call (a tensor, or a tuple whose first item is one)
CASES = {
    "binary ops, broadcast": lambda r: (leaf(r, 3, 1) * leaf(r, 1, 4) - leaf(r, 4)) / (leaf(r, 3, 4) ** 2 + 1),
    "unary ops": lambda r: minitorch.tanh(minitorch.exp(leaf(r, 3)).log1p()).abs().sigmoid().relu(),
    "sum with a dtype": lambda r: minitorch.sum(leaf(r, 3, 2, dtype=np.float32), 0, dtype=minitorch.float64),
    "sum of bools": lambda r: minitorch.sum(minitorch.tensor([True, False, True])),
    "cumsum of ints, cumprod with a dtype": lambda r: minitorch.cumsum(ints(1, 2, 3), 0).float()
    + minitorch.cumprod(leaf(r, 3), 0, dtype=minitorch.float64),
    "sort and cumsum of a 0-d tensor, topk": lambda r: minitorch.sort(leaf(r), 0)[0]
    + minitorch.topk(leaf(r, 4), 2)[0].sum() + minitorch.cumsum(leaf(r), 0),
    "roll of an empty tensor": lambda r: minitorch.roll(minitorch.zeros(0, 3, requires_grad=True), 1, 0),
    "gather, scatter, index_select of 0-d tensors": lambda r: minitorch.gather(leaf(r), 0, ints(0).reshape(()))
    + minitorch.scatter(leaf(r), 0, ints(0).reshape(()), leaf(r)) + minitorch.index_select(leaf(r), 0, ints(0)),
    "cat promotes": lambda r: minitorch.cat([leaf(r, 2, dtype=np.float32), leaf(r, 3)]),
    "matmul, addmm with alpha and beta": lambda r: minitorch.addmm(
        leaf(r, 2, 4), leaf(r, 2, 3), leaf(r, 3, 4), beta=0.5, alpha=2.0
    ) + leaf(r, 5, 2).T @ leaf(r, 5, 4),
    "norm p=1 and with a dtype": lambda r: minitorch.norm(leaf(r, 3, 4), 1)
    + minitorch.norm(leaf(r, 3, dtype=np.float32), 2, dtype=minitorch.float64),
    "trace, repeat_interleave by a tensor": lambda r: minitorch.trace(leaf(r, 3, 3))
    + minitorch.repeat_interleave(leaf(r, 2), ints(1, 2)).sum(),
    "comparison functions": lambda r: (minitorch.eq(leaf(r, 3), 0).float() + minitorch.lt(leaf(r, 3), 0).float()
                                       + minitorch.ge(leaf(r, 3), leaf(r, 3)).float()) * leaf(r, 3),
    "rounding of ints": lambda r: minitorch.round(ints(1, 2)).float()
    + minitorch.floor(ints(3, 4)).float() * leaf(r, 2),
    "masked_fill with a tensor value": lambda r: minitorch.masked_fill(
        leaf(r, 2, 3), minitorch.tensor([[True, False, True]]), leaf(r).reshape(())
    ),
    "clamp with tensor bounds": lambda r: minitorch.clamp(leaf(r, 3), leaf(r, 3) - 2, leaf(r, 3) + 2),
    "cross_entropy with label smoothing and weights": lambda r: F.cross_entropy(
        leaf(r, 4, 3), ints(0, 2, 1, 2), weight=minitorch.tensor([1.0, 2.0, 0.5], dtype=minitorch.float64),
        label_smoothing=0.1,
    ),
    "cross_entropy over (N, C, d) with label smoothing": lambda r: F.cross_entropy(
        leaf(r, 2, 3, 4), minitorch.tensor(np.array([[0, 1, 2, 1], [2, 2, 0, 1]])), label_smoothing=0.2
    ),
    "cross_entropy with probability targets": lambda r: F.cross_entropy(
        leaf(r, 4, 3), minitorch.softmax(leaf(r, 4, 3), 1).detach(), label_smoothing=0.1,
        weight=minitorch.tensor([1.0, 2.0, 0.5], dtype=minitorch.float64),
    ),
    "nll_loss of one sample and of (N, C, d)": lambda r: F.nll_loss(leaf(r, 3), ints(1).reshape(()))
    + F.nll_loss(leaf(r, 2, 3, 2), minitorch.tensor(np.array([[0, 2], [1, 1]])), reduction="sum"),
    "mse, l1 and huber with weights": lambda r: F.mse_loss(leaf(r, 3), leaf(r, 3))
    + F.l1_loss(leaf(r, 3), leaf(r, 3), weight=leaf(r, 3)) + F.l1_loss(leaf(r, 3), leaf(r, 3), reduction="sum")
    + F.huber_loss(leaf(r, 3), leaf(r, 3), weight=leaf(r, 3)) + F.smooth_l1_loss(leaf(r, 3), leaf(r, 3)),
    "binary cross-entropy with logits": lambda r: F.binary_cross_entropy_with_logits(
        leaf(r, 4), minitorch.tensor([0.0, 1.0, 1.0, 0.0], dtype=minitorch.float64)
    ),
    "attention with a bool mask and dropout": lambda r: F.scaled_dot_product_attention(
        leaf(r, 2, 3, 4), leaf(r, 2, 3, 4), leaf(r, 2, 3, 4),
        attn_mask=minitorch.tensor(np.tril(np.ones((3, 3), bool))), dropout_p=0.5,
    ),
    "attention with a float mask and dropout": lambda r: F.scaled_dot_product_attention(
        leaf(r, 2, 3, 4), leaf(r, 2, 3, 4), leaf(r, 2, 3, 4), attn_mask=leaf(r, 3, 3), dropout_p=0.3
    ),
    "attention without dropout": lambda r: F.scaled_dot_product_attention(
        leaf(r, 2, 3, 4), leaf(r, 2, 3, 4), leaf(r, 2, 3, 4), is_causal=True
    ),
    "batch_norm with weight and bias": lambda r: F.batch_norm(
        leaf(r, 4, 3, 2), None, None, leaf(r, 3), leaf(r, 3), training=True
    ),
    "layer_norm, group of activations": lambda r: F.gelu(F.layer_norm(leaf(r, 2, 5), (5,), leaf(r, 5), leaf(r, 5)))
    + F.log_softmax(leaf(r, 2, 5), 1) + F.softmax(leaf(r, 2, 5), 0) + F.silu(leaf(r, 2, 5)),
    "dropout p=1 and p=0.5": lambda r: F.dropout(leaf(r, 3), 1.0) + F.dropout(leaf(r, 3), 0.5),
    "conv2d, pooling": lambda r: F.max_pool2d(F.conv2d(leaf(r, 1, 2, 5, 5), leaf(r, 3, 2, 3, 3), leaf(r, 3)), 2)
    .sum() + F.avg_pool2d(leaf(r, 1, 1, 4, 4), 2).sum(),
    "embedding, linear": lambda r: F.linear(F.embedding(ints(0, 2), leaf(r, 3, 4)), leaf(r, 2, 4), leaf(r, 2)),
    "shape ops": lambda r: leaf(r, 2, 3).reshape(3, 2).permute(1, 0).unsqueeze(0).squeeze(0).expand(2, 2, 3)
    .flatten()[1:4],
    "stack, split, where": lambda r: minitorch.where(
        leaf(r, 3) > 0, minitorch.stack(minitorch.split(leaf(r, 6), 3)).sum(0), leaf(r, 3)
    ),
}


def _first(out):
    return out[0] if isinstance(out, tuple) else out


@pytest.mark.parametrize("name", sorted(CASES))
def test_ops_call_no_face_method_forward_or_backward(name):
    rng = np.random.default_rng(0)
    with watching_face_methods() as calls:
        out = _first(CASES[name](rng))
        assert isinstance(out, TensorBase)
        if out.requires_grad:
            out.sum().backward()  # the test's own face calls are not counted: only those from below
    assert not calls, f"{name}: the layers below the face called its methods: {dict(calls)}"


def test_autograd_grad_and_gradcheck_call_no_face_method():
    rng = np.random.default_rng(1)
    with watching_face_methods() as calls:
        x = leaf(rng, 3)
        (g,) = minitorch.autograd.grad((x * x).sum(), x, create_graph=True)
        g.sum().backward()
        assert minitorch.autograd.gradcheck(lambda a: (a * a).sum(), (leaf(rng, 3),))
    assert not calls, dict(calls)


def test_the_watcher_sees_a_face_method_called_from_below():
    # The watcher itself: a call from a module named like an op module is noted.
    scope = {"__name__": "minitorch.functions.made_up"}
    exec("def op(x):\n    return x.reshape(-1) * 2\n", scope)
    with watching_face_methods() as calls:
        scope["op"](minitorch.ones(2, 2))
    assert {name for (_, name) in calls} == {"reshape", "__mul__"}
    assert "reshape" in face_only_names() and "data" not in face_only_names()


class Bare(TensorBase):
    """A face with no methods: TensorBase's state and nothing more."""

    __slots__ = ()


def _a_small_model(make):
    """A few ops forward and backward on tensors made by ``make``, through the functions only."""
    rng = np.random.default_rng(2)
    a, b, w, x = (make(rng.standard_normal(shape)) for shape in ((3, 4), (4,), (2, 4), (3, 4)))
    h = arithmetic.mul(arithmetic.add(a, b), 2.0)
    h = activations.softmax(unary.tanh(linalg.matmul(h, shape.transpose(w, 0, 1))), 1)
    loss = F.cross_entropy(h, TensorBase._from_data(np.array([0, 1, 1])), label_smoothing=0.1)
    loss = arithmetic.add(loss, reductions.mean(F.mse_loss(x, a)))
    engine.tensor_backward(loss)
    return loss, [t.grad for t in (a, b, w, x)]


def test_ops_run_forward_and_backward_on_a_bare_face():
    face = TensorBase._face
    TensorBase._face = Bare  # what every op and factory now makes
    try:
        loss, grads = _a_small_model(lambda v: TensorBase._from_data(v, requires_grad=True))
    finally:
        TensorBase._face = face
    assert type(loss) is Bare and not hasattr(loss, "reshape")
    assert all(type(g) is Bare for g in grads)
    expected_loss, expected = _a_small_model(lambda v: minitorch.tensor(v, requires_grad=True))
    assert loss.item() == expected_loss.item()
    for g, e in zip(grads, expected):
        np.testing.assert_array_equal(g.data, e.data)  # the same calls on the same arrays


def test_factories_call_no_face_method():
    with watching_face_methods() as calls:
        t = minitorch.tensor([minitorch.ones(1), minitorch.tensor([[2.0]]), 3.0])
    assert t.tolist() == [1.0, 2.0, 3.0]
    assert not calls, dict(calls)
