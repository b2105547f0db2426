"""One check for every fast kernel: it computes what the op it replaces computes.

``check_kernel(kernel, *args)`` runs ``kernel.op`` on ``args`` (Tensors and settings, as
``Function.apply`` takes them) twice: once with the fast kernels off (the op as written in
``functions/``, the reference) and once with them on, where the kernel must be the one chosen.
Then it compares:

1. the outputs;
2. what forward saved for backward (the contract: a kernel leaves ``ctx`` as the op does);
3. the gradients of the kernel's backward (or the op's, if the kernel replaces only forward)
   with the reference's, for a random incoming gradient;
4. the op's own backward run on the node the kernel made with the reference's gradients (what
   gradients of gradients rely on).

Tolerances are the dtype's rounding: a kernel may add in another order, never compute
something else. ``exact=True`` asks for the same bits (kernels that make the same calls).
"""

from __future__ import annotations

from typing import Any

import numpy as np

import minitorch
from minitorch.autograd.function import fast_kernel
from minitorch.kernels import Kernel, use_fast_kernels

TOLERANCES = {np.float16: (2e-3, 2e-3), np.float32: (2e-5, 2e-6), np.float64: (1e-11, 1e-13)}


def _arrays(args: tuple[Any, ...]) -> list[Any]:
    return [a.data if isinstance(a, minitorch.Tensor) else a for a in args]


def _close(what: str, got: Any, want: Any, exact: bool, scale: float = 1.0) -> None:
    if want is None or got is None:
        assert got is None and want is None, f"{what}: one is None ({got is None}, {want is None})"
        return
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, f"{what}: shape {got.shape}, reference {want.shape}"
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype}, reference {want.dtype}"
    if exact or got.dtype.kind not in "fc":
        np.testing.assert_array_equal(got, want, err_msg=what)
        return
    rtol, atol = TOLERANCES[got.dtype.type]
    np.testing.assert_allclose(got, want, rtol=rtol * scale, atol=atol * scale, err_msg=what)


def check_kernel(kernel: Kernel, *args: Any, exact: bool = False, scale: float = 1.0, seed: int = 0) -> None:
    """Assert that ``kernel`` is chosen for ``args`` and agrees with its op (see the module doc)."""
    op = kernel.op
    arrays = _arrays(args)
    with use_fast_kernels(True):
        chosen = fast_kernel(op, kernel.device, arrays)
    assert chosen is kernel, f"{kernel} was not chosen for these arguments (got {chosen})"
    with use_fast_kernels(False):
        ref = op.apply(*args)
    with use_fast_kernels(True):
        fast = op.apply(*args)
    _close(f"{kernel.name}: output", fast.data, ref.data, exact, scale)
    if ref.grad_fn is None:  # nothing needs a gradient: forward is all there is
        assert fast.grad_fn is None
        return
    node_ref, node_fast = ref.grad_fn, fast.grad_fn
    saved_ref, saved_fast = node_ref.saved_tensors, node_fast.saved_tensors
    assert len(saved_fast) == len(saved_ref), (
        f"{kernel.name} saved {len(saved_fast)} values for backward, the op saves {len(saved_ref)}"
    )
    for i, (got, want) in enumerate(zip(saved_fast, saved_ref)):
        if hasattr(want, "shape"):
            _close(f"{kernel.name}: saved value {i}", got, want, exact, scale)
        else:
            assert got == want, f"{kernel.name}: saved value {i} is {got!r}, the op saves {want!r}"
    assert set(vars(node_fast)) >= set(vars(node_ref)), (
        f"{kernel.name} leaves ctx without the op's settings {sorted(set(vars(node_ref)) - set(vars(node_fast)))}"
    )
    rng = np.random.default_rng(seed)
    # on the output's device: the fake GPU's tests (tests/devices) check the CUDA kernels with this too
    grad = node_ref.xp.asarray(rng.standard_normal(ref.data.shape).astype(ref.data.dtype))
    want = op.backward(node_ref, grad.copy())
    got = (op if node_fast.fast_kernel is None else node_fast.fast_kernel).backward(node_fast, grad.copy())
    reference_on_kernel_node = op.backward(node_fast, grad.copy())
    want, got, reference_on_kernel_node = (
        tuple(g) if isinstance(g, (tuple, list)) else (g,) for g in (want, got, reference_on_kernel_node)
    )
    assert len(got) == len(want), f"{kernel.name}: {len(got)} gradients, the op gives {len(want)}"
    for i, (g, w, r) in enumerate(zip(got, want, reference_on_kernel_node)):
        _close(f"{kernel.name}: gradient of input {i}", g, w, exact, scale)
        _close(f"{op.__name__}.backward on {kernel.name}'s node: gradient of input {i}", r, w, False, scale)
