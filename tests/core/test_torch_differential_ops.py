"""Regressions found by running MiniTorch and PyTorch side by side on random and edge cases.

Each case is ``fn(lib)`` with ``lib`` either ``minitorch`` or ``torch`` (same names, same
line). ``agree`` checks that both raise, or that both return the same shape, dtype and
values and, when inputs require grad, the same gradients.
"""

import numpy as np
import pytest

import minitorch
from minitorch.errors import MiniTorchError

torch = pytest.importorskip("torch")

NAN = float("nan")


def _np(t):
    return t.detach().cpu().numpy() if isinstance(t, torch.Tensor) else t.detach().numpy()


def _same(mine, theirs, what):
    assert tuple(mine.shape) == tuple(theirs.shape), f"{what}: shape {tuple(mine.shape)} vs {tuple(theirs.shape)}"
    assert str(mine.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1], f"{what}: {mine.dtype} vs {theirs.dtype}"
    np.testing.assert_allclose(_np(mine), _np(theirs), rtol=1e-6, atol=1e-7, equal_nan=True, err_msg=what)


def agree(fn, *arrays, grad=False):
    """Run ``fn(lib, *inputs)`` on both libraries; compare the output and each input's grad."""
    ins = {lib: [lib.tensor(a, requires_grad=grad) for a in arrays] for lib in (minitorch, torch)}
    errors = {}
    outs = {}
    for lib in (minitorch, torch):
        try:
            outs[lib] = fn(lib, *ins[lib])
        except (RuntimeError, TypeError, ValueError, IndexError, NotImplementedError) as exc:
            errors[lib] = exc
    assert (minitorch in errors) == (torch in errors), f"raised: {errors}"
    if errors:
        return
    mine, theirs = outs[minitorch], outs[torch]
    _same(mine, theirs, "output")
    if grad:
        weights = np.linspace(-1.0, 2.0, theirs.numel()).reshape(tuple(theirs.shape))
        for lib, out in outs.items():
            (out * lib.tensor(weights, dtype=out.dtype)).sum().backward()
        for i, (m, t) in enumerate(zip(ins[minitorch], ins[torch])):
            _same(m.grad, t.grad, f"grad of input {i}")


# ------------------------------------------------------------------ PyTorch raises here too
RAISES = {
    "float - bool tensor": lambda lib: lib.ones(2) - lib.tensor([True, False]),
    "int - bool tensor": lambda lib: lib.tensor([1, 2]).sub(lib.tensor([True, False])),
    "float - True": lambda lib: lib.ones(2) - True,
    "True - float": lambda lib: True - lib.ones(2),
    "bool tensor - 1": lambda lib: lib.tensor([True]) - 1,
    "bool ** bool": lambda lib: lib.tensor([True]) ** lib.tensor([False]),
    "True ** bool": lambda lib: True ** lib.tensor([True]),
    "abs(bool)": lambda lib: lib.tensor([True]).abs(),
    "relu(bool)": lambda lib: lib.relu(lib.tensor([True])),
    "+bool": lambda lib: +lib.tensor([True]),
    "argmax(bool)": lambda lib: lib.tensor([True, False]).argmax(),
    "argmin(bool, dim)": lambda lib: lib.tensor([[True, False]]).argmin(1),
    "bool @ bool": lambda lib: lib.ones(2, 2, dtype=lib.bool) @ lib.ones(2, 2, dtype=lib.bool),
    "slice step -1": lambda lib: lib.ones(3)[::-1],
    "slice step 0": lambda lib: lib.ones(3, 2)[:, ::0],
    "amax of empty, no dim": lambda lib: lib.zeros(2, 0).amax(),
    "amax over the zero-size dim": lambda lib: lib.zeros(2, 0).amax(1),
    "max(dim) over the zero-size dim": lambda lib: lib.zeros(0, 3).max(0),
    "argmax of empty, no dim": lambda lib: lib.zeros(2, 0).argmax(),
    "zeros()": lambda lib: lib.zeros(),
    "ones()": lambda lib: lib.ones(),
    "rand(int64)": lambda lib: lib.rand(2, dtype=lib.int64),
    "randn(int64)": lambda lib: lib.randn(2, dtype=lib.int64),
    "t() of 3-D": lambda lib: lib.ones(2, 3, 4).t(),
    "maximum(t, number)": lambda lib: lib.maximum(lib.ones(2), 0.5),
    "minimum(number, t)": lambda lib: lib.minimum(0.5, lib.ones(2)),
    "reshape()": lambda lib: lib.ones(1).reshape(),
    "expand()": lambda lib: lib.ones(()).expand(),
    "permute()": lambda lib: lib.ones(()).permute(),
}


@pytest.mark.parametrize("name", list(RAISES))
def test_raises_where_pytorch_raises(name):
    with pytest.raises((RuntimeError, NotImplementedError, TypeError, ValueError, IndexError)):
        RAISES[name](torch)
    with pytest.raises((MiniTorchError, TypeError, ValueError, IndexError)):
        RAISES[name](minitorch)


# ------------------------------------------------------------------ same values and dtypes
SAME = {
    "where(c, 1.0, 0.0) is the default float": lambda lib: lib.where(lib.tensor([True, False]), 1.0, 0.0),
    "where(c, 1, 0) is int64": lambda lib: lib.where(lib.tensor([True, False]), 1, 0),
    "where(c, True, False) is bool": lambda lib: lib.where(lib.tensor([True, False]), True, False),
    "add(alpha=) method": lambda lib: lib.tensor([1.0, 2.0]).add(lib.tensor([3.0, 4.0]), alpha=-0.5),
    "sub(alpha=) method": lambda lib: lib.tensor([1.0, 2.0]).sub(lib.tensor([3.0, 4.0]), alpha=2),
    "sub(alpha=) function": lambda lib: lib.sub(lib.tensor([1, 2]), lib.tensor([3, 4]), alpha=2),
    "x[[]]": lambda lib: lib.ones(4, 3)[[]],
    "x[[], 0]": lambda lib: lib.ones(4, 3)[[], 0],
    "amax over a non-empty dim of an empty tensor": lambda lib: lib.zeros(2, 0).amax(0),
    "amin over a non-empty dim of an empty tensor": lambda lib: lib.zeros(0, 3).amin(-1),
    "max(dim) values over a non-empty dim": lambda lib: lib.zeros(2, 0).max(0)[0],
    "max(dim) indices over a non-empty dim": lambda lib: lib.zeros(2, 0).max(0)[1],
    "argmax over a non-empty dim": lambda lib: lib.zeros(2, 0).argmax(0),
    "logsumexp over a zero-size dim is -inf": lambda lib: lib.zeros(2, 0).logsumexp(1),
    "logsumexp over a non-empty dim of an empty tensor": lambda lib: lib.zeros(2, 0).logsumexp(0),
    "tensor([np.float64, float]) stays float64": lambda lib: lib.tensor([np.float64(1.5), 2.0]),
    "tensor([float64 arrays]) stays float64": lambda lib: lib.tensor([np.ones(2), np.zeros(2)]),
    "tensor([float64 0-d tensors]) stays float64": lambda lib: lib.tensor([lib.tensor(1.0, dtype=lib.float64)] * 2),
    "tensor([np.float32, float]) is float32": lambda lib: lib.tensor([np.float32(1.5), 2.0]),
    "arange(0-d tensor) is int64": lambda lib: lib.arange(lib.tensor(3)),
    "cat skips a 1-D empty tensor": lambda lib: lib.cat([lib.ones(2, 3), lib.zeros(0)]),
    "cat: the skipped empty tensor still promotes": lambda lib: lib.cat(
        [lib.ones(2, 3), lib.zeros(0, dtype=lib.float64)]
    ),
}


@pytest.mark.filterwarnings("ignore:Creating a tensor from a list of numpy")
@pytest.mark.parametrize("name", list(SAME))
def test_same_result_as_pytorch(name):
    agree(lambda lib: SAME[name](lib))


# ------------------------------------------------------------------ gradients at NaN
SPECIAL = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, NAN, 1e-30, 3.0, -3.0])
NAN_GRADS = {
    "relu": lambda lib, x: lib.relu(x),
    "relu method": lambda lib, x: x.relu(),
    "abs": lambda lib, x: lib.abs(x),
    "maximum": lambda lib, x: lib.maximum(x, lib.zeros_like(x)),
    "minimum": lambda lib, x: lib.minimum(lib.zeros_like(x), x),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(NAN_GRADS))
def test_gradients_at_nan_inf_and_zero(name, dtype):
    agree(NAN_GRADS[name], SPECIAL.astype(dtype), grad=True)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("seed", range(3))
def test_maximum_minimum_gradients_with_random_nans_and_ties(seed, dtype):
    rng = np.random.default_rng(seed)
    a = np.round(rng.standard_normal((4, 3))).astype(dtype)
    b = np.round(rng.standard_normal((3,))).astype(dtype)
    a[rng.random(a.shape) < 0.3] = np.nan
    agree(lambda lib, x, y: lib.maximum(x, y), a, b, grad=True)
    agree(lambda lib, x, y: lib.minimum(x, y), a, b, grad=True)
