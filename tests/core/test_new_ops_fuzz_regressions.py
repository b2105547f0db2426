"""Regressions found by a random differential fuzzer of the new ops against PyTorch.

Each test runs one call in both libraries: both raise (with a compatible exception class),
or both return the same shape, dtype, values and gradients.
"""

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch")


def _make(lib, value, requires_grad=False):
    """A tensor of ``lib`` (minitorch or torch) holding the NumPy array ``value``."""
    array = np.asarray(value)
    if lib is torch:
        return torch.from_numpy(array.copy()).requires_grad_(requires_grad)
    return minitorch.tensor(array.copy(), requires_grad=requires_grad)


def _same(fn, *values, grad=()):
    """fn(lib, *tensors) in both libraries: same exception class, or same result and gradients.

    ``grad`` holds the positions of the float inputs that require grad.
    """
    outs = {}
    for lib in (torch, minitorch):
        inputs = [_make(lib, v, i in grad) for i, v in enumerate(values)]
        try:
            outs[lib] = (fn(lib, *inputs), inputs)
        except Exception as exc:  # noqa: BLE001 - the class is what is compared
            outs[lib] = (exc, inputs)
    (theirs, t_in), (mine, m_in) = outs[torch], outs[minitorch]
    if isinstance(theirs, Exception):
        kind = next(k for k in (IndexError, TypeError, NotImplementedError, RuntimeError) if isinstance(theirs, k))
        assert isinstance(mine, kind), f"torch raised {theirs!r}, minitorch gave {mine!r}"
        return
    assert not isinstance(mine, Exception), f"minitorch raised {mine!r}, torch did not"
    assert tuple(mine.shape) == tuple(theirs.shape)
    assert str(mine.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    np.testing.assert_allclose(mine.detach().numpy(), theirs.detach().numpy(), rtol=1e-6, equal_nan=True)
    if grad:
        weights = np.random.default_rng(0).standard_normal(tuple(theirs.shape))
        (theirs * torch.from_numpy(weights).to(theirs.dtype)).sum().backward()
        (mine * minitorch.tensor(weights.astype(mine.detach().numpy().dtype))).sum().backward()
        for i in grad:
            expected, got = (t.grad.numpy() if t.grad is not None else np.zeros(t.shape) for t in (t_in[i], m_in[i]))
            np.testing.assert_allclose(got, expected, rtol=1e-6)


F32 = np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5


def test_topk_checks_dim_before_refusing_bool():
    _same(lambda L, x: L.topk(x, 1, dim=3), np.ones((3, 1), bool))


@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
def test_running_ops_refuse_integer_dtype_for_input_that_needs_grad(op):
    _same(lambda L, x: getattr(L, op)(x, 0, dtype=L.int64), F32, grad=(0,))
    _same(lambda L, x: getattr(L, op)(x, 5, dtype=L.int64), F32, grad=(0,))  # the dim error first
    with minitorch.no_grad():
        assert getattr(minitorch, op)(minitorch.tensor(F32, requires_grad=True), 0, dtype=minitorch.int64).dtype == (
            minitorch.int64
        )


def test_prod_refuses_integer_dtype_for_input_that_needs_grad():
    _same(lambda L, x: L.prod(x, dtype=L.int64), F32, grad=(0,))
    _same(lambda L, x: L.prod(x, -3, dtype=L.int64), F32, grad=(0,))  # the dim error first
    _same(lambda L, x: L.prod(x, 1, dtype=L.float64), F32, grad=(0,))


@pytest.mark.parametrize("p", [-1, -0.5, -2])
def test_norm_with_negative_p_over_an_empty_dim_raises(p):
    empty = np.zeros((0, 3))
    _same(lambda L, x: L.norm(x, p), empty)
    _same(lambda L, x: L.norm(x, p, dim=0), empty)
    _same(lambda L, x: L.norm(x, p, dim=1), empty)  # reduces size-3 rows: an empty result, no error


def test_roll_of_an_empty_tensor_does_not_check_dims():
    _same(lambda L, x: L.roll(x, 6, 2), np.zeros((1, 0)), grad=(0,))
    _same(lambda L, x: L.roll(x, (-5, 2), (-6, 0)), np.zeros((4, 0, 2)), grad=(0,))


@pytest.mark.parametrize("index_shape", [(2, 0, 2), (0, 5), (3, 0)])
def test_gather_with_an_empty_index_returns_its_shape(index_shape):
    _same(lambda L, x, i: L.gather(x, 0, i), F32, np.zeros(index_shape, np.int64), grad=(0,))


@pytest.mark.parametrize(("shape", "dim"), [((0, 3), 0), ((0, 3), 1), ((3, 0), 1), ((0, 0), 0), ((2, 0, 3), 1)])
def test_unique_along_a_dim_with_empty_dims(shape, dim):
    _same(lambda L, x: L.unique(x, dim=dim, return_inverse=True)[1], np.zeros(shape))


def test_narrow_error_order():
    _same(lambda L, x: L.narrow(x, -2, 2, 2), np.float32(1.0))  # 0-d: RuntimeError, not a dim error
    _same(lambda L, x: L.narrow(x, -5, 1, -1), np.ones((1, 3, 3)))  # negative length before dim


def test_fmod_with_a_bool_divisor_and_empty_integer_division():
    _same(lambda L, x, b: L.fmod(x, b), F32, np.array(True), grad=(0,))
    _same(lambda L, x, b: L.fmod(x, b), np.array([True, False]), np.array(True))  # bool by bool refused
    _same(lambda L, x, b: L.fmod(x, b), np.zeros((1, 0, 4), np.int64), np.arange(4))  # 0 divisor, nothing divided
    _same(lambda L, x, b: L.fmod(x, b), np.ones(4, np.int64), np.arange(4))  # ZeroDivisionError as RuntimeError


def test_clip_refuses_a_tensor_bound_mixed_with_a_number():
    _same(lambda L, x, hi: L.clip(x, 0, hi), F32, np.ones((2, 1), np.float32))
    _same(lambda L, x, hi: L.clip(x, -1, hi), F32, np.float32(1.0), grad=(1,))  # 0-d but needs grad
    _same(lambda L, x, hi: L.clip(x, 0, hi), F32, np.float32(1.0))  # 0-d, no grad: read as a number
    _same(lambda L, x, lo, hi: L.clip(x, lo, hi), F32, np.float32(-1), np.ones(3, np.float32), grad=(0,))


def test_clamp_min_and_max_of_bool_by_a_bool_tensor():
    flags = np.array([True, False])
    _same(lambda L, x, b: L.clamp_min(x, b), flags, np.array(True))
    _same(lambda L, x, b: L.clamp_max(x, b), flags, np.array([False, True]))
    _same(lambda L, x: L.clamp_min(x, True), flags)  # a Python bool bound: no kernel in PyTorch


def test_clamp_inplace_bounds_and_result_dtype():
    _same(lambda L, x, lo: x.clamp_(lo, 3), F32, np.float32(0))  # 0-d no-grad bound with a number: ok
    _same(lambda L, x, lo: x.clamp_(lo, 3), F32, np.zeros(3, np.float32))  # shaped bound with a number
    _same(lambda L, x: x.clamp_(None, 3), np.ones(3, bool))  # int64 result into a bool tensor
    _same(lambda L, x, lo: x.clamp_(lo), np.arange(3), np.float32(0.5))  # float result into int64


def test_pow_inplace_refuses_an_integer_result_for_a_bool_tensor():
    _same(lambda L, x, e: x.pow_(e), np.ones((2, 1), bool), np.arange(2).reshape(2, 1))


X = np.arange(12, dtype=np.float32).reshape(3, 4) - 5.5
V = np.arange(4, dtype=np.float32)
I = np.array([0, 2], dtype=np.int64)

# PyTorch's argument names: code calls torch.sort(input=x, ...), torch.dot(x, tensor=y) ...
KEYWORD_CALLS = {
    "sort": lambda L, x, v, i: L.sort(input=x, dim=0, descending=True).values,
    "argsort": lambda L, x, v, i: L.argsort(input=x, dim=0, descending=True),
    "topk": lambda L, x, v, i: L.topk(input=x, k=2, dim=0, largest=False).values,
    "cumsum": lambda L, x, v, i: L.cumsum(input=x, dim=1),
    "prod": lambda L, x, v, i: L.prod(input=x, dim=1, keepdim=True),
    "norm": lambda L, x, v, i: L.norm(input=x, p=3, dim=1),
    "flip": lambda L, x, v, i: L.flip(input=x, dims=(0,)),
    "roll": lambda L, x, v, i: L.roll(input=x, shifts=1, dims=0),
    "gather": lambda L, x, v, i: L.gather(input=x, dim=1, index=L.stack([i, i, i])),
    "index_select": lambda L, x, v, i: L.index_select(input=x, dim=0, index=i),
    "scatter": lambda L, x, v, i: L.scatter(input=x, dim=0, index=i.reshape(2, 1), value=1.5),
    "narrow": lambda L, x, v, i: L.narrow(input=x, dim=0, start=1, length=2),
    "select": lambda L, x, v, i: L.select(input=x, dim=0, index=1),
    "movedim": lambda L, x, v, i: L.movedim(input=x, source=0, destination=1),
    "tile": lambda L, x, v, i: L.tile(input=x, dims=(2,)),
    "diag": lambda L, x, v, i: L.diag(input=x, diagonal=1),
    "outer": lambda L, x, v, i: L.outer(input=v, vec2=v),
    "dot": lambda L, x, v, i: L.dot(input=v, tensor=v),
    "broadcast_to": lambda L, x, v, i: L.broadcast_to(input=v, size=(2, 4)),
    "round": lambda L, x, v, i: L.round(input=x, decimals=1),
    "square": lambda L, x, v, i: L.square(input=x),
    "atan2": lambda L, x, v, i: L.atan2(input=x, other=v),
    "lerp": lambda L, x, v, i: L.lerp(input=x, end=v, weight=0.3),
    "fmod": lambda L, x, v, i: L.fmod(input=x, other=2.0),
    "clip": lambda L, x, v, i: L.clip(input=x, min=-1, max=1),
    "clamp_min": lambda L, x, v, i: L.clamp_min(input=x, min=-1),
    "true_divide": lambda L, x, v, i: L.true_divide(input=x, other=2),
    "isnan": lambda L, x, v, i: L.isnan(input=x),
    "logical_and": lambda L, x, v, i: L.logical_and(input=x, other=v),
    "lt": lambda L, x, v, i: L.lt(input=x, other=0),
    "isclose": lambda L, x, v, i: L.isclose(input=x, other=v, rtol=1e-3, atol=0.0, equal_nan=True),
}


@pytest.mark.parametrize("name", sorted(KEYWORD_CALLS))
def test_functions_take_pytorchs_argument_names(name):
    _same(
        KEYWORD_CALLS[name],
        X,
        V,
        I,
        grad=(0, 1) if name not in ("argsort", "isnan", "logical_and", "lt", "isclose") else (),
    )


@pytest.mark.parametrize("name", ["allclose", "equal"])
def test_allclose_and_equal_take_pytorchs_argument_names(name):
    for lib in (torch, minitorch):
        x = _make(lib, X)
        assert getattr(lib, name)(input=x, other=x) is True


def test_repeat_interleave_output_size_and_the_counts_only_form():
    _same(lambda L, x: L.repeat_interleave(x, 2, dim=0, output_size=6), X, grad=(0,))
    _same(lambda L, x: L.repeat_interleave(x, 2, dim=-1, output_size=5), X)  # wrong size: RuntimeError
    _same(lambda L, c: L.repeat_interleave(c), np.array([1, 2, 0, 3]))  # [0, 1, 1, 3, 3, 3]
    _same(lambda L, c: L.repeat_interleave(c), np.array(2))  # 0-d counts refused
    _same(lambda L, c: L.repeat_interleave(c), np.array([1.0, 2.0]))  # float counts: NotImplementedError


@pytest.mark.parametrize("p", [float("inf"), float("-inf")])
def test_inf_norms_share_the_gradient_among_ties_and_give_zero_at_nan(p):
    ties = np.array([[2.0, -2.0, 1.0], [0.0, -1.0, 1.0]])
    _same(lambda L, x: L.norm(x, p, dim=1, keepdim=True), ties, grad=(0,))
    _same(lambda L, x: L.norm(x, p, dim=0), ties, grad=(0,))
    _same(lambda L, x: L.norm(x, p), np.array([np.nan, 1.0, -2.0]), grad=(0,))  # NaN norm, zero gradients
    _same(lambda L, x: L.norm(x, p, dim=0), np.zeros((0, 3)))  # nothing to take the max of: raises


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int64"])
def test_norm_dtype_never_narrows(dtype):
    _same(lambda L, x: L.norm(x, dtype=getattr(L, dtype)), X, grad=(0,))
    _same(lambda L, x: L.norm(x, 3, dim=0, dtype=getattr(L, dtype)), X.astype(np.float64), grad=(0,))


INF, NAN = float("inf"), float("nan")


@pytest.mark.parametrize(
    "values",
    [[1.0, 0.0, NAN, 2.0], [0.0, 0.0, INF, INF], [0.0, INF, 0.0], [0.5, 0.0, 0.0, 1.0], [INF], [NAN, -2.0, INF, 0.0]],
)
def test_cumprod_and_prod_gradients_with_zeros_beside_inf_and_nan(values):
    x = np.array(values)
    _same(lambda L, a: L.cumprod(a, 0), x, grad=(0,))
    _same(lambda L, a: L.prod(a), x, grad=(0,))
    _same(lambda L, a: L.prod(a, 0), x, grad=(0,))
    _same(lambda L, a: L.cumprod(a, 1), x.reshape(-1, 1), grad=(0,))  # one element per slice: grad passes


def test_prod_along_a_dim_uses_the_zero_safe_products_once_any_element_is_zero():
    x = np.array([[NAN, -2.0, INF, 0.0], [0.0, 0.5, INF, INF], [1.0, 2.0, 3.0, 4.0]])
    _same(lambda L, a: L.prod(a, -1), x, grad=(0,))
    _same(lambda L, a: L.prod(a, 0, keepdim=True), np.array([[1.0, NAN], [0.0, 1.0]]), grad=(0,))
    _same(lambda L, a: L.prod(a), np.array(NAN), grad=(0,))


def test_empty_argument_lists_raise_runtime_errors():
    _same(lambda L, x: L.roll(x, [], []), X)
    _same(lambda L, x: L.hstack([]), X)
    _same(lambda L, x: L.vstack(()), X)


def test_functions_refuse_what_is_not_a_tensor_or_number():
    _same(lambda L, x: L.eq(x, None), V)
    _same(lambda L, x: L.lt(x, [1.0, 2.0, 3.0, 4.0]), V)
    _same(lambda L, x: L.ge(x, 2), V)  # a number is fine
    _same(lambda L, x: L.dot(x, 2.0), V)
    _same(lambda L, x: L.outer(3, x), V)
