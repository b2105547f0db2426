"""Second derivatives of the sequence ops: erf / GELU (special.py), against finite differences
(gradgradcheck) and PyTorch's (``second_order.py``); third derivatives against PyTorch's.

Whichever fast kernel ran the forward (SciPy's erf, the float32 GELU, the tanh form that
keeps its tanh), graph mode runs the op's own backward on its node: a kernel leaves ``ctx`` as
the op does, which the tests with the kernels on and off hold.
"""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from second_order import TOLERANCE, check, derivatives, leaves  # noqa: E402  (PyTorch first)

import minitorch  # noqa: E402
from minitorch.kernels import use_fast_kernels  # noqa: E402


# ---------------------------------------------------------------------- the fast kernels keep the contract
def gelu(lib, x):
    return lib.nn.functional.gelu(x)


def tanh_gelu(lib, x):
    return lib.nn.functional.gelu(x, approximate="tanh")


def erf(lib, x):
    return lib.erf(x)


def matrix(rng):
    return [rng.standard_normal((3, 4))]


KERNEL_CASES = {
    "gelu": (gelu, matrix),
    "gelu-tanh": (tanh_gelu, matrix),
    "erf": (erf, matrix),
}


def derivatives_in(dtype, fn, arrays, kernels):
    """Second and third derivatives of ``fn`` in ``dtype`` with the fast kernels on or off, float64 arrays."""

    def in_dtype(lib, *xs):
        outputs = fn(lib, *(x.to(dtype) for x in xs))
        return tuple(o.double() for o in (outputs if isinstance(outputs, tuple) else (outputs,)))

    with use_fast_kernels(kernels):
        return derivatives(minitorch, in_dtype, arrays, order=3)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", KERNEL_CASES)
def test_graph_mode_runs_the_ops_backward_on_a_kernels_node(rng, case, dtype):
    fn, arrays = KERNEL_CASES[case]
    arrays = arrays(rng)
    dtype = getattr(minitorch, dtype)
    fast = derivatives_in(dtype, fn, arrays, kernels=True)
    reference = derivatives_in(dtype, fn, arrays, kernels=False)
    tolerance = TOLERANCE if dtype == minitorch.float64 else {"rtol": 2e-4, "atol": 2e-5}
    for order, (ours, theirs) in enumerate(zip(fast, reference), start=2):
        for slot, (a, b) in enumerate(zip(ours, theirs)):
            np.testing.assert_allclose(a, b, err_msg=f"order {order}, slot {slot}", **tolerance)


# ---------------------------------------------------------------------- erf and GELU
@pytest.mark.parametrize("op", [erf, gelu, tanh_gelu])
def test_erf_and_gelu_broadcast(rng, op):
    x, y = rng.standard_normal((3, 1)), 1.5 * rng.standard_normal((1, 4))
    check(lambda lib, a, b: op(lib, a * b + b), x, y, order=3)


def test_gelu_and_erf_second_derivatives_are_exact_in_the_tails():
    # erf'' = -4x/sqrt(pi) exp(-x^2), gelu'' = phi(x) (2 - x^2): the Erf op is recorded for Phi,
    # so these hold to rounding also where Cody's approximations switch ranges (0.5, 4) and far out.
    values = np.array([-7.0, -4.5, -4.0, -2.0, -0.5, -0.3, 0.0, 0.2, 0.5, 1.0, 3.9, 4.1, 6.0])
    (x,) = leaves(minitorch, [values])
    phi = np.exp(-values * values / 2) / np.sqrt(2 * np.pi)
    for op, expected in (
        (minitorch.erf, -4 * values / np.sqrt(np.pi) * np.exp(-values * values)),
        (minitorch.nn.functional.gelu, phi * (2 - values * values)),
    ):
        (g,) = minitorch.autograd.grad(op(x).sum(), [x], create_graph=True)
        (h,) = minitorch.autograd.grad(g.sum(), [x])
        np.testing.assert_allclose(h.numpy(), expected, rtol=1e-12, atol=1e-30)
