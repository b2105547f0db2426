"""Second (and third) derivatives of an op: gradgradcheck, and PyTorch's as the oracle.

Shared by the ``test_gradgradcheck_*.py`` files; import it only where PyTorch is installed
(``pytest.importorskip("torch")`` first). A case is ``fn(lib, *tensors)``, written once for
both libraries (``lib`` is ``minitorch`` or ``torch``), and float64 NumPy arrays for the
inputs that require grad; constants (indices, masks) are built inside ``fn``.

``check`` runs two tests of it:

- ``gradgradcheck``: the recorded backward (``create_graph=True``) differentiated again,
  against finite differences of the first derivatives, for the inputs and the output
  weights (``grad_outputs``) alike. Inputs must sit away from kinks and ties there.
- PyTorch: the same program on both libraries, ``autograd.grad`` run ``order`` times. Each
  step weights the derivatives of the step before by fixed random numbers and sums them to
  one number, which is differentiated with respect to the inputs and the output weights.
  That is analytic on both sides, so ties and kinks may be compared here with PyTorch's
  conventions.
"""

import numpy as np
import torch

import minitorch
from minitorch.autograd import gradgradcheck

TOLERANCE = {"rtol": 1e-9, "atol": 1e-11}  # float64, a few steps of arithmetic: far above rounding noise


def leaves(lib, arrays):
    """The arrays as float64 leaves of ``lib`` that require grad."""
    return [lib.tensor(np.asarray(a, dtype=np.float64), requires_grad=True) for a in arrays]


def derivatives(lib, fn, arrays, order=2, seed=0):
    """[second derivatives, third ...] of ``fn`` under ``lib``: for each order, one array per
    input and per output weight (zeros where ``lib`` found no dependence)."""
    rng = np.random.default_rng(seed)
    inputs = leaves(lib, arrays)
    outputs = fn(lib, *inputs)
    outputs = tuple(outputs) if isinstance(outputs, (tuple, list)) else (outputs,)
    weights = leaves(lib, [rng.standard_normal(tuple(o.shape)) for o in outputs])
    variables = inputs + weights
    grads = lib.autograd.grad(outputs, inputs, weights, create_graph=True, allow_unused=True)
    results = []
    for k in range(2, order + 1):
        # Weights drawn for every slot, used or not: both libraries draw the same numbers.
        terms = []
        for g, x in zip(grads, variables):
            w = lib.tensor(rng.standard_normal(tuple(x.shape)), dtype=lib.float64)
            if g is not None and g.requires_grad:
                terms.append((g * w).sum())
        if not terms:  # nothing left to differentiate: every higher derivative is 0
            grads = [None] * len(variables)
        else:
            grads = lib.autograd.grad(sum(terms), variables, create_graph=k < order, allow_unused=True)
        results.append([_numpy(g, x) for g, x in zip(grads, variables)])
    return results


def _numpy(g, x):
    """A derivative as a NumPy array: zeros of ``x``'s shape where there was none (None)."""
    return np.zeros(tuple(x.shape)) if g is None else g.detach().numpy()


def compare_with_torch(fn, *arrays, order=2, **tolerance):
    """The second (to ``order``-th) derivatives of ``fn`` under MiniTorch and PyTorch agree."""
    tolerance = {**TOLERANCE, **tolerance}
    mine = derivatives(minitorch, fn, arrays, order)
    theirs = derivatives(torch, fn, arrays, order)
    for k, (ours, torchs) in enumerate(zip(mine, theirs), start=2):
        for slot, (a, b) in enumerate(zip(ours, torchs)):
            np.testing.assert_allclose(a, b, err_msg=f"derivative of order {k}, slot {slot}", **tolerance)


def check(fn, *arrays, order=2, torch_check=True, eps=1e-6, atol=1e-5, rtol=1e-3, torch_tolerance=None):
    """gradgradcheck of ``fn(minitorch, ...)`` at ``arrays`` (``eps``, ``atol``, ``rtol``), then
    (``torch_check``) its second derivatives (up to ``order``) against PyTorch's, within
    ``torch_tolerance`` (``TOLERANCE`` by default)."""
    assert gradgradcheck(lambda *xs: fn(minitorch, *xs), leaves(minitorch, arrays), eps=eps, atol=atol, rtol=rtol)
    if torch_check:
        compare_with_torch(fn, *arrays, order=order, **(torch_tolerance or {}))
