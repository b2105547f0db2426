"""The pre-0.4 spellings older tutorials use: Variable, FloatTensor/LongTensor, ``Tensor(2, 3)``, ``Tensor([0])``.

Compared with PyTorch 2.13: the same dtype, shape, values and sharing, or the same error type.
"""

import numpy as np
import pytest

import minitorch
from minitorch.autograd import Variable

torch = pytest.importorskip("torch")


def _same(mine, theirs):
    assert str(mine.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    assert tuple(mine.shape) == tuple(theirs.shape)
    np.testing.assert_array_equal(mine.numpy(), theirs.numpy())


@pytest.mark.parametrize("args", [(1, 5), (2, 3, 4), (0,), ()], ids=str)
def test_tensor_of_ints_is_a_shape(args):
    mine, theirs = minitorch.Tensor(*args), torch.Tensor(*args)
    assert tuple(mine.shape) == tuple(theirs.shape) and mine.dtype == minitorch.float32


@pytest.mark.parametrize("data", [[0], [1, 2, 3], [[1, 2], [3, 4]], [True, False], (2, 3), [1.5, 2]], ids=str)
def test_tensor_of_python_numbers_is_float32(data):
    _same(minitorch.Tensor(data), torch.Tensor(data))


def test_tensor_of_a_size_is_that_shape():
    assert tuple(minitorch.Tensor(minitorch.zeros(2, 3).size()).shape) == tuple(torch.Tensor(torch.Size([2, 3])).shape)


@pytest.mark.parametrize("bad,error", [((-1,), RuntimeError), (("a",), TypeError), ((2.5,), TypeError)], ids=str)
def test_tensor_refuses_what_torch_refuses(bad, error):
    with pytest.raises(error):
        torch.Tensor(*bad)
    with pytest.raises(error):
        minitorch.Tensor(*bad)


@pytest.mark.parametrize("name", ["FloatTensor", "LongTensor", "DoubleTensor", "BoolTensor"])
@pytest.mark.parametrize("data", [[1.5, -2.0, 0.0], [[1, 0], [2, 3]]], ids=str)
def test_typed_tensors_build_their_dtype(name, data):
    _same(getattr(minitorch, name)(data), getattr(torch, name)(data))


@pytest.mark.parametrize("name", ["FloatTensor", "LongTensor", "DoubleTensor"])
def test_typed_tensors_shape_isinstance_and_type(name):
    assert tuple(getattr(minitorch, name)(2, 3).shape) == tuple(getattr(torch, name)(2, 3).shape)
    for value in ([1.0], [1]):
        for lib in (minitorch, torch):
            t = lib.tensor(value)
            assert isinstance(t, getattr(minitorch if lib is minitorch else torch, name)) == (
                isinstance(torch.tensor(value), getattr(torch, name))
            )
    mine = minitorch.tensor([1.7, -2.2]).type(getattr(minitorch, name))
    _same(mine, torch.tensor([1.7, -2.2]).type(getattr(torch, name)))


def test_variable_is_a_new_leaf_over_the_same_data():
    for lib, Var in ((minitorch, Variable), (torch, torch.autograd.Variable)):
        t = lib.ones(3)
        v = Var(t, requires_grad=True)
        assert v is not t and v.requires_grad and not t.requires_grad and v.is_leaf
        assert isinstance(t, Var) and isinstance(v, Var)
        (v * v).sum().backward()
        assert v.grad.tolist() == [2.0, 2.0, 2.0]
        with lib.no_grad():
            v.mul_(3)
        assert t.tolist() == [3.0, 3.0, 3.0]  # the memory is shared
        assert not Var(t).requires_grad
    with pytest.raises(TypeError):
        torch.autograd.Variable([1.0])
    with pytest.raises(TypeError):
        Variable([1.0])
