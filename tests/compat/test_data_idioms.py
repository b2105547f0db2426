"""``p.data += -lr * p.grad`` (Karpathy's lectures), with ``.data`` still the NumPy array.

(Under ``run_as_torch`` a program's ``.data`` is PyTorch's: tests/compat/test_torch_script.py.)

NumPy updates the array in place with the Tensor's values (``minitorch/tensor/numpy_ufuncs.py``);
every other ufunc on a Tensor still defers to the Tensor's operators, as it did with
``__array_ufunc__ = None``. Compared with PyTorch running the same update loop.
"""

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch")


def _descend(lib, update, steps=5, lr=0.1):
    """A few steps of gradient descent on sum((w * x - y)**2) with the given weight update."""
    x = lib.tensor([0.5, -1.0, 2.0])
    y = lib.tensor([1.0, 2.0, -1.0])
    w = lib.tensor([0.1, 0.2, 0.3], requires_grad=True)
    start = w.data
    for _ in range(steps):
        loss = ((w * x - y) ** 2).sum()
        w.grad = None
        loss.backward()
        update(w, lr)
    return w.detach().numpy().copy(), loss.item(), w.data is start or lib is torch


UPDATES = {
    "+= -lr * grad": lambda w, lr: w.data.__iadd__(-lr * w.grad),
    "-= lr * grad": lambda w, lr: w.data.__isub__(lr * w.grad),
    "*= (1 - lr * grad)": lambda w, lr: w.data.__imul__(1 - lr * w.grad),
}


@pytest.mark.parametrize("name", sorted(UPDATES))
def test_updating_data_in_place_with_a_tensor_matches_torch(name):
    mine, theirs = _descend(minitorch, UPDATES[name]), _descend(torch, UPDATES[name])
    np.testing.assert_allclose(mine[0], theirs[0], rtol=1e-6)
    np.testing.assert_allclose(mine[1], theirs[1], rtol=1e-6)
    assert mine[2], "the update must write into the array p.data already is"


def test_the_augmented_assignment_spelling_keeps_the_array_and_records_nothing():
    p = minitorch.nn.Parameter(minitorch.ones(3))
    (p * p).sum().backward()
    array = p.data
    p.data += -0.5 * p.grad
    assert p.data is array and type(p.data) is np.ndarray
    assert p.tolist() == [0.0, 0.0, 0.0] and p.grad_fn is None and p.is_leaf
    p.data -= p.grad
    assert p.tolist() == [-2.0, -2.0, -2.0]


def test_numpy_operators_with_a_tensor_still_give_tensors_in_the_graph():
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    a = np.array([3.0, 4.0], dtype=np.float32)
    for result in (a * x, a + x, a - x, a / x, np.float32(2.0) * x, a @ x, np.add(x, a)):
        assert isinstance(result, minitorch.Tensor) and result.grad_fn is not None
    assert (a - x).tolist() == [2.0, 2.0] and (a / x).tolist() == [3.0, 2.0]
    assert (a > x).tolist() == [True, True] and (a <= x).tolist() == [False, False]
    (a * x).sum().backward()
    assert x.grad.tolist() == [3.0, 4.0]


def test_ufuncs_without_a_tensor_operator_are_refused():
    with pytest.raises(TypeError):
        np.exp(minitorch.ones(2))
    with pytest.raises(TypeError):
        np.add(np.ones(2), minitorch.ones(2), out=minitorch.ones(2))
