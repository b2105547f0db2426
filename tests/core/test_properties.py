"""Property tests (hypothesis) for broadcasting and for its way back, ``unbroadcast``.

``broadcast_shape`` must agree with NumPy on every list of shapes, including the ones
that do not broadcast. ``unbroadcast`` is the adjoint of broadcasting: it returns a
gradient of exactly the target shape, loses no mass (sums are preserved), and satisfies
sum(broadcast(x) * g) == sum(x * unbroadcast(g)) for every x, which is what makes it the
correct backward of any broadcasting op.
"""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minitorch
from minitorch.errors import MiniTorchError
from minitorch.functions.arithmetic import unbroadcast

SETTINGS = settings(max_examples=60, deadline=None)
SHAPES = hnp.array_shapes(min_dims=0, max_dims=4, min_side=1, max_side=4)


@SETTINGS
@given(hnp.mutually_broadcastable_shapes(num_shapes=3, min_dims=0, max_dims=5, max_side=4))
def test_broadcast_shape_matches_numpy(shapes):
    assert minitorch.broadcast_shape(*shapes.input_shapes) == np.broadcast_shapes(*shapes.input_shapes)
    assert minitorch.broadcast_shape(*shapes.input_shapes) == shapes.result_shape


@SETTINGS
@given(st.lists(SHAPES, min_size=1, max_size=3))
def test_broadcast_shape_fails_exactly_when_numpy_fails(shapes):
    try:
        expected = np.broadcast_shapes(*shapes)
    except ValueError:
        try:
            minitorch.broadcast_shape(*shapes, op="Test")
        except MiniTorchError as error:
            assert "Test" in str(error)
            assert all(str(tuple(s)) in str(error) for s in shapes)
        else:
            raise AssertionError(f"broadcast_shape{tuple(shapes)} should have failed")
    else:
        assert minitorch.broadcast_shape(*shapes) == expected


@st.composite
def target_and_grad_shapes(draw):
    """A target shape and a larger shape it broadcasts to (extra leading dims, stretched 1s)."""
    target = draw(SHAPES)
    lead = draw(st.lists(st.integers(1, 4), max_size=2))
    stretched = [draw(st.integers(1, 4)) if size == 1 else size for size in target]
    return target, tuple(lead) + tuple(stretched)


@SETTINGS
@given(target_and_grad_shapes(), st.integers(0, 2**32 - 1))
def test_unbroadcast_gives_target_shape_and_preserves_sum(shapes, seed):
    target, grad_shape = shapes
    assert np.broadcast_shapes(target, grad_shape) == grad_shape
    grad = np.random.default_rng(seed).standard_normal(grad_shape)
    out = unbroadcast(grad, target)
    assert out.shape == target
    np.testing.assert_allclose(out.sum(), grad.sum(), rtol=1e-10, atol=1e-10)


@SETTINGS
@given(target_and_grad_shapes(), st.integers(0, 2**32 - 1))
def test_unbroadcast_is_the_adjoint_of_broadcasting(shapes, seed):
    target, grad_shape = shapes
    rng = np.random.default_rng(seed)
    x, grad = rng.standard_normal(target), rng.standard_normal(grad_shape)
    lhs = np.sum(np.broadcast_to(x, grad_shape) * grad)
    rhs = np.sum(x * unbroadcast(grad, target))
    np.testing.assert_allclose(lhs, rhs, rtol=1e-10, atol=1e-10)


@SETTINGS
@given(SHAPES)
def test_unbroadcast_to_same_shape_is_identity(shape):
    grad = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
    np.testing.assert_array_equal(unbroadcast(grad, shape), grad)


@SETTINGS
@given(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=4, max_side=4), st.integers(0, 1000))
def test_binary_op_gradients_have_input_shapes(shapes, seed):
    rng = np.random.default_rng(seed)
    a_shape, b_shape = shapes.input_shapes
    a = minitorch.tensor(rng.standard_normal(a_shape), requires_grad=True)
    b = minitorch.tensor(rng.standard_normal(b_shape), requires_grad=True)
    out = a * b + a
    assert out.shape == shapes.result_shape
    np.testing.assert_allclose(out.detach().numpy(), a.detach().numpy() * b.detach().numpy() + a.detach().numpy())
    out.sum().backward()
    assert a.grad.shape == a_shape and b.grad.shape == b_shape
    # d/da sum(a * b + a) = sum of (b + 1) over a's broadcast copies.
    expected_a = unbroadcast(np.broadcast_to(b.detach().numpy() + 1, shapes.result_shape), a_shape)
    np.testing.assert_allclose(a.grad.numpy(), expected_a, rtol=1e-12)
