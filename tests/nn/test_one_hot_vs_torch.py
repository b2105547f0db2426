"""``F.one_hot`` against PyTorch 2.13: values, shape, dtype and the errors."""

import numpy as np
import pytest

import minitorch
from minitorch.nn import functional as F

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("values,num_classes", [([0, 2, 1], -1), ([[1, 0], [3, 3]], 5), ([4], -1), ([], 3)], ids=str)
def test_one_hot_matches_torch(values, num_classes):
    mine = F.one_hot(minitorch.tensor(values, dtype=minitorch.int64), num_classes)
    theirs = torch.nn.functional.one_hot(torch.tensor(values, dtype=torch.int64), num_classes)
    assert tuple(mine.shape) == tuple(theirs.shape) and mine.dtype == minitorch.int64
    np.testing.assert_array_equal(mine.numpy(), theirs.numpy())


@pytest.mark.parametrize("values,dtype,num_classes", [
    ([0, -1], "int64", -1), ([0, 3], "int64", 3), ([0.0, 1.0], "float32", 2), ([], "int64", -1),
], ids=str)
def test_one_hot_refuses_what_torch_refuses(values, dtype, num_classes):
    with pytest.raises(RuntimeError):
        torch.nn.functional.one_hot(torch.tensor(values, dtype=getattr(torch, dtype)), num_classes)
    with pytest.raises(RuntimeError):
        F.one_hot(minitorch.tensor(values, dtype=getattr(minitorch, dtype)), num_classes)
