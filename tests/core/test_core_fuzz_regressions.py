"""Regressions from a differential fuzz of the core ops against PyTorch.

Each case runs the same ``fn(lib, *tensors)`` on MiniTorch and on torch and compares the
outcome: both raise (with a compatible class), or same values, dtype, shape and gradients.
"""

import warnings

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch")


def _run(lib, fn, arrays):
    xs = [lib.tensor(np.array(a), requires_grad=np.asarray(a).dtype.kind == "f") for a in arrays]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = fn(lib, *xs)
        if out.requires_grad:
            weights = np.linspace(-1.0, 2.0, max(out.numel(), 1))[: out.numel()].reshape(tuple(out.shape))
            (out * lib.tensor(weights.astype(str(out.dtype).split(".")[-1]))).sum().backward()
    return out, [x.grad for x in xs]


def same(fn, *arrays):
    """fn gives the same result and input gradients in MiniTorch as in torch."""
    theirs, their_grads = _run(torch, fn, arrays)
    mine, my_grads = _run(minitorch, fn, arrays)
    assert tuple(mine.shape) == tuple(theirs.shape)
    assert str(mine.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    assert mine.requires_grad == theirs.requires_grad
    np.testing.assert_allclose(mine.detach().numpy(), theirs.detach().numpy(), rtol=1e-6, equal_nan=True)
    for m, t in zip(my_grads, their_grads):
        assert (m is None) == (t is None)
        if t is not None:
            assert tuple(m.shape) == tuple(t.shape)
            np.testing.assert_allclose(m.numpy(), t.numpy(), rtol=1e-6, equal_nan=True)


def both_raise(fn, *arrays, error=RuntimeError):
    """torch raises ``error`` for fn, and so does MiniTorch."""
    with pytest.raises(error):
        _run(torch, fn, arrays)
    with pytest.raises(error):
        _run(minitorch, fn, arrays)


def _set(index_fn):
    """t[index] = v on a non-leaf copy of t, returned."""

    def fn(lib, a, v):
        b = a * 1
        b[index_fn(lib, a)] = v
        return b

    return fn


# ---------------------------------------------------------------- arithmetic
A = np.array([[5.0, -7.0, 3.5], [-2.5, 4.0, 9.0]])
B = np.array([2.0, 2.0, -1.5])


def test_remainder_is_differentiable_like_torch():
    same(lambda lib, a, b: a % b, A, B)
    same(lambda lib, a, b: lib.remainder(a, b), A, B)
    same(lambda lib, a: a % 2.5, A)


def test_floor_divide_and_number_remainder_record_but_have_no_derivative():
    same(lambda lib, a: (a // 2).detach(), A)
    for fn in (lambda lib, a, b: a // b, lambda lib, a: 3 % a):
        args = (A, B) if fn.__code__.co_argcount == 3 else (A,)
        theirs = fn(torch, *[torch.tensor(x, requires_grad=True) for x in args])
        mine = fn(minitorch, *[minitorch.tensor(x, requires_grad=True) for x in args])
        assert mine.requires_grad and theirs.requires_grad
        with pytest.raises(RuntimeError):
            theirs.sum().backward()
        with pytest.raises(RuntimeError):
            mine.sum().backward()


def test_floor_divide_and_remainder_errors():
    bools = np.array([True, False, True])
    both_raise(lambda lib, a, b: a // b, bools, bools, error=NotImplementedError)
    both_raise(lambda lib, a: a % True, bools, error=NotImplementedError)
    both_raise(lambda lib, a, b: a % b, np.ones((2, 3)), np.ones((2,)))  # RuntimeError, not ValueError


def test_neg_of_bool_is_a_runtime_error():
    both_raise(lambda lib, a: -a, np.array([True, False]))


def test_pow_minus_half_is_rsqrt_as_torch():
    same(lambda lib, a: a**-0.5, np.array([-0.0, -np.inf, 4.0, 0.0]))


# ---------------------------------------------------------------- reductions
def test_max_min_without_dim_send_a_nan_result_gradient_to_the_nans():
    x = np.array([[1.0, np.nan], [3.0, np.nan]])
    same(lambda lib, a: a.max(), x)
    same(lambda lib, a: a.min(), x)
    same(lambda lib, a: a.amax(), x)  # amax: NaN gradients, as torch
    same(lambda lib, a: a.max(), np.array([1.0, 3.0, 3.0]))


@pytest.mark.parametrize("correction", [0, 1, 2, 3])
def test_var_std_gradient_without_degrees_of_freedom(correction):
    for x in (np.array([1.0, 3.0]), np.array([[1.0, 3.0]]), np.array([2.0, 2.0]), np.array(1.5)):
        same(lambda lib, a: a.var(correction=correction), x)
        same(lambda lib, a: a.std(correction=correction), x)
        same(lambda lib, a: lib.var(a, dim=0, correction=correction), x)


def test_extreme_over_an_empty_dim_is_an_index_error():
    x = np.zeros((0, 2))
    for name in ("amax", "amin", "max", "min"):
        both_raise(lambda lib, a, name=name: getattr(a, name)(0), x, error=IndexError)


# ---------------------------------------------------------------- shape and indexing
def test_cat_skips_empty_1d_tensors_but_gives_them_a_gradient():
    same(lambda lib, a, b: lib.cat([a, b], dim=1), np.ones((2, 2)), np.ones(0))
    same(lambda lib, a, b: lib.cat([b, a], dim=-1), np.ones((2, 2)), np.ones(0))
    same(lambda lib, a, b: lib.cat([a, b], dim=1), np.ones(0), np.ones(0))


def test_squeeze_refuses_a_repeated_dim():
    both_raise(lambda lib, a: a.squeeze((1, -1)), np.ones((2, 1)))


@pytest.mark.filterwarnings("ignore:Using a non-tuple sequence")  # both warn: checked below
def test_a_short_list_holding_sequences_or_slices_is_a_tuple_index():
    x = np.arange(6.0).reshape(2, 3)
    same(lambda lib, a: a[[[0], [1]]], x)
    same(lambda lib, a: a[[0, slice(None)]], x)
    same(lambda lib, a: a[[0, None]], x)
    same(lambda lib, a: a[np.array([[0], [1]])], x)  # an array stays one index


def test_the_tuple_reading_warns_at_the_users_line_as_torch():
    x = minitorch.arange(6.0).reshape(2, 3)
    with pytest.warns(UserWarning, match="non-tuple sequence") as caught:
        x[[[0], [1]]]
    assert caught[0].filename == __file__
    with pytest.warns(UserWarning, match="non-tuple sequence") as caught:
        x[[[0], [1]]] = 1.0
    assert caught[0].filename == __file__


def test_zero_dim_tensor_with_a_zero_dim_mask():
    same(lambda lib, a: a[lib.tensor(True)], np.array(3.0))
    same(lambda lib, a: a[lib.tensor(False)], np.array(3.0))


def test_setitem_value_broadcasting():
    x = np.arange(9.0).reshape(3, 3)
    same(_set(lambda lib, a: a.detach() > 2), x, np.array([[7.0]]))  # 2-d mask, (1, 1) value
    same(_set(lambda lib, a: 1), x, np.array([[[1.0, 2.0, 3.0]]]))  # extra leading 1s
    both_raise(_set(lambda lib, a: a.detach() > 2), x, np.ones((3, 3)))
    both_raise(_set(lambda lib, a: a.detach() > 2), x, np.ones(3))


def test_setitem_with_tensor_indices_needs_the_same_dtype():
    x = np.arange(3.0, dtype=np.float32)
    both_raise(_set(lambda lib, a: lib.tensor([0, 1])), x, np.ones(1))
    both_raise(_set(lambda lib, a: lib.tensor([0, 1])), x, np.array(2.0))
    both_raise(_set(lambda lib, a: a.detach() > 0), x, np.ones(3))
    same(_set(lambda lib, a: a.detach() > 0), x, np.array(2.0))  # a mask takes one value
    same(_set(lambda lib, a: a.detach() > 0), x, np.ones(1))
    same(_set(lambda lib, a: slice(0, 2)), x, np.ones(1))  # a slice casts
    # Outside the graph too.
    for lib in (torch, minitorch):
        t = lib.zeros(3)
        with pytest.raises(RuntimeError):
            t[lib.tensor([0])] = lib.ones(1, dtype=lib.float64)


def test_neg_method_of_bool_and_half_pow_minus_half():
    both_raise(lambda lib, a: a.neg(), np.array([True, False]))
    same(lambda lib, a: a**-0.5, np.array([-0.0, -np.inf, 4.0], dtype=np.float16))


# ---------------------------------------------------------------- in place
def _inplace(method, *args):
    def fn(lib, a, b):
        x = a * 1
        getattr(x, method)(*[b if arg == "b" else arg for arg in args])
        return x

    return fn


def test_overwriting_a_zero_dim_non_leaf_keeps_its_gradient():
    for method, args in (("fill_", (2.5,)), ("zero_", ()), ("copy_", ("b",))):
        same(_inplace(method, *args), np.array(1.5), np.array(3.0))


def test_in_place_subtraction_with_a_bool_operand_raises():
    both_raise(_inplace("sub_", "b"), np.array([1, 2]), np.array([True, False]))
    both_raise(_inplace("sub_", "b"), np.array([True, True]), np.array([True, False]))
    both_raise(_inplace("__isub__", "b"), np.array([1.0, 2.0]), np.array([True, False]))


def test_copy_from_a_source_with_more_dims_raises():
    both_raise(_inplace("copy_", "b"), np.ones((3, 1)), np.ones((1, 3, 1)))
    both_raise(_inplace("copy_", "b"), np.array(1.0), np.ones(1))


def test_var_std_accumulate_in_float64_as_torch():
    x = np.array([[1e30, -1e30, 0.0], [1.0, 2.0, 4.0]], dtype=np.float32)
    same(lambda lib, a: a.std(1), x)
    same(lambda lib, a: a.var(1), x.astype(np.float16).clip(-10, 10))
    same(lambda lib, a: a.var(correction=2), np.array([np.inf]))  # a == mean: NaN gradient


def test_an_empty_repeated_dim_is_reported_as_empty_first():
    both_raise(lambda lib, a: a.amax((0, 0)), np.zeros((0, 2)), error=IndexError)
