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
            expected = t_in[i].grad.numpy() if t_in[i].grad is not None else np.zeros(t_in[i].shape)
            np.testing.assert_allclose(m_in[i].grad.numpy(), expected, rtol=1e-6)


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
