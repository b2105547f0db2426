"""``clamp`` with tensor bounds (``functions/clamping.py``) against PyTorch: values, dtypes and
the gradients of the input and of both bounds, with broadcasting, ties, NaN and low > high."""

import numpy as np
import pytest

import minitorch
from minitorch.autograd import gradcheck

torch = pytest.importorskip("torch")

SHAPES = [(3, 4), (4,), (1, 4), ()]


def run(lib, x, low, high, which):
    """clamp with both bounds (which=0), only min (1) or only max (2); the output and every gradient."""
    X, L, H = (lib.tensor(v, requires_grad=True) for v in (x, low, high))
    bounds = (L, H) if which == 0 else ((L, None) if which == 1 else (None, H))
    out = lib.clamp(X, *bounds)
    weights = lib.tensor(np.arange(1.0, out.numel() + 1).reshape(tuple(out.shape)))
    (out * weights).sum().backward()
    return [out.detach().numpy()] + [None if t.grad is None else t.grad.numpy() for t in (X, L, H)]


@pytest.mark.parametrize("which", [0, 1, 2], ids=["both", "min", "max"])
@pytest.mark.parametrize("bound_shapes", [(s, t) for s in SHAPES for t in SHAPES])
def test_values_and_gradients_match_torch(which, bound_shapes):
    rng = np.random.default_rng(len(bound_shapes[0]) * 10 + len(bound_shapes[1]) + which)
    x = np.round(rng.standard_normal((3, 4)) * 2) / 2  # halves: ties with the bounds happen
    x[0, 0] = np.nan  # no gradient for a NaN input, as PyTorch
    low, high = (np.round(rng.standard_normal(s) * 2) / 2 for s in bound_shapes)  # low > high in places too
    for ours, theirs in zip(run(minitorch, x, low, high, which), run(torch, x, low, high, which)):
        assert (ours is None) == (theirs is None)
        if ours is not None:
            np.testing.assert_allclose(ours, theirs, equal_nan=True)


def test_gradcheck_away_from_the_kinks(rng):
    x = minitorch.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    low = minitorch.tensor(rng.standard_normal(4) - 1.5, requires_grad=True)
    high = minitorch.tensor(rng.standard_normal((3, 1)) + 1.5, requires_grad=True)
    assert gradcheck(lambda a, lo, hi: minitorch.clamp(a, lo, hi), (x, low, high))


def test_dtypes_and_refusals_as_torch():
    flags = np.ones((1, 1, 2), dtype=bool)
    args = (np.float64(0.0), np.ones((1, 1, 2), np.float32))
    ours = minitorch.clip(minitorch.tensor(flags), minitorch.tensor(args[0]), minitorch.tensor(args[1]))
    theirs = torch.clip(torch.tensor(flags), torch.tensor(args[0]), torch.tensor(args[1]))
    assert str(ours.dtype).split(".")[1] == str(theirs.dtype).split(".")[1] == "float32"  # the 0-d rule
    b = minitorch.tensor([True, False])
    assert minitorch.clamp_min(b, minitorch.tensor([True])).tolist() == [True, True]  # one bound works
    with pytest.raises(NotImplementedError, match="bool"):
        minitorch.clamp(b, b, b)
    with pytest.raises(TypeError, match="both be tensors or both be numbers"):
        minitorch.ones(3).clamp(minitorch.zeros(3), 2.0)
