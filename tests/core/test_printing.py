"""Tensors print as PyTorch prints them (with ``minitorch.`` for ``torch.``), so a learner
can compare outputs line by line; shapes are ``minitorch.Size``."""

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch")

GRID = np.linspace(-3.0, 3.0, 2000)


def values(name):
    """Deterministic data for each printing case (no random stream to keep in step)."""
    return {
        "small": [1.5, 2.0], "whole": [1.0, 2.0, 3.0], "negative": [-1.5, 2.25, 3.125],
        "big": [1e9, 1.0], "tiny": [1e-5, 1.0], "wide range": [0.001, 1000.0, 5.0],
        "inf": [1.0, float("inf"), -float("inf")], "nan": [float("nan"), 1.5], "zeros": [0.0, 0.0],
        "matrix": (GRID[:12] * 1.37).reshape(3, 4).tolist(), "wide rows": np.sin(GRID[:40]).reshape(2, 20).tolist(),
        "summarised": np.sin(GRID).tolist(), "3-d": np.cos(GRID[:12]).reshape(2, 2, 3).tolist(),
        "large 2-d": np.sin(GRID[:1200]).reshape(40, 30).tolist(), "sci": [1.2345e-8, 3.0e-9],
        "empty": [], "signed zero": [-0.0, 0.0], "1e8": [1e8, 2.0], "half range": [65504.0, 1e-7],
        "scalar": 3.14159,
    }[name]


FLOAT_CASES = ["small", "whole", "negative", "big", "tiny", "wide range", "inf", "nan", "zeros", "matrix",
               "wide rows", "summarised", "3-d", "large 2-d", "sci", "empty", "signed zero", "1e8",
               "half range", "scalar"]


def same_repr(make):
    mine = repr(make(minitorch))
    theirs = repr(make(torch)).replace("torch.", "minitorch.").replace("Backward0", "Backward")
    assert mine == theirs


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("name", FLOAT_CASES)
def test_float_tensors_print_as_pytorch(name, dtype):
    same_repr(lambda lib: lib.tensor(values(name), dtype=getattr(lib, dtype)))


@pytest.mark.parametrize(
    "make",
    [
        lambda lib: lib.tensor([-5, 10, -300]),
        lambda lib: lib.tensor([[True, False], [False, True]]),
        lambda lib: lib.tensor([10**12, 3]),
        lambda lib: lib.arange(2000).reshape(40, 50),
        lambda lib: lib.arange(40),
        lambda lib: lib.tensor(7),
        lambda lib: lib.zeros(0, 3),
        lambda lib: lib.zeros(2, 0, dtype=lib.int64),
        lambda lib: lib.zeros(0, dtype=lib.int64),
        lambda lib: lib.tensor([1.0, 2.0], requires_grad=True),
        lambda lib: lib.tensor([1.0, 2.0], requires_grad=True) * 2,
        lambda lib: (lib.tensor([1.0, 2.0], requires_grad=True) * 2).sum(),
        lambda lib: lib.tensor(np.linspace(-1.0, 1.0, 8), requires_grad=True),
        lambda lib: lib.tensor(np.linspace(-1.0, 1.0, 2000), dtype=lib.float64),
    ],
    ids=["ints", "bools", "big ints", "int matrix summarised", "int row wrapped", "int scalar", "empty 2-d",
         "empty int 2-d", "empty int", "requires grad", "grad_fn", "0-d grad_fn", "suffix on a new line",
         "dtype on a new line"],
)
def test_other_tensors_print_as_pytorch(make):
    same_repr(make)


def test_print_options():
    x = minitorch.tensor([1.23456789])
    try:
        minitorch.set_printoptions(precision=2)
        assert repr(x) == "tensor([1.23])"
        minitorch.set_printoptions(sci_mode=True)
        assert repr(x) == "tensor([1.23e+00])"
    finally:
        minitorch.set_printoptions(profile="default")
    assert repr(x) == "tensor([1.2346])"


def test_shapes_are_sizes():
    x = minitorch.ones(3, 28, 28)
    assert repr(x.shape) == "minitorch.Size([3, 28, 28])"
    assert repr(x.shape) == repr(torch.ones(3, 28, 28).shape).replace("torch.", "minitorch.")
    assert x.shape == (3, 28, 28) and x.size() == x.shape and x.size(0) == 3
    assert isinstance(x.shape[1:], minitorch.Size) and x.shape[1:] == (28, 28)
    assert x.shape.numel() == 3 * 28 * 28 and hash(x.shape) == hash((3, 28, 28))


@pytest.mark.parametrize(
    "call",
    [
        lambda t: t.max(dim=1),
        lambda t: t.min(0, keepdim=True),
        lambda t: t.sort(dim=1, descending=True),
        lambda t: t.topk(2),
    ],
    ids=["max", "min", "sort", "topk"],
)
def test_values_indices_pairs_print_as_torch_return_types(call):
    data = [[0.5, 2.0, -1.0], [1.5, 1.0, 4.0]]
    ours, theirs = call(minitorch.tensor(data)), call(torch.tensor(data))
    assert repr(ours).replace("minitorch.", "torch.") == repr(theirs)
    values, indices = ours  # still a tuple that unpacks
    assert values is ours.values and indices is ours.indices
