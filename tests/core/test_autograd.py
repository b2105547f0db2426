"""How the autograd engine behaves: accumulation, graph freeing, grad mode, hooks,
custom Functions and the teaching hooks (override_backward, observers)."""

import numpy as np
import pytest

import minitorch
from minitorch import autograd
from minitorch.autograd import Function
from minitorch.functions import Mul


def leaf(values, dtype=minitorch.float64):
    return minitorch.tensor(values, dtype=dtype, requires_grad=True)


# ---------------------------------------------------------------------- depth and accumulation
def test_100000_op_chain_backward_without_recursion():
    x = leaf(1.0)
    y = x
    for _ in range(100_000):
        y = y * 1.00001
    y.backward()
    assert x.grad.item() == pytest.approx(1.00001**100_000, rel=1e-9)


def test_input_used_several_times_gets_the_sum_of_its_paths():
    x = leaf([1.0, 2.0, 3.0])
    y = (x * x + x * 3 + x.exp()).sum()  # d/dx = 2x + 3 + exp(x)
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * x.detach().numpy() + 3 + np.exp(x.detach().numpy()))


def test_diamond_graph_counts_each_path_once():
    x = leaf(2.0)
    a = x * 3
    b = a.exp()
    c = a * a
    (b + c).backward()  # d/dx = 3 exp(3x) + 18x
    assert x.grad.item() == pytest.approx(3 * np.exp(6.0) + 36.0)


def test_gradients_accumulate_across_backward_calls():
    x = leaf([1.0, 2.0])
    (x * 2).sum().backward()
    (x * x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2 + 2, 2 + 4])
    x.grad = None
    (x * 5).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [5, 5])


def test_grad_has_the_leaf_shape_and_dtype():
    for dtype in (minitorch.float32, minitorch.float64):
        x = minitorch.ones(3, 1, dtype=dtype, requires_grad=True)
        (x * minitorch.ones(1, 4, dtype=minitorch.float64)).sum().backward()
        assert x.grad.shape == (3, 1)
        assert x.grad.dtype == dtype
        np.testing.assert_allclose(x.grad.numpy(), np.full((3, 1), 4.0))


def test_leaf_grad_does_not_alias_the_upstream_gradient():
    x = leaf([1.0, 2.0])
    upstream = minitorch.tensor([10.0, 20.0], dtype=minitorch.float64)
    (x + 0).backward(upstream)
    upstream.data[0] = -1  # changing the gradient we passed must not change x.grad
    assert x.grad.tolist() == [10.0, 20.0]
    (x + 0).backward(upstream)
    assert x.grad.tolist() == [9.0, 40.0]


def test_each_leaf_owns_a_writable_grad():
    # a + b hands both leaves the same gradient array, and sum's backward a read-only
    # broadcast view: in-place updates of one .grad must work and not touch the other.
    a, b = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    (a + b).sum().backward()
    a.grad.zero_()
    assert a.grad.tolist() == [0.0, 0.0]
    assert b.grad.tolist() == [1.0, 1.0]
    b.grad.mul_(3)
    assert b.grad.tolist() == [3.0, 3.0]


def test_backward_with_explicit_gradient():
    x = leaf([[1.0, 2.0], [3.0, 4.0]])
    y = x * x
    y.backward(gradient=minitorch.tensor([[1.0, 0.0], [0.5, 2.0]]))
    np.testing.assert_allclose(x.grad.numpy(), [[2.0, 0.0], [3.0, 16.0]])


def test_backward_of_a_leaf_itself():
    x = leaf(3.0)
    x.backward()
    assert x.grad.item() == 1.0


def test_inputs_not_requiring_grad_get_no_grad():
    x = leaf([1.0, 2.0])
    c = minitorch.tensor([3.0, 4.0], dtype=minitorch.float64)
    (x * c).sum().backward()
    assert c.grad is None
    assert x.grad.tolist() == [3.0, 4.0]


def test_integer_and_bool_results_never_require_grad():
    # As in PyTorch: only floating-point tensors carry gradients; a cast to int is a constant.
    x = leaf([1.5, 2.5])
    for y in (x.long(), x.bool(), x.to(minitorch.int64) * 2, x > 1, (x > 1).sum(), x.argmax()):
        assert not y.requires_grad and y.grad_fn is None and y.is_leaf
    ((x.long() * x).sum() + x.sum()).backward()  # the int copy only scales x: d/dx = long(x) + 1
    assert x.grad.tolist() == [2.0, 3.0]


# ---------------------------------------------------------------------- retain_graph
def test_retain_graph_allows_a_second_backward():
    x = leaf([1.0, 2.0])
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * 2 * np.array([1.0, 2.0]))
    with pytest.raises(RuntimeError, match="second time"):
        y.backward()


def test_ops_without_saved_values_can_backward_twice():
    # Add saves nothing, so there is nothing to free: like PyTorch, a second backward works.
    x = leaf([1.0, 2.0])
    y = (x + 1).sum()
    y.backward()
    y.backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_shared_subgraph_freed_after_first_backward():
    x = leaf(2.0)
    shared = x * x
    (shared * 3).backward()
    with pytest.raises(RuntimeError, match="MulBackward.*second time"):
        (shared * 4).backward()


# ---------------------------------------------------------------------- grad mode
def test_no_grad_records_nothing():
    x = leaf([1.0, 2.0])
    with minitorch.no_grad():
        y = x * 2 + 1
        assert not minitorch.autograd.is_grad_enabled()
    assert minitorch.autograd.is_grad_enabled()
    assert y.grad_fn is None and not y.requires_grad and y.is_leaf
    z = x * 2
    assert z.requires_grad and z.grad_fn is not None


def test_no_grad_as_decorator_and_nested_enable_grad():
    x = leaf([1.0])

    @minitorch.no_grad()
    def evaluate(t):
        return t * 3

    assert evaluate(x).grad_fn is None
    with minitorch.no_grad():
        with minitorch.enable_grad():
            assert (x * 2).requires_grad
        assert not (x * 2).requires_grad


def test_set_grad_enabled():
    x = leaf([1.0])
    with minitorch.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    assert (x * 2).requires_grad
    minitorch.set_grad_enabled(False)
    assert not (x * 2).requires_grad
    minitorch.set_grad_enabled(True)
    assert (x * 2).requires_grad


def test_no_grad_restored_after_an_exception():
    with pytest.raises(ValueError):
        with minitorch.no_grad():
            raise ValueError("boom")
    assert minitorch.autograd.is_grad_enabled()


# ---------------------------------------------------------------------- detach
def test_detach_shares_memory_and_stops_gradients():
    x = leaf([1.0, 2.0])
    d = x.detach()
    assert not d.requires_grad and d.grad_fn is None
    d.data[0] = 5.0
    assert x.tolist()[0] == 5.0
    (x * d).sum().backward()  # d is a constant: d/dx (x * d) = d
    assert x.grad.tolist() == [5.0, 2.0]


def test_detach_of_a_non_leaf():
    x = leaf([1.0, 2.0])
    y = x * 3
    z = y.detach() * x
    z.sum().backward()
    assert x.grad.tolist() == [3.0, 6.0]


# ---------------------------------------------------------------------- retain_grad and hooks
def test_retain_grad_keeps_non_leaf_grad():
    x = leaf([1.0, 2.0])
    y = x * 3
    z = x * 4
    y.retain_grad()
    assert y.retains_grad and not z.retains_grad
    (y * y + z).sum().backward()
    assert y.grad.tolist() == [6.0, 12.0]
    assert z.grad is None
    assert x.grad.tolist() == [3 * 6.0 + 4, 3 * 12.0 + 4]


def test_retained_grad_accumulates_across_backward_calls():
    x = leaf([1.0])
    y = x * 2
    y.retain_grad()
    (y * 3).sum().backward(retain_graph=True)
    (y * 5).sum().backward()
    assert y.grad.tolist() == [8.0]


def test_retain_grad_on_a_leaf_is_harmless():
    x = leaf([1.0])
    x.retain_grad()
    (x * 2).sum().backward()
    assert x.grad.tolist() == [2.0]


def test_hook_on_leaf_sees_and_replaces_the_gradient():
    x = leaf([1.0, 2.0])
    seen = []

    def double(grad):
        seen.append(grad.tolist())
        return grad * 2

    x.register_hook(double)
    (x * 3).sum().backward()
    assert seen == [[3.0, 3.0]]
    assert x.grad.tolist() == [6.0, 6.0]


def test_hook_on_non_leaf_changes_what_flows_further_back():
    x = leaf([1.0, 2.0])
    y = x * 3
    seen = []
    y.register_hook(lambda g: seen.append(g.tolist()))  # returns None: gradient unchanged
    y.register_hook(lambda g: g * 0 + 1)  # replaces it by ones
    (y * y).sum().backward()
    assert seen == [[6.0, 12.0]]
    assert x.grad.tolist() == [3.0, 3.0]


def test_hook_handle_remove():
    x = leaf([1.0])
    handle = x.register_hook(lambda g: g * 10)
    (x * 1).sum().backward()
    assert x.grad.tolist() == [10.0]
    handle.remove()
    handle.remove()  # removing twice is fine
    (x * 1).sum().backward()
    assert x.grad.tolist() == [11.0]


@pytest.mark.parametrize("retain_first", [True, False])
def test_retained_grad_is_the_gradient_after_all_hooks(retain_first):
    # As in PyTorch: retain_grad's hook runs last, whatever the registration order.
    x = leaf([1.0])
    y = x * 2
    if retain_first:
        y.retain_grad()
    y.register_hook(lambda g: g * 100)
    if not retain_first:
        y.retain_grad()
    (y * 3).sum().backward()
    assert y.grad.tolist() == [300.0]
    assert x.grad.tolist() == [600.0]


def test_retain_grad_on_a_tensor_without_grad_is_an_error():
    with pytest.raises(minitorch.errors.MiniTorchError, match="retain_grad"):
        (minitorch.ones(2) * 2).retain_grad()
    with pytest.raises(minitorch.errors.MiniTorchError, match="retain_grad"):
        minitorch.ones(2).retain_grad()


# ---------------------------------------------------------------------- custom Functions
class ScaledSquare(Function):
    """A learner's op: scale * a**2, with the scale passed as a plain number."""

    @staticmethod
    def forward(ctx, a, scale):
        ctx.save_for_backward(a)
        ctx.scale = scale
        return scale * a * a

    @staticmethod
    def backward(ctx, grad_output):
        (a,) = ctx.saved_tensors
        return grad_output * 2 * ctx.scale * a, None


class MyMul(Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        return (grad_output * b if need_a else None, grad_output * a if need_b else None)


def test_custom_function_forward_backward_and_node():
    x = leaf([1.0, 2.0, 3.0])
    y = ScaledSquare.apply(x, 1.5)
    assert isinstance(y, minitorch.Tensor)
    np.testing.assert_allclose(y.detach().numpy(), 1.5 * np.array([1.0, 4.0, 9.0]))
    assert type(y.grad_fn).__name__ == "ScaledSquareBackward"
    assert y.grad_fn.name() == "ScaledSquareBackward"
    assert y.grad_fn.next_nodes == (x, None)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 3.0 * np.array([1.0, 2.0, 3.0]))
    # Only built-in ops are registered by name: a learner's class never hides one.
    assert "ScaledSquare" not in autograd.REGISTRY


def test_custom_function_passes_gradcheck():
    a = leaf(np.linspace(-1, 1, 6).reshape(2, 3))
    b = leaf(np.linspace(0.5, 2, 6).reshape(2, 3))
    assert autograd.gradcheck(MyMul.apply, (a, b))
    assert autograd.gradcheck(lambda t: ScaledSquare.apply(t, 0.7), (a,))


def test_custom_function_needs_input_grad():
    seen = []

    class Spy(MyMul):
        @staticmethod
        def backward(ctx, grad_output):
            seen.append(ctx.needs_input_grad)
            return MyMul.backward(ctx, grad_output)

    a, c = leaf([1.0, 2.0]), minitorch.tensor([3.0, 4.0], dtype=minitorch.float64)
    Spy.apply(a, c).sum().backward()
    assert seen == [(True, False)]
    assert a.grad.tolist() == [3.0, 4.0] and c.grad is None


def test_custom_function_without_grad_records_no_node():
    y = MyMul.apply(minitorch.ones(2), minitorch.ones(2))
    assert y.grad_fn is None and not y.requires_grad
    with minitorch.no_grad():
        assert MyMul.apply(leaf([1.0]), leaf([2.0])).grad_fn is None


def test_saved_tensors_freed_after_backward():
    x = leaf([2.0])
    y = MyMul.apply(x, x)
    node = y.grad_fn
    assert len(node.saved_tensors) == 2
    y.sum().backward()
    with pytest.raises(RuntimeError, match="MyMulBackward.*second time"):
        node.saved_tensors  # noqa: B018


def test_graph_structure():
    x = leaf([1.0])
    w = leaf([2.0])
    y = (x * w).exp()
    assert x.is_leaf and not y.is_leaf
    assert type(y.grad_fn).__name__ == "ExpBackward"
    (mul_node,) = y.grad_fn.next_nodes
    assert type(mul_node).__name__ == "MulBackward"
    assert mul_node.next_nodes == (x, w)
    assert y.grad_fn.out_shape == (1,)
    assert y.grad_fn.out_dtype == np.float64
    counts = autograd.graph.consumer_counts(y.grad_fn)
    assert counts[y.grad_fn] == 0 and counts[mul_node] == 1


# ---------------------------------------------------------------------- teaching hooks
def test_override_and_restore_backward():
    def doubled(ctx, grad):
        a, b = ctx.saved_tensors
        return 2 * grad * b, 2 * grad * a

    x = leaf([3.0])
    autograd.override_backward(Mul, doubled)
    assert Mul.backward_overridden
    (x * 4.0).sum().backward()
    assert x.grad.tolist() == [8.0]
    autograd.restore_backward(Mul)
    assert not Mul.backward_overridden
    x.grad = None
    (x * 4.0).sum().backward()
    assert x.grad.tolist() == [4.0]


def test_override_by_name_and_restore_all():
    autograd.override_backward("Exp", lambda ctx, grad: (grad * 0,))
    autograd.override_backward("Sin", lambda ctx, grad: (grad * 0,))
    x = leaf([1.0])
    (x.exp() + x.sin()).sum().backward()
    assert x.grad.tolist() == [0.0]
    autograd.restore_backward()
    x.grad = None
    (x.exp() + x.sin()).sum().backward()
    assert x.grad.item() == pytest.approx(np.exp(1.0) + np.cos(1.0))


def test_backward_observer_sees_every_step_in_order():
    steps = []

    def observer(node, grad_output, grad_inputs):
        steps.append((node.name(), len(grad_inputs)))

    x = leaf([1.0, 2.0])
    autograd.add_backward_observer(observer)
    (x * 2).exp().sum().backward()
    autograd.remove_backward_observer(observer)
    assert steps == [("SumBackward", 3), ("ExpBackward", 1), ("MulBackward", 2)]
    (x * 2).sum().backward()
    assert len(steps) == 3  # removed: not called again


def test_gradcheck_accepts_a_correct_and_rejects_a_wrong_backward():
    x = leaf(np.linspace(0.1, 1.0, 4))
    assert autograd.gradcheck(lambda t: (t * t).tanh(), (x,))
    autograd.override_backward("Tanh", lambda ctx, grad: (grad,))
    assert not autograd.gradcheck(lambda t: t.tanh(), (x,), raise_exception=False)


def test_gradcheck_on_non_contiguous_and_0d_inputs():
    transposed = minitorch.from_numpy(np.arange(1.0, 7.0).reshape(3, 2).T).requires_grad_()
    assert not transposed.is_contiguous()
    assert autograd.gradcheck(lambda t: t.exp() @ t.T, (transposed,))
    assert autograd.gradcheck(lambda t: t.sin() * 2, (leaf(0.3),))


def test_learner_class_named_like_a_builtin_does_not_hide_it():
    from minitorch.functions import Mul as BuiltinMul

    autograd.override_backward(BuiltinMul, lambda ctx, g: (g, g))

    class Mul(autograd.Function):  # a learner's own op with a built-in's name
        @staticmethod
        def forward(ctx, a, b):
            return a * b

        @staticmethod
        def backward(ctx, g):
            return g, g

    assert autograd.REGISTRY["Mul"] is BuiltinMul
    autograd.restore_backward()
    assert not BuiltinMul.backward_overridden
    x = minitorch.tensor([2.0, 3.0], requires_grad=True)
    (x * x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [4.0, 6.0])


def test_a_second_builtin_op_with_a_taken_name_is_refused():
    # Built-in ops (defined inside the minitorch package) are found by name, so two with
    # one name would make the registry, the graph drawer and override_backward ambiguous.
    namespace = {
        "__module__": "minitorch.functions.duplicate",
        "forward": staticmethod(lambda ctx, a: a),
        "backward": staticmethod(lambda ctx, g: g),
    }
    with pytest.raises(TypeError, match=r"two built-in ops are named 'Mul'"):
        type(Function)("Mul", (Function,), namespace)
    assert autograd.REGISTRY["Mul"] is minitorch.functions.Mul


def test_override_backward_by_name_works_for_every_builtin_op_from_the_start():
    # No op has to be called first: the registry is complete once minitorch is imported.
    for name in ("SoftmaxCrossEntropy", "Conv2d", "LogSoftmax", "Linear"):
        autograd.override_backward(name, lambda ctx, g: g)
        assert autograd.REGISTRY[name].backward_overridden
    autograd.restore_backward()
    assert not autograd.overridden_functions()


def test_apply_records_which_inputs_were_tensors():
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    c = minitorch.tensor([3.0, 4.0])
    assert (x * c).grad_fn.is_tensor_input == (True, True)
    assert (x * 2.0).grad_fn.is_tensor_input == (True, False)
    assert x.sum(0).grad_fn.is_tensor_input[0] is True
    assert not any(x.sum(0).grad_fn.is_tensor_input[1:])


def test_backward_order_is_the_engines_order():
    seen = []
    autograd.add_backward_observer(lambda node, g_out, g_in: seen.append(node))
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    a = x * 2
    loss = (a.exp() + a.sin() * a).sum()
    order = autograd.graph.backward_order(loss.grad_fn)
    loss.backward()
    assert seen == order
    assert set(autograd.graph.nodes(loss.grad_fn)) == set(order)
    assert autograd.graph.leaves(loss.grad_fn) == [x]
