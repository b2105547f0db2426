"""Second derivatives of the elementwise ops (arithmetic.py, binary_math.py, unary.py,
rounding.py, clamping.py, elementwise_logic.py, conversion.py), against finite differences
(gradgradcheck) and PyTorch's (``second_order.py``), broadcasting included; third
derivatives against PyTorch's for every smooth op.

Inputs sit away from kinks and ties for gradgradcheck (a finite difference across a kink
means nothing); ``test_ties_and_kinks_follow_torch`` compares those points with PyTorch's
conventions analytically.
"""

import numpy as np
import pytest

pytest.importorskip("torch")

from second_order import check, compare_with_torch  # noqa: E402  (PyTorch first)

from minitorch.functions.conversion import ToDevice  # noqa: E402

BROADCAST_PAIRS = [((3, 4), (3, 4)), ((3, 1), (1, 4)), ((2, 3, 4), (4,)), ((), (2, 3)), ((2, 1, 3), (4, 1))]


def normal(rng, shape):
    return rng.standard_normal(shape)


def positive(rng, shape, low=0.5, high=2.0):
    return rng.uniform(low, high, shape)


def away_from_zero(rng, shape, margin=0.3):
    return np.where(rng.random(shape) < 0.5, -1.0, 1.0) * rng.uniform(margin, 2.0, shape)


def grid(rng, shape, shift=0.0):
    """Values on a 0.1 grid (plus ``shift``): two grids shifted by 0.05 never tie within eps."""
    return rng.integers(-10, 10, shape) * 0.1 + shift


# ---------------------------------------------------------------------- binary ops, broadcasting
BINARY = {
    "add": (lambda lib, a, b: a + b, normal, normal),
    "sub": (lambda lib, a, b: a - b, normal, normal),
    "mul": (lambda lib, a, b: a * b, normal, normal),
    "div": (lambda lib, a, b: a / b, normal, away_from_zero),
    "pow": (lambda lib, a, b: a**b, positive, normal),
    "atan2": (lambda lib, a, b: lib.atan2(a, b), away_from_zero, away_from_zero),
    "maximum": (lambda lib, a, b: lib.maximum(a, b), lambda r, s: grid(r, s, 0.05), grid),
    "minimum": (lambda lib, a, b: lib.minimum(a, b), lambda r, s: grid(r, s, 0.05), grid),
    "lerp": (lambda lib, a, b: lib.lerp(a, b, 0.3), normal, normal),
}


@pytest.mark.parametrize("shapes", BROADCAST_PAIRS, ids=str)
@pytest.mark.parametrize("name", BINARY)
def test_binary_broadcast(rng, name, shapes):
    fn, draw_a, draw_b = BINARY[name]
    check(fn, draw_a(rng, shapes[0]), draw_b(rng, shapes[1]), order=3)


def test_remainder_and_fmod(rng):
    # a / b kept away from whole numbers: the floor (trunc) in the derivative does not jump within eps
    b = rng.uniform(0.7, 1.3, (4,))
    a = (rng.integers(-3, 3, (3, 4)) + rng.uniform(0.2, 0.8, (3, 4))) * b
    check(lambda lib, x, y: lib.remainder(x, y), a, b)
    check(lambda lib, x, y: lib.fmod(x, y), a, b)
    check(lambda lib, x: x % 0.75, a)


def test_lerp_with_a_tensor_weight(rng):
    check(lambda lib, s, e, w: lib.lerp(s, e, w), normal(rng, (3, 1)), normal(rng, (4,)), normal(rng, (3, 4)), order=3)
    check(lambda lib, s, e, w: lib.lerp(s, e, w), normal(rng, (3, 4)), normal(rng, (3, 4)), normal(rng, ()))


def test_where_broadcast(rng):
    condition = rng.random((3, 4)) < 0.5
    check(lambda lib, a, b: lib.where(lib.tensor(condition), a, b), normal(rng, (3, 1)), normal(rng, (4,)))
    check(lambda lib, a: lib.where(lib.tensor(condition), a * a, 1.5), normal(rng, (3, 4)))
    check(lambda lib, a: lib.where(a > 0, a**3, 0.1 * a), away_from_zero(rng, (3, 4)))


def test_clamp_with_tensor_bounds(rng):
    x = np.linspace(-2.03, 1.97, 12).reshape(3, 4)
    low, high = np.array([[-1.05], [-0.55], [-0.15]]), np.array([0.45, 0.95, 1.45, 1.95])
    check(lambda lib, a, lo, hi: lib.clamp(a, lo, hi) ** 2, x, low, high)
    check(lambda lib, a, lo: lib.clamp(a * a, min=lo), x, low)
    check(lambda lib, a, hi: lib.clamp(a, max=hi) * a, x, high)


@pytest.mark.parametrize(
    "fn",
    [
        pytest.param(lambda lib, x: x + 2.5, id="x+2.5"),
        pytest.param(lambda lib, x: 3 - x, id="3-x"),
        pytest.param(lambda lib, x: -2.0 * x * x, id="-2x*x"),
        pytest.param(lambda lib, x: 2 / x, id="2/x"),
        pytest.param(lambda lib, x: x / 4, id="x/4"),
        pytest.param(lambda lib, x: x**3, id="x**3"),
        pytest.param(lambda lib, x: x**2.5, id="x**2.5"),
        pytest.param(lambda lib, x: x**-1.5, id="x**-1.5"),
        pytest.param(lambda lib, x: x**0 + x, id="x**0"),
        pytest.param(lambda lib, x: 2**x, id="2**x"),
        pytest.param(lambda lib, x: lib.pow(x, 2), id="pow(x,2)"),
        pytest.param(lambda lib, x: lib.square(x), id="square"),
        pytest.param(lambda lib, x: lib.true_divide(x, x * x + 1), id="true_divide"),
    ],
)
def test_with_python_numbers(rng, fn):
    check(fn, positive(rng, (2, 3)), order=3)


def test_pow_integer_exponent_negative_base(rng):
    check(lambda lib, x: x**3, normal(rng, (3, 4)), order=3)


# ---------------------------------------------------------------------- one input
SMOOTH = {
    "neg": (lambda lib, x: -x, normal),
    "exp": (lambda lib, x: lib.exp(x), normal),
    "log": (lambda lib, x: lib.log(x), positive),
    "log1p": (lambda lib, x: lib.log1p(x), positive),
    "log2": (lambda lib, x: lib.log2(x), positive),
    "log10": (lambda lib, x: lib.log10(x), positive),
    "sqrt": (lambda lib, x: lib.sqrt(x), positive),
    "rsqrt": (lambda lib, x: lib.rsqrt(x), positive),
    "reciprocal": (lambda lib, x: lib.reciprocal(x), positive),
    "sin": (lambda lib, x: lib.sin(x), normal),
    "cos": (lambda lib, x: lib.cos(x), normal),
    "tan": (lambda lib, x: lib.tan(x), lambda r, s: r.uniform(-1.2, 1.2, s)),
    "tanh": (lambda lib, x: lib.tanh(x), normal),
    "sigmoid": (lambda lib, x: lib.sigmoid(x), normal),
    "expm1": (lambda lib, x: lib.expm1(x), normal),
    "exp2": (lambda lib, x: lib.exp2(x), normal),
}


@pytest.mark.parametrize("name", SMOOTH)
def test_smooth_unary(rng, name):
    fn, draw = SMOOTH[name]
    check(fn, draw(rng, (3, 4)), order=3)


KINKED = {
    "relu": lambda lib, x: lib.relu(x) * x,
    "abs": lambda lib, x: lib.abs(x) * x,
    "clamp": lambda lib, x: lib.clamp(x, -0.5, 1.0) ** 2,
    "clamp_min": lambda lib, x: x.clamp_min(0.25) ** 2,
    "clip_max": lambda lib, x: lib.clip(x, max=0.5) ** 2,
}


@pytest.mark.parametrize("name", KINKED)
def test_kinked_unary_away_from_the_kinks(rng, name):
    x = away_from_zero(rng, (3, 4))
    x = np.where(np.abs(np.abs(x) - 0.5) < 0.05, x + 0.1, x)  # nor at the clamp bounds
    x = np.where(np.abs(x - 1.0) < 0.05, x + 0.1, x)
    x = np.where(np.abs(x - 0.25) < 0.05, x + 0.1, x)
    check(KINKED[name], x, order=3)


@pytest.mark.parametrize("name", ["floor", "ceil", "trunc", "round", "sign"])
def test_rounding_has_zero_derivatives(rng, name):
    x = grid(rng, (3, 4), 0.03)  # away from the jumps (whole numbers, halves, 0)
    check(lambda lib, t: getattr(lib, name)(t) * t + t * t, x, order=3)


def test_round_with_decimals(rng):
    check(lambda lib, t: lib.round(t, decimals=1) * t, grid(rng, (3, 4), 0.013))


# ---------------------------------------------------------------------- conversions
def test_cast_clone_and_device_copy(rng):
    x = normal(rng, (2, 3))
    # float64 -> float32 -> float64: float32 rounding (~1e-7) needs a larger eps (PyTorch rounds the same)
    check(lambda lib, t: (t.float() * t.float()).double(), x, eps=1e-3, atol=1e-3, rtol=1e-3, torch_check=False)
    compare_with_torch(lambda lib, t: (t.float() * t.float()).double(), x, rtol=1e-6, atol=1e-6)
    check(lambda lib, t: t.clone() * t.clone(), x, order=3)
    check(lambda lib, t: t.to(lib.float64) * t, x)


def test_device_copy_is_twice_differentiable(rng):
    """ToDevice's backward copies the gradient back; under create_graph that copy is recorded
    (cpu to cpu here: the op itself, which ``.to`` skips when the device is the same)."""
    import minitorch
    from minitorch.autograd import gradgradcheck

    x = minitorch.tensor(normal(rng, (2, 3)), requires_grad=True)
    assert gradgradcheck(lambda t: ToDevice.apply(t * t, "cpu") * t, (x,))


# ---------------------------------------------------------------------- ties and kinks, analytically
@pytest.mark.parametrize(
    "fn, arrays",
    [
        # ties split the gradient evenly; the split is a constant, so d/dx of it is 0
        (lambda lib, a, b: lib.maximum(a, b) * a, ([1.0, 2.0, -0.5], [1.0, 0.5, -0.5])),
        (lambda lib, a, b: lib.minimum(a, b) * b, ([1.0, 2.0, -0.5], [1.0, 0.5, -0.5])),
        # at a bound the input keeps its gradient (PyTorch's inclusive range)
        (lambda lib, x: lib.clamp(x, -0.5, 0.5) * x, ([-0.5, 0.5, 0.2, 1.0],)),
        (lambda lib, x, lo: lib.clamp(x, lo, None) * x, ([-0.5, 0.5, 0.2], [-0.5, 0.5, 0.0])),
        # relu and abs at 0: slope 0, and 0 for every higher derivative
        (lambda lib, x: lib.relu(x) * x, ([0.0, 1.0, -1.0],)),
        (lambda lib, x: lib.abs(x) * x, ([0.0, 1.0, -1.0],)),
    ],
)
def test_ties_and_kinks_follow_torch(fn, arrays):
    compare_with_torch(fn, *(np.asarray(a) for a in arrays), order=3)
