"""The registry and its dispatch: chosen by device and predicate, off by switch, off for a learner's backward."""

import re
import sys
from pathlib import Path

import numpy as np
import pytest
from kernel_harness import check_kernel

import minitorch
from minitorch.functions.unary import Exp
from minitorch.kernels import all_kernels, kernels_of, register, unregister, use_fast_kernels


@pytest.fixture(autouse=True)
def _kernels_on():
    """These tests are about the kernels running: on, whatever MINITORCH_FAST_KERNELS says."""
    with use_fast_kernels(True):
        yield


@pytest.fixture
def exp_kernel():
    """A test kernel for Exp: the same math, counting its calls."""
    calls = {"forward": 0, "backward": 0}

    def forward(ctx, a):
        calls["forward"] += 1
        out = np.exp(a)
        ctx.save_for_backward(out)
        ctx.save_for_kernel(a)
        return out

    def backward(ctx, grad):
        calls["backward"] += 1
        (out,) = ctx.saved_tensors
        return (grad * out,)

    kernel = register(Exp, applies=lambda a: a.dtype == np.float64, forward=forward, backward=backward)
    yield kernel, calls
    unregister(kernel)


def test_a_kernel_runs_where_it_applies_and_its_backward_runs_on_its_node(exp_kernel):
    kernel, calls = exp_kernel
    x = minitorch.tensor([0.5, 1.0], dtype=minitorch.float64, requires_grad=True)
    y = x.exp()
    assert y.grad_fn.fast_kernel is kernel
    y.sum().backward()
    assert calls == {"forward": 1, "backward": 1}
    np.testing.assert_allclose(x.grad.numpy(), np.exp([0.5, 1.0]))


def test_a_kernel_does_not_run_where_its_predicate_says_no(exp_kernel):
    _, calls = exp_kernel
    x = minitorch.tensor([0.5, 1.0], requires_grad=True)  # float32
    x.exp().sum().backward()
    assert calls == {"forward": 0, "backward": 0}


def test_the_switch_and_a_learners_backward_turn_kernels_off(exp_kernel):
    _, calls = exp_kernel
    x = minitorch.tensor([0.5, 1.0], dtype=minitorch.float64, requires_grad=True)
    with use_fast_kernels(False):
        x.exp().sum().backward()
    minitorch.autograd.override_backward(Exp, lambda ctx, g: (g * ctx.saved_tensors[0],))
    x.exp().sum().backward()
    assert calls == {"forward": 0, "backward": 0}


def test_the_harness_accepts_a_faithful_kernel(exp_kernel):
    kernel, _ = exp_kernel
    check_kernel(kernel, minitorch.tensor([0.5, -1.0, 2.0], dtype=minitorch.float64, requires_grad=True))


def test_the_harness_catches_a_kernel_that_saves_something_else():
    def forward(ctx, a):
        out = np.exp(a)
        ctx.save_for_backward(a)  # the op saves its output
        return out

    def backward(ctx, grad):
        return (grad * np.exp(ctx.saved_tensors[0]),)

    kernel = register(Exp, applies=lambda a: True, forward=forward, backward=backward)
    try:
        with pytest.raises(AssertionError, match="saved value 0"):
            check_kernel(kernel, minitorch.tensor([0.5, -1.0], dtype=minitorch.float64, requires_grad=True))
    finally:
        unregister(kernel)
    assert kernels_of(Exp) == ()


def test_register_refuses_what_is_not_a_kernel():
    with pytest.raises(TypeError, match="Function subclass"):
        register(object, applies=lambda: True, forward=lambda ctx: None)
    with pytest.raises(ValueError, match="device"):
        register(Exp, device="tpu", applies=lambda a: True, forward=lambda ctx, a: a)
    with pytest.raises(ValueError, match="forward, its backward or both"):
        register(Exp, applies=lambda a: True)


def _names_of(kernel):
    """The module-level names a kernel is registered under (``IN_PLACE``, ``BLAS``...)."""
    modules = [m for name, m in list(sys.modules.items()) if name.startswith("minitorch.kernels") and m is not None]
    return sorted({name for module in modules for name, value in vars(module).items() if value is kernel})


def _module_of(kernel):
    """The module that registered ``kernel`` (a kernel may replace only the op's backward)."""
    return (kernel.forward if kernel.forward is not None else kernel.backward).__module__


def test_every_registered_kernel_is_checked_against_its_op():
    # Issue 34's rule: each fast path has a test against its reference. A CPU kernel is named
    # in a test file of tests/kernels that runs check_kernel; a CUDA kernel is run against its
    # op on the fake CuPy (tests/kernels, tests/devices; test_kernel_sources.py compiles it).
    tests = Path(__file__).resolve().parents[1]
    paths = [*(tests / "kernels").glob("test_*.py"), *(tests / "devices").glob("test_*.py")]
    files = [p.read_text() for p in sorted(paths)]
    unchecked = []
    for kernel in all_kernels():
        names = _names_of(kernel)
        checked = any(re.search(rf"\b{name}\b", text) and (kernel.device != "cpu" or "check_kernel(" in text)
                      for name in names for text in files)
        if not checked:
            unchecked.append(f"{kernel.op.__name__} ({kernel.device}): {_module_of(kernel)} {names}")
    assert not unchecked, "kernels without a test against their op:\n" + "\n".join(unchecked)
