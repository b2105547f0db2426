"""``autograd.grad`` and ``autograd.backward`` against PyTorch: the same gradients; ``grad`` leaves ``.grad`` alone."""

import numpy as np
import pytest

import minitorch
from minitorch.errors import MiniTorchError

torch = pytest.importorskip("torch")


def scenario(lib):
    """Gradients of leaves and of an intermediate tensor, several outputs, unused inputs, then backward."""
    x = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64, requires_grad=True)
    w = lib.tensor([[0.5, -1.0], [2.0, 0.0], [1.0, 1.0]], dtype=lib.float64, requires_grad=True)
    h = (x @ w).tanh()
    loss = (h * h).sum() + x.sum()
    gx, gw, gh = lib.autograd.grad(loss, [x, w, h], retain_graph=True)
    untouched = x.grad is None and w.grad is None
    (weighted,) = lib.autograd.grad(
        [loss, h], x, grad_outputs=[lib.tensor(2.0, dtype=lib.float64), lib.ones(2, dtype=lib.float64)],
        retain_graph=True,
    )
    unused = lib.tensor([1.0], requires_grad=True)
    none = lib.autograd.grad(loss, [x, unused], allow_unused=True, retain_graph=True)[1]
    zeros = lib.autograd.grad(loss, [unused], materialize_grads=True, retain_graph=True)[0]
    lib.autograd.backward([loss], [lib.tensor(3.0, dtype=lib.float64)])
    arrays = [t.numpy() for t in (gx, gw, gh, weighted, zeros, x.grad, w.grad)]
    return arrays, untouched, none is None


def test_grad_and_backward_match_torch():
    ours, untouched, none = scenario(minitorch)
    theirs, t_untouched, t_none = scenario(torch)
    assert untouched and t_untouched and none and t_none
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-14)  # tanh near saturation: last bits


def test_grad_of_a_broadcast_leaf_and_of_a_leaf_used_twice():
    a = minitorch.tensor([[1.0], [2.0]], requires_grad=True)
    b = minitorch.tensor([3.0, 4.0, 5.0], requires_grad=True)
    out = (a * b + a * a).sum()
    ga, gb = minitorch.autograd.grad(out, [a, b])
    # a * a (2, 1) is broadcast over b's 3 columns by the sum: d/da = sum(b) + 3 * 2a
    np.testing.assert_allclose(ga.numpy(), [[12.0 + 6.0], [12.0 + 12.0]])
    np.testing.assert_allclose(gb.numpy(), [3.0, 3.0, 3.0])
    assert ga.requires_grad is False and ga.grad_fn is None


def test_grad_refuses_what_torch_refuses():
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(MiniTorchError, match="not have been used"):
        minitorch.autograd.grad((x * 2).sum(), [minitorch.tensor([1.0], requires_grad=True)])
    with pytest.raises(MiniTorchError, match="only for scalar outputs"):
        minitorch.autograd.grad(x * 2, [x])
    with pytest.raises(MiniTorchError, match="does not require grad"):
        minitorch.autograd.grad(minitorch.ones(2).sum(), [x])
    y = (x * x).sum()
    minitorch.autograd.grad(y, [x])
    with pytest.raises(RuntimeError, match="second time"):  # the graph was freed, as by backward()
        minitorch.autograd.grad(y, [x])


def test_grad_takes_any_iterable_of_tensors_as_torch_does():
    """``autograd.grad(loss, model.parameters())``: a generator of inputs (of outputs, grad_outputs) is read once."""
    results = []
    for lib in (minitorch, torch):
        lib.manual_seed(0)
        layer = lib.nn.Linear(3, 2).double()
        x = lib.tensor(np.arange(6.0).reshape(2, 3), dtype=lib.float64)
        out = layer(x)
        grads = lib.autograd.grad((o for o in [out]), layer.parameters(), (g for g in [lib.ones_like(out)]),
                                  retain_graph=True)
        results.append([g.numpy() for g in grads])
        lib.autograd.backward(iter([out.sum()]))
        np.testing.assert_allclose(layer.weight.grad.numpy(), grads[0].numpy())
    for mine, theirs in zip(*results):
        np.testing.assert_allclose(mine, theirs, rtol=1e-12)
    layer = minitorch.nn.Linear(3, 2)
    with pytest.raises(TypeError, match="sequence of Tensors, got ndarray"):  # an array is not a list of tensors
        minitorch.autograd.grad(layer(minitorch.ones(1, 3)).sum(), layer.parameters(), np.ones(()))
