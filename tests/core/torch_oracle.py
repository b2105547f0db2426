"""PyTorch as the oracle of an op: the same call on both libraries, outputs and gradients compared.

Shared by the op tests (``test_sequence_ops.py``, ``test_selection_ops.py``); import it only
where PyTorch is installed (``pytest.importorskip("torch")`` first).
"""

import numpy as np
import torch

import minitorch

TOLERANCES = {"float32": {"rtol": 2e-5, "atol": 2e-5}, "float64": {"rtol": 1e-10, "atol": 1e-12}}


def leaf(a):
    """A float64 MiniTorch leaf that requires grad (for gradcheck)."""
    return minitorch.tensor(np.asarray(a, dtype=np.float64), requires_grad=True)


def as_numpy(t):
    """A MiniTorch or PyTorch tensor's values as a NumPy array."""
    return t.detach().numpy()


def compare(fn, arrays, dtype="float64", seed=0, **tol):
    """fn(lib, *tensors) on MiniTorch and torch: every output (a tensor or a tuple: shape, dtype,
    values), then the gradient of every float input for a random weighting of the outputs."""
    tol = {**TOLERANCES[dtype], **tol}
    mine, theirs = [], []
    for a in arrays:
        a = np.asarray(a)
        if a.dtype.kind == "f":
            a = a.astype(dtype)
        grad = a.dtype.kind == "f"
        mine.append(minitorch.tensor(a, requires_grad=grad))
        theirs.append(torch.tensor(a, requires_grad=grad))
    out_m, out_t = fn(minitorch, *mine), fn(torch, *theirs)
    if not isinstance(out_t, tuple):
        out_m, out_t = (out_m,), (out_t,)
    assert len(out_m) == len(out_t)
    rng = np.random.default_rng(seed)
    loss_m = loss_t = 0
    for m, t in zip(out_m, out_t):
        assert tuple(m.shape) == tuple(t.shape)
        assert m.dtype.name == str(t.dtype).replace("torch.", "")
        np.testing.assert_allclose(as_numpy(m), as_numpy(t), equal_nan=True, **tol)
        if t.requires_grad:
            g = rng.standard_normal(tuple(t.shape)).astype(dtype)
            loss_m = loss_m + (m * minitorch.tensor(g)).sum()
            loss_t = loss_t + (t * torch.tensor(g)).sum()
    if isinstance(loss_t, int):
        return
    loss_m.backward()
    loss_t.backward()
    for i, (m, t) in enumerate(zip(mine, theirs)):
        if t.grad is not None:
            assert m.grad is not None, f"input {i} got no gradient"
            np.testing.assert_allclose(as_numpy(m.grad), as_numpy(t.grad), err_msg=f"grad of input {i}", **tol)
