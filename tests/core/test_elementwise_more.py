"""The ops of functions/unary.py (reciprocal ... square), rounding.py, binary_math.py and
elementwise_logic.py, and the in-place methods of tensor/inplace.py, against finite
differences and against PyTorch.

- gradcheck (float64) for every differentiable op, with broadcasting for the binary ones;
- differential tests: the same call on ``minitorch`` and ``torch`` (``fn(lib, ...)``) on
  random inputs of several shapes in float32 and float64 must give the same shape, dtype,
  values and gradients; likewise on NaN/inf/zero, integer, bool and empty inputs;
- where PyTorch raises, MiniTorch raises an exception of the same kind.

The PyTorch tests skip when torch is not installed; the gradchecks always run.
"""

import numpy as np
import pytest

import minitorch
from minitorch.autograd import gradcheck

SHAPES = [(), (0,), (5,), (3, 4), (2, 3, 4)]
FLOATS = ["float32", "float64"]
# Loose enough for float32 kernels that round differently (NumPy vs PyTorch's vectorised
# ones), tight enough to catch a wrong formula.
TOLERANCE = {"float32": (2e-5, 1e-6), "float64": (1e-12, 1e-14), "float16": (1e-3, 1e-3)}
NAN = float("nan")
INF = float("inf")
SPECIAL = [NAN, INF, -INF, 0.0, -0.0, 0.5, 1.5, 2.5, -0.5, -2.5, 1e-8, -1e-8, 3.7, -3.7, 1e30]


def _torch():
    return pytest.importorskip("torch")


def _np(t):
    return t.detach().cpu().numpy()


def _same(mine, theirs, what):
    """Same shape, dtype and values (NaN where PyTorch has NaN)."""
    assert tuple(mine.shape) == tuple(theirs.shape), f"{what}: shape {tuple(mine.shape)} vs {tuple(theirs.shape)}"
    mine_dtype, their_dtype = str(mine.dtype).split(".")[-1], str(theirs.dtype).split(".")[-1]
    assert mine_dtype == their_dtype, f"{what}: dtype {mine.dtype} vs {theirs.dtype}"
    rtol, atol = TOLERANCE.get(mine_dtype, (0, 0))
    np.testing.assert_allclose(_np(mine), _np(theirs), rtol=rtol, atol=atol, equal_nan=True, err_msg=what)


def agree(fn, *arrays, grad=False, same_error=True):
    """``fn(lib, *tensors)`` on both libraries: both raise the same kind of error, or give the
    same output and (with ``grad``) the same gradient for every input. NumPy arrays become
    tensors; other arguments are passed as they are."""
    torch = _torch()
    ins = {}
    outs = {}
    errors = {}
    for lib in (minitorch, torch):
        ins[lib] = [
            lib.tensor(a, requires_grad=grad and np.asarray(a).dtype.kind == "f")
            if isinstance(a, (np.ndarray, np.generic))
            else a
            for a in arrays
        ]
        try:
            outs[lib] = fn(lib, *ins[lib])
        except Exception as exc:  # compared below
            errors[lib] = exc
    if torch in errors or minitorch in errors:
        assert torch in errors, f"only MiniTorch raised: {errors[minitorch]!r}"
        assert minitorch in errors, f"only PyTorch raised: {errors[torch]!r}"
        if same_error:
            assert isinstance(errors[minitorch], type(errors[torch])), f"error kinds differ: {errors}"
        return
    mine, theirs = outs[minitorch], outs[torch]
    if not isinstance(theirs, torch.Tensor):  # a Python value (allclose, equal, numel ...)
        assert mine == theirs and type(mine) is type(theirs), f"{mine!r} vs {theirs!r}"
        return
    _same(mine, theirs, "output")
    assert mine.requires_grad == theirs.requires_grad, "requires_grad differs"
    if grad and theirs.requires_grad:
        weights = np.linspace(-1.0, 2.0, theirs.numel()).reshape(tuple(theirs.shape))
        for lib, out in outs.items():
            (out * lib.tensor(weights, dtype=out.dtype)).sum().backward()
        for i, (m, t) in enumerate(zip(ins[minitorch], ins[torch])):
            if isinstance(t, torch.Tensor) and t.requires_grad:
                assert (m.grad is None) == (t.grad is None), f"grad of input {i}: {m.grad} vs {t.grad}"
                if t.grad is not None:
                    _same(m.grad, t.grad, f"grad of input {i}")


# ---------------------------------------------------------------------- one-input ops
def _inputs(domain, rng, shape):
    """Random values where the op is smooth: positive, moderate, or anywhere."""
    if domain == "positive":
        return rng.uniform(0.2, 3.0, shape)
    if domain == "tan":
        return rng.uniform(-1.2, 1.2, shape)
    if domain == "step":  # away from the jumps (halves and integers), where finite differences break
        return np.floor(rng.uniform(-5, 5, shape)) + rng.uniform(0.1, 0.4, shape)
    return rng.uniform(-3.0, 3.0, shape)


UNARY = {
    "round": ("step", lambda lib, x: lib.round(x)),
    "round method": ("step", lambda lib, x: x.round()),
    "round decimals=2": ("step", lambda lib, x: lib.round(x, decimals=2)),
    "round decimals=-1": ("step", lambda lib, x: x.round(decimals=-1)),
    "floor": ("step", lambda lib, x: lib.floor(x)),
    "ceil": ("step", lambda lib, x: x.ceil()),
    "trunc": ("step", lambda lib, x: lib.trunc(x)),
    "sign": ("any", lambda lib, x: lib.sign(x)),
    "reciprocal": ("positive", lambda lib, x: lib.reciprocal(x)),
    "reciprocal of negatives": ("any", lambda lib, x: x.reciprocal()),
    "square": ("any", lambda lib, x: lib.square(x)),
    "rsqrt": ("positive", lambda lib, x: lib.rsqrt(x)),
    "log2": ("positive", lambda lib, x: lib.log2(x)),
    "log10": ("positive", lambda lib, x: x.log10()),
    "expm1": ("any", lambda lib, x: lib.expm1(x)),
    "exp2": ("any", lambda lib, x: x.exp2()),
    "tan": ("tan", lambda lib, x: lib.tan(x)),
    "clip": ("any", lambda lib, x: lib.clip(x, -1.0, 0.5)),
    "clip method": ("any", lambda lib, x: x.clip(min=-1.0)),
    "clamp_min": ("any", lambda lib, x: lib.clamp_min(x, 0.3)),
    "clamp_max": ("any", lambda lib, x: x.clamp_max(-0.3)),
    "softmax": ("any", lambda lib, x: lib.softmax(x, -1) if x.ndim else lib.softmax(x, 0)),
    "log_softmax": ("any", lambda lib, x: lib.log_softmax(x, -1) if x.ndim else lib.log_softmax(x, 0)),
    "true_divide by a number": ("any", lambda lib, x: lib.true_divide(x, 3)),
}
GRADCHECK_UNARY = [name for name in UNARY if name not in ("softmax", "log_softmax", "true_divide by a number")]


@pytest.mark.parametrize("name", list(UNARY))
def test_unary_matches_pytorch_on_random_inputs(name):
    domain, fn = UNARY[name]
    rng = np.random.default_rng(0)
    for shape in SHAPES:
        if name.endswith("softmax") and 0 in shape:
            continue  # see test_softmax_of_an_empty_tensor
        for dtype in FLOATS:
            agree(fn, _inputs(domain, rng, shape).astype(dtype), grad=True)


@pytest.mark.parametrize("name", list(UNARY))
def test_unary_matches_pytorch_on_special_values(name):
    _, fn = UNARY[name]
    for dtype in FLOATS:
        agree(fn, np.array(SPECIAL, dtype=dtype), grad=True)


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_softmax_of_an_empty_tensor(op):
    agree(lambda lib, x: getattr(lib, op)(x, 0), np.zeros(0, dtype=np.float32), grad=True)


@pytest.mark.parametrize("name", list(UNARY))
def test_unary_matches_pytorch_on_integer_bool_and_half_inputs(name):
    _, fn = UNARY[name]
    # softmax refuses integers with a RuntimeError, PyTorch with a NotImplementedError (one of its kind)
    same_error = not name.endswith("softmax")
    agree(fn, np.arange(-3, 4), same_error=same_error)
    agree(fn, np.array([True, False, True]), same_error=same_error)
    if same_error:  # (PyTorch's softmax of an empty integer tensor returns before its dtype check)
        agree(fn, np.zeros((0, 2), dtype=np.int64))
    agree(fn, np.array([0.5, 1.5, -2.25, 3.0], dtype=np.float16))


@pytest.mark.parametrize("name", GRADCHECK_UNARY)
def test_unary_gradcheck(name):
    domain, fn = UNARY[name]
    rng = np.random.default_rng(1)
    for shape in [(), (4,), (2, 3)]:
        x = minitorch.tensor(_inputs(domain, rng, shape), requires_grad=True)
        assert gradcheck(lambda t: fn(minitorch, t), (x,))


@pytest.mark.parametrize("name", ["round", "floor", "ceil", "trunc", "sign"])
def test_piecewise_constant_ops_record_a_zero_gradient(name):
    # As PyTorch: the result requires grad (the op is in the graph) and the gradient is 0.
    x = minitorch.tensor([1.5, -2.5, 0.0, 0.7], requires_grad=True)
    out = getattr(minitorch, name)(x)
    assert out.requires_grad and type(out.grad_fn).__name__ == name.capitalize() + "Backward"
    (out * 3).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0, 0.0]


def test_round_is_half_to_even_and_keeps_integers():
    x = minitorch.tensor([0.5, 1.5, 2.5, -0.5, -1.5, 0.49999997])
    assert minitorch.round(x).tolist() == [0.0, 2.0, 2.0, -0.0, -2.0, 0.0]
    i = minitorch.tensor([3, -4])
    out = minitorch.round(i)
    assert out.dtype == minitorch.int64 and out.tolist() == [3, -4] and out.data is not i.data


# ---------------------------------------------------------------------- two- and three-input ops
BROADCAST_PAIRS = [
    ((3, 4), (3, 4)),
    ((3, 1), (1, 5)),
    ((2, 3, 4), (4,)),
    ((), (2, 3)),
    ((2, 1, 3), (4, 1)),
    ((0, 3), (3,)),
]


def _fmod_inputs(rng, a_shape, b_shape):
    """Divisors away from 0 (a quotient within eps of an integer, where fmod jumps, is unlikely)."""
    return rng.uniform(-3, 3, a_shape), rng.uniform(0.5, 2.0, b_shape) * rng.choice([-1.0, 1.0], b_shape)


BINARY = {
    "atan2": lambda lib, a, b: lib.atan2(a, b),
    "atan2 method": lambda lib, a, b: a.atan2(b),
    "fmod": lambda lib, a, b: lib.fmod(a, b),
    "fmod method": lambda lib, a, b: a.fmod(b),
    "lerp, weight 0.3": lambda lib, a, b: lib.lerp(a, b, 0.3),
    "lerp, weight 0.8 method": lambda lib, a, b: a.lerp(b, 0.8),
    "lerp, tensor weight": lambda lib, a, b: lib.lerp(a, b, (a * 0.1).sigmoid()),
    "true_divide": lambda lib, a, b: lib.true_divide(a, b),
    "clamp_min tensor": lambda lib, a, b: lib.clamp_min(a, b),
    "clamp_max tensor": lambda lib, a, b: a.clamp_max(b),
}


def _binary_inputs(name, rng, a_shape, b_shape):
    if name.startswith("fmod"):
        return _fmod_inputs(rng, a_shape, b_shape)
    if name.startswith("lerp"):  # lerp's output has the broadcast shape; so must start, for gradcheck
        a_shape = np.broadcast_shapes(a_shape, b_shape)
    if name.startswith("clamp"):  # x.5 against whole numbers: never a tie, where the gradient jumps
        return np.floor(rng.uniform(-3, 3, a_shape)) + 0.5, np.floor(rng.uniform(-3, 3, b_shape))
    b = rng.uniform(-3, 3, b_shape)
    if name.startswith("true_divide"):
        b = rng.uniform(0.5, 2.0, b_shape)
    return rng.uniform(-3, 3, a_shape), b


@pytest.mark.parametrize("name", list(BINARY))
def test_binary_matches_pytorch_with_broadcasting(name):
    rng = np.random.default_rng(2)
    for a_shape, b_shape in BROADCAST_PAIRS:
        for dtype in FLOATS:
            a, b = _binary_inputs(name, rng, a_shape, b_shape)
            agree(BINARY[name], a.astype(dtype), b.astype(dtype), grad=True)
            agree(BINARY[name], b.astype(dtype), a.astype(dtype), grad=True)  # the other way round


@pytest.mark.parametrize("name", list(BINARY))
def test_binary_gradcheck_with_broadcasting(name):
    rng = np.random.default_rng(3)
    for a_shape, b_shape in BROADCAST_PAIRS[:5]:
        a, b = _binary_inputs(name, rng, a_shape, b_shape)
        x, y = minitorch.tensor(a, requires_grad=True), minitorch.tensor(b, requires_grad=True)
        assert gradcheck(lambda s, t: BINARY[name](minitorch, s, t), (x, y))


def test_lerp_gradcheck_all_three_inputs_broadcast():
    rng = np.random.default_rng(4)
    start = minitorch.tensor(rng.standard_normal((2, 3)), requires_grad=True)
    end = minitorch.tensor(rng.standard_normal((3,)), requires_grad=True)
    weight = minitorch.tensor(rng.uniform(0, 1, (2, 1)), requires_grad=True)
    assert gradcheck(lambda s, e, w: minitorch.lerp(s, e, w), (start, end, weight))
    for dtype in FLOATS:
        agree(
            lambda lib, s, e, w: lib.lerp(s, e, w),
            rng.standard_normal((2, 3)).astype(dtype),
            rng.standard_normal((3,)).astype(dtype),
            np.array([[0.2], [0.7]], dtype=dtype),
            grad=True,
        )


BINARY_SPECIAL = np.array([NAN, INF, -INF, 0.0, -0.0, 1.0, -1.0, 2.5, -7.0, 1e-30])


@pytest.mark.parametrize("name", ["atan2", "fmod", "lerp, weight 0.3", "lerp, tensor weight", "true_divide"])
def test_binary_matches_pytorch_on_special_values(name):
    # Every pair of special values (the outer product), gradients included: atan2(0, 0), fmod(x, 0)...
    for dtype in FLOATS:
        a = np.repeat(BINARY_SPECIAL, len(BINARY_SPECIAL)).astype(dtype)
        b = np.tile(BINARY_SPECIAL, len(BINARY_SPECIAL)).astype(dtype)
        agree(BINARY[name], a, b, grad=True)


PROMOTION = {
    "atan2 int, int": (lambda lib, a, b: lib.atan2(a, b), np.array([1, -2, 0]), np.array([3, 0, 0])),
    "atan2 bool, bool": (lambda lib, a, b: lib.atan2(a, b), np.array([True, False]), np.array([True, True])),
    "atan2 float32, float64": (
        lambda lib, a, b: lib.atan2(a, b),
        np.array([1.0, -2.0], dtype=np.float32),
        np.array([3.0, 0.5]),
    ),
    "atan2 int, float": (lambda lib, a, b: lib.atan2(a, b), np.array([1, -2]), np.array([0.5, 0.25], np.float32)),
    "fmod int, int": (lambda lib, a, b: lib.fmod(a, b), np.array([7, -7, 7, -7]), np.array([3, 3, -3, -3])),
    "fmod int, 2": (lambda lib, a, b: lib.fmod(a, 2), np.array([7, -7, 0]), None),
    "fmod int, 2.5": (lambda lib, a, b: lib.fmod(a, 2.5), np.array([7, -7, 0]), None),
    "fmod int, True": (lambda lib, a, b: lib.fmod(a, True), np.array([7, -7, 0]), None),
    "fmod float32, float64 0-d": (
        lambda lib, a, b: lib.fmod(a, b),
        np.array([7.5, -7.5], dtype=np.float32),
        np.array(2.0),
    ),
    "fmod int, float tensor": (lambda lib, a, b: lib.fmod(a, b), np.array([7, -7]), np.array([2.5, 2.5], np.float32)),
    "fmod float, 0": (lambda lib, a, b: lib.fmod(a, 0), np.array([7.5, -0.0, 0.0], np.float32), None),
    "true_divide int, int": (lambda lib, a, b: lib.true_divide(a, b), np.array([7, -7]), np.array([2, 0])),
    "true_divide 2, int method": (lambda lib, a, b: a.true_divide(2), np.array([7, -7]), None),
    "clamp_min int, 0.5": (lambda lib, a, b: lib.clamp_min(a, 0.5), np.array([1, -2, 3]), None),
    "clamp_max int, 1": (lambda lib, a, b: lib.clamp_max(a, 1), np.array([1, -2, 3]), None),
    "clamp_min bool, 0": (lambda lib, a, b: lib.clamp_min(a, 0), np.array([True, False]), None),
    "clip int tensor bounds": (lambda lib, a, b: lib.clip(a, b, None), np.array([1, -2, 3]), np.array([0, 0, 5])),
    "lerp 0-d start": (lambda lib, a, b: lib.lerp(a, b, 0.5), np.array(1.0, np.float32), np.array([2.0], np.float32)),
    "lerp weight True": (lambda lib, a, b: lib.lerp(a, b, True), np.ones(2, np.float32), np.zeros(2, np.float32)),
    "lerp float64 0-d weight": (
        lambda lib, a, b: lib.lerp(a, a * 2, b),
        np.ones(2, np.float32),
        np.array(0.25),
    ),
    "square int": (lambda lib, a, b: lib.square(a), np.array([-3, 4]), None),
    "square bool": (lambda lib, a, b: lib.square(a), np.array([True, False]), None),
    "sign bool": (lambda lib, a, b: lib.sign(a), np.array([True, False]), None),
    "sign int": (lambda lib, a, b: a.sign(), np.array([-3, 0, 4]), None),
}


@pytest.mark.parametrize("name", list(PROMOTION))
def test_dtypes_and_promotion_match_pytorch(name):
    fn, a, b = PROMOTION[name]
    agree(fn, a, b if b is not None else np.zeros(1))


# ---------------------------------------------------------------------- where PyTorch raises
RAISES = {
    "round(bool)": lambda lib: lib.round(lib.tensor([True])),
    "floor(bool)": lambda lib: lib.floor(lib.tensor([True])),
    "ceil(bool)": lambda lib: lib.tensor([True]).ceil(),
    "trunc(bool)": lambda lib: lib.trunc(lib.tensor([True])),
    "round(int, decimals=1)": lambda lib: lib.round(lib.tensor([1, 2]), decimals=1),
    "round(x, decimals=0.5)": lambda lib: lib.round(lib.ones(2), decimals=0.5),
    "round(x, 2) positional decimals": lambda lib: lib.round(lib.ones(2), 2),
    "atan2(x, 2)": lambda lib: lib.atan2(lib.ones(2), 2),
    "atan2(2, x)": lambda lib: lib.atan2(2, lib.ones(2)),
    "atan2 shapes": lambda lib: lib.atan2(lib.ones(2), lib.ones(3)),
    "fmod(int, 0)": lambda lib: lib.fmod(lib.tensor([1, 2]), 0),
    "fmod(int, int tensor with a 0)": lambda lib: lib.fmod(lib.tensor([1, 2]), lib.tensor([1, 0])),
    "fmod(bool, bool)": lambda lib: lib.fmod(lib.tensor([True]), lib.tensor([True])),
    "fmod(2, x)": lambda lib: lib.fmod(2, lib.ones(2)),
    "fmod shapes": lambda lib: lib.fmod(lib.ones(2), lib.ones(3)),
    "lerp(int, int)": lambda lib: lib.lerp(lib.tensor([1]), lib.tensor([2]), 0.5),
    "lerp float32 start, float64 end": lambda lib: lib.lerp(lib.ones(2), lib.ones(2, dtype=lib.float64), 0.5),
    "lerp float64 shaped weight": lambda lib: lib.lerp(lib.ones(2), lib.ones(2), lib.ones(2, dtype=lib.float64)),
    "lerp(x, 1.0, 0.5)": lambda lib: lib.lerp(lib.ones(2), 1.0, 0.5),
    "lerp shapes": lambda lib: lib.lerp(lib.ones(2), lib.ones(3), 0.5),
    "clamp_min(bool, True)": lambda lib: lib.clamp_min(lib.tensor([True]), True),
    "clip() with no bound": lambda lib: lib.clip(lib.ones(2)),
    "reciprocal(3)": lambda lib: lib.reciprocal(3),
    "square(list)": lambda lib: lib.square([1, 2]),
    "isnan(1.0)": lambda lib: lib.isnan(1.0),
    "logical_xor(x, 0)": lambda lib: lib.logical_xor(lib.ones(2), 0),
    "logical_and shapes": lambda lib: lib.logical_and(lib.ones(2), lib.ones(3)),
    "lt(2, x)": lambda lib: lib.lt(2, lib.ones(2)),
    "allclose float32 vs float64": lambda lib: lib.allclose(lib.ones(2), lib.ones(2, dtype=lib.float64)),
    "isclose float32 vs float64": lambda lib: lib.isclose(lib.ones(2), lib.ones(2, dtype=lib.float64)),
    "allclose(x, 1.0)": lambda lib: lib.allclose(lib.ones(2), 1.0),
    "allclose shapes": lambda lib: lib.allclose(lib.ones(3), lib.ones(2)),
    "isclose rtol < 0": lambda lib: lib.isclose(lib.ones(2), lib.ones(2), rtol=-1),
    "isclose atol < 0": lambda lib: lib.isclose(lib.ones(2), lib.ones(2), atol=-1),
    "equal(x, 1)": lambda lib: lib.equal(lib.ones(1), 1),
    "numel(list)": lambda lib: lib.numel([1]),
    "is_floating_point(1.0)": lambda lib: lib.is_floating_point(1.0),
}


@pytest.mark.parametrize("name", list(RAISES))
def test_raises_where_pytorch_raises(name):
    agree(lambda lib: RAISES[name](lib))
    with pytest.raises(Exception):  # (agree accepts "neither raises": make sure both did)
        RAISES[name](minitorch)


# ---------------------------------------------------------------------- tests, logic, comparisons
TESTS = {
    "isnan": lambda lib, a, b: lib.isnan(a),
    "isinf method": lambda lib, a, b: a.isinf(),
    "isfinite": lambda lib, a, b: lib.isfinite(a),
    "logical_not": lambda lib, a, b: lib.logical_not(a),
    "logical_and": lambda lib, a, b: lib.logical_and(a, b),
    "logical_or method": lambda lib, a, b: a.logical_or(b),
    "logical_xor": lambda lib, a, b: lib.logical_xor(a, b),
    "lt": lambda lib, a, b: lib.lt(a, b),
    "le": lambda lib, a, b: lib.le(a, b),
    "gt": lambda lib, a, b: lib.gt(a, b),
    "ge": lambda lib, a, b: lib.ge(a, b),
    "eq": lambda lib, a, b: lib.eq(a, b),
    "ne": lambda lib, a, b: lib.ne(a, b),
    "lt number": lambda lib, a, b: lib.lt(a, 0.5),
    "eq number": lambda lib, a, b: lib.eq(a, 0),
    "isclose": lambda lib, a, b: lib.isclose(a, b),
    "isclose method, equal_nan": lambda lib, a, b: a.isclose(b, rtol=0.1, atol=0.5, equal_nan=True),
    "allclose": lambda lib, a, b: lib.allclose(a, b),
    "allclose method, equal_nan": lambda lib, a, b: a.allclose(b, equal_nan=True),
    "allclose loose": lambda lib, a, b: lib.allclose(a, b, rtol=10.0, atol=10.0),
    "equal": lambda lib, a, b: lib.equal(a, b),
    "equal method": lambda lib, a, b: a.equal(b),
    "equal to itself": lambda lib, a, b: lib.equal(a, a),
    "numel": lambda lib, a, b: lib.numel(a),
    "is_tensor": lambda lib, a, b: lib.is_tensor(a),
    "is_tensor(array)": lambda lib, a, b: lib.is_tensor(a.detach().numpy()),
    "is_floating_point": lambda lib, a, b: lib.is_floating_point(a),
}
SAME_DTYPE_ONLY = ("isclose", "allclose")


def _test_inputs(rng):
    """Pairs of inputs: random, special values, integers, bools, empty, broadcasting."""
    specials = np.array([NAN, INF, -INF, 0.0, -0.0, 1.0, 1.0 + 1e-7, -2.5])
    pairs = [
        (rng.standard_normal((3, 4)), rng.standard_normal((3, 4))),
        (rng.standard_normal((2, 3)).astype(np.float32), rng.standard_normal((3,)).astype(np.float32)),
        (specials, specials[::-1].copy()),
        (specials.astype(np.float32), specials.astype(np.float32)),
        (np.arange(-3, 3), np.array([0, 1, 1, -3, 2, 0])),
        (np.array([True, False, True]), np.array([True, True, False])),
        (np.zeros((0, 3)), np.zeros((3,))),
        (np.array(2.0), np.array([2.0, 1.0])),
        (np.arange(-2, 2), rng.standard_normal(4)),  # mixed dtypes (refused by isclose/allclose)
    ]
    return pairs


@pytest.mark.parametrize("name", list(TESTS))
def test_tests_and_logic_match_pytorch(name):
    rng = np.random.default_rng(5)
    for a, b in _test_inputs(rng):
        agree(TESTS[name], a, b)


@pytest.mark.parametrize("name", ["isnan", "logical_and", "lt", "isclose"])
def test_bool_results_are_never_in_the_graph(name):
    x = minitorch.tensor([1.0, NAN, 3.0], requires_grad=True)
    out = TESTS[name](minitorch, x, x * 2)
    assert out.dtype == minitorch.bool and not out.requires_grad and out.grad_fn is None


# ---------------------------------------------------------------------- in-place methods
INPLACE = {
    "clamp_": (lambda t: t.clamp_(-0.5, 1.0), lambda t: t.clamp(-0.5, 1.0)),
    "clamp_ min only": (lambda t: t.clamp_(min=0.2), lambda t: t.clamp(min=0.2)),
    "clip_": (lambda t: t.clip_(max=0.2), lambda t: t.clip(max=0.2)),
    "exp_": (lambda t: t.exp_(), lambda t: t.exp()),
    "log_": (lambda t: t.log_(), lambda t: t.log()),
    "sqrt_": (lambda t: t.sqrt_(), lambda t: t.sqrt()),
    "abs_": (lambda t: t.abs_(), lambda t: t.abs()),
    "neg_": (lambda t: t.neg_(), lambda t: t.neg()),
    "pow_ 2": (lambda t: t.pow_(2), lambda t: t.pow(2)),
    "pow_ 0.5": (lambda t: t.pow_(0.5), lambda t: t.pow(0.5)),
    "relu_": (lambda t: t.relu_(), lambda t: t.relu()),
    "sigmoid_": (lambda t: t.sigmoid_(), lambda t: t.sigmoid()),
    "tanh_": (lambda t: t.tanh_(), lambda t: t.tanh()),
}


def _masked_fill_(lib, t):
    return t.masked_fill_(t > 0.5, -1.0)


@pytest.mark.parametrize("name", list(INPLACE))
def test_inplace_matches_pytorch_and_returns_self(name):
    inplace, _ = INPLACE[name]
    rng = np.random.default_rng(6)
    for shape in SHAPES:
        for dtype in FLOATS:
            values = rng.uniform(-2, 2, shape).astype(dtype)
            if name.startswith(("log", "sqrt", "pow_ 0.5")):
                values = np.abs(values) + 0.1

            def fn(lib, x):
                t = x.clone()
                out = inplace(t)
                assert out is t
                return t

            agree(fn, values)


@pytest.mark.parametrize("name", list(INPLACE))
def test_inplace_on_a_graph_tensor_records_the_op(name):
    # y = x * 1 is not a leaf: the in-place op is recorded as y's new grad_fn, and gradients
    # flow back through it to x, as in PyTorch.
    inplace, out_of_place = INPLACE[name]
    rng = np.random.default_rng(7)
    for dtype in FLOATS:
        values = np.abs(rng.uniform(-2, 2, (3, 4))).astype(dtype) + 0.1
        values[0] *= -1  # some negatives for abs/relu/clamp (log/sqrt: NaN on both sides)

        def fn(lib, x):
            y = x * 1
            version = y._version
            assert inplace(y) is y
            assert y._version == version + 1
            return y

        agree(fn, values, grad=True)
        x = minitorch.tensor(np.abs(values) + 0.2, dtype=minitorch.float64, requires_grad=True)
        assert gradcheck(lambda t: inplace(t * 1), (x,))
        assert gradcheck(lambda t: out_of_place(t), (x,))


def test_masked_fill_inplace_matches_pytorch():
    rng = np.random.default_rng(8)
    for dtype in FLOATS:
        values = rng.uniform(-2, 2, (3, 4)).astype(dtype)
        agree(lambda lib, x: _masked_fill_(lib, x.clone()), values)
        agree(lambda lib, x: _masked_fill_(lib, x * 1), values, grad=True)
        agree(lambda lib, x: (x * 1).masked_fill_(lib.tensor([True, False, False, True]), 2.0), values, grad=True)
    agree(lambda lib, x: x.clone().masked_fill_(x > 0, 5), np.arange(-2, 3))
    agree(lambda lib, x: x.clone().masked_fill_(x.float(), 5), np.arange(-2, 3))  # a float mask is refused


INPLACE_RAISES = {
    "exp_ of a leaf that requires grad": lambda lib: lib.ones(2, requires_grad=True).exp_(),
    "clamp_ of a leaf that requires grad": lambda lib: lib.ones(2, requires_grad=True).clamp_(0),
    "masked_fill_ of a leaf that requires grad": lambda lib: lib.ones(2, requires_grad=True).masked_fill_(
        lib.tensor([True, False]), 0.0
    ),
    "normal_ of a leaf that requires grad": lambda lib: lib.ones(2, requires_grad=True).normal_(),
    "uniform_ of a leaf that requires grad": lambda lib: lib.ones(2, requires_grad=True).uniform_(),
    "exp_ of int": lambda lib: lib.tensor([1, 2]).exp_(),
    "sigmoid_ of int": lambda lib: lib.tensor([1, 2]).sigmoid_(),
    "sqrt_ of int": lambda lib: lib.tensor([1, 2]).sqrt_(),
    "clamp_ of int with a float bound": lambda lib: lib.tensor([1, 2]).clamp_(0.5),
    "pow_ of int by 2.0": lambda lib: lib.tensor([1, 2]).pow_(2.0),
    "pow_ of int by -1": lambda lib: lib.tensor([1, 2]).pow_(-1),
    "neg_ of bool": lambda lib: lib.tensor([True]).neg_(),
    "relu_ of bool": lambda lib: lib.tensor([True]).relu_(),
    "normal_ of int": lambda lib: lib.tensor([1, 2]).normal_(),
    "uniform_ of int": lambda lib: lib.tensor([1, 2]).uniform_(),
    "normal_ with std < 0": lambda lib: lib.zeros(2).normal_(0, -1),
    "uniform_ with from > to": lambda lib: lib.zeros(2).uniform_(1, 0),
    "backward after a saved output changed in place": lambda lib: _saved_then_changed(lib),
}


def _saved_then_changed(lib):
    x = lib.ones(2, requires_grad=True)
    y = x.sigmoid()  # saves its output for backward
    y.exp_()
    y.sum().backward()


@pytest.mark.parametrize("name", list(INPLACE_RAISES))
def test_inplace_raises_where_pytorch_raises(name):
    agree(lambda lib: INPLACE_RAISES[name](lib))
    with pytest.raises(Exception):
        INPLACE_RAISES[name](minitorch)


INPLACE_OK = {
    "abs_ of int": lambda lib: lib.tensor([1, -2]).abs_(),
    "relu_ of int": lambda lib: lib.tensor([1, -2]).relu_(),
    "clamp_ of int with int bounds": lambda lib: lib.tensor([1, -2, 5]).clamp_(0, 3),
    "pow_ of int by 2": lambda lib: lib.tensor([1, -2]).pow_(2),
    "pow_ float32 by float64 tensor": lambda lib: lib.tensor([1.5, 2.0]).pow_(
        lib.tensor([2.0, 0.5], dtype=lib.float64)
    ),
    "neg_ of int": lambda lib: lib.tensor([1, -2]).neg_(),
    "exp_ of empty": lambda lib: lib.zeros(0, 3).exp_(),
    "uniform_(0, 0)": lambda lib: lib.ones(3).uniform_(0, 0),
    "normal_(2, 0)": lambda lib: lib.ones(3).normal_(2, 0),
}


@pytest.mark.parametrize("name", list(INPLACE_OK))
def test_inplace_dtypes_match_pytorch(name):
    agree(lambda lib: INPLACE_OK[name](lib))


def test_inplace_on_a_leaf_is_allowed_under_no_grad():
    x = minitorch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
    with minitorch.no_grad():
        assert x.clamp_(0, 1) is x
        x.mul_(2)
    assert x.tolist() == [0.0, 1.0, 2.0] and x.requires_grad and x.grad_fn is None


def test_inplace_change_is_seen_by_views():
    x = minitorch.tensor([[1.0, -2.0], [3.0, -4.0]])
    row = x[0]
    x.abs_()
    assert row.tolist() == [1.0, 2.0]


# ---------------------------------------------------------------------- random fills
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_normal_and_uniform_fill_repeatably_in_the_tensor_dtype(dtype):
    for fill in (lambda t: t.normal_(1.0, 2.0), lambda t: t.uniform_(-1.0, 3.0)):
        minitorch.manual_seed(0)
        a = minitorch.zeros(4, 3, dtype=getattr(minitorch, dtype))
        assert fill(a) is a
        minitorch.manual_seed(0)
        b = fill(minitorch.zeros(4, 3, dtype=getattr(minitorch, dtype)))
        assert a.dtype == getattr(minitorch, dtype) and a.tolist() == b.tolist()


def test_normal_and_uniform_have_the_right_distribution():
    minitorch.manual_seed(1)
    n = minitorch.empty(20000).normal_(3.0, 0.5)
    assert abs(n.mean().item() - 3.0) < 0.02 and abs(n.std().item() - 0.5) < 0.02
    u = minitorch.empty(20000).uniform_(-2.0, 4.0)
    assert -2.0 <= u.min().item() and u.max().item() < 4.0
    assert abs(u.mean().item() - 1.0) < 0.05
    default = minitorch.empty(20000).uniform_()
    assert 0.0 <= default.min().item() and default.max().item() < 1.0


def test_random_fill_of_a_graph_tensor_gives_a_zero_gradient():
    # As PyTorch (NormalBackward0): the old values are gone, so the gradient to them is 0.
    for fill in (lambda t: t.normal_(), lambda t: t.uniform_(0, 1)):
        torch = _torch()
        outs = []
        for lib in (minitorch, torch):
            x = lib.ones(3, requires_grad=True)
            y = x * 2
            fill(y)  # y's values are random (each library's own generator): compare gradients only
            (y * 3).sum().backward()
            outs.append(x.grad.tolist())
        assert outs[0] == outs[1] == [0.0, 0.0, 0.0]
