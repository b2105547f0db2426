"""Version counters: values saved for backward and changed in place afterwards are refused.

PyTorch's mechanism: every in-place change bumps the tensor's version (shared with its
views); an op that saved the tensor remembers the version, and backward raises instead of
using the changed values. And, as in PyTorch, in-place ops on tensors in the middle of a
graph are recorded (``out = x @ w; out += b``).
"""

import numpy as np
import pytest

import minitorch
from minitorch import nn
from minitorch.errors import MiniTorchError

MODIFIED = "modified by an inplace operation"


def leaf(values):
    return minitorch.tensor(values, dtype=minitorch.float64, requires_grad=True)


# Every in-place path, applied to w after forward saved it (x * w saves both).
INPLACE = {
    "+=": lambda t: t.__iadd__(1.0),
    "-=": lambda t: t.__isub__(1.0),
    "*=": lambda t: t.__imul__(2.0),
    "/=": lambda t: t.__itruediv__(2.0),
    "add_": lambda t: t.add_(1.0),
    "sub_": lambda t: t.sub_(1.0, alpha=2),
    "mul_": lambda t: t.mul_(3.0),
    "div_": lambda t: t.div_(3.0),
    "zero_": lambda t: t.zero_(),
    "fill_": lambda t: t.fill_(5.0),
    "copy_": lambda t: t.copy_(minitorch.tensor([7.0, 8.0], dtype=minitorch.float64)),
    "setitem": lambda t: t.__setitem__(0, 9.0),
    "setitem-slice": lambda t: t.__setitem__(slice(None), minitorch.zeros(2, dtype=minitorch.float64)),
}


@pytest.mark.parametrize("name", INPLACE)
def test_every_inplace_path_bumps_the_version_and_backward_refuses(name):
    x, w = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    loss = (x * w).sum()
    before = w._version
    with minitorch.no_grad():
        INPLACE[name](w)
    assert w._version == before + 1
    with pytest.raises(MiniTorchError, match=MODIFIED) as info:
        loss.backward()
    message = str(info.value)
    assert "MulBackward" in message and "input 1" in message and "is at version 1; expected version 0" in message


@pytest.mark.parametrize("name", INPLACE)
def test_changes_after_backward_are_fine(name):
    x, w = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    (x * w).sum().backward()
    with minitorch.no_grad():
        INPLACE[name](w)
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 4.0])


@pytest.mark.parametrize("optimizer", ["SGD", "Adam", "AdamW"])
def test_an_optimizer_step_between_forward_and_backward_is_refused(optimizer):
    model = nn.Linear(3, 2)
    opt = getattr(minitorch.optim, optimizer)(model.parameters(), lr=0.1)
    x = minitorch.randn(4, 3)
    loss = model(x).pow(2).sum()
    loss.backward()
    loss2 = model(x).pow(2).sum()  # a second forward that saved the weight...
    opt.step()  # ... and an update of the weight before its backward
    with pytest.raises(MiniTorchError, match=MODIFIED):
        loss2.backward()


def test_a_saved_output_changed_in_place():
    x = leaf([1.0, 2.0])
    y = x.exp()  # exp saves its output
    with minitorch.no_grad():
        y += 1
    with pytest.raises(MiniTorchError, match=r"output 0 of ExpBackward"):
        y.sum().backward()


def test_a_view_shares_its_base_version():
    x, w = leaf([1.0, 2.0, 3.0]), leaf([3.0, 4.0, 5.0])
    loss = (x * w).sum()
    view = w.detach()[1:]
    with minitorch.no_grad():
        view += 1  # changes w's memory
    assert w._version == 1
    with pytest.raises(MiniTorchError, match=MODIFIED):
        loss.backward()


def test_reshape_and_transpose_views_share_the_counter():
    w = leaf([[1.0, 2.0], [3.0, 4.0]])
    with minitorch.no_grad():
        w.T.mul_(2)
        w.reshape(4).mul_(2)
        w.T.reshape(4).mul_(2)  # transposed, then flattened: a copy (as in PyTorch), not a view
    assert w._version == 2
    np.testing.assert_allclose(w.data, [[4.0, 8.0], [12.0, 16.0]])


def test_a_copy_does_not_share_the_counter():
    w = leaf([1.0, 2.0])
    c = w.clone()
    with minitorch.no_grad():
        c += 1
    assert w._version == 0 and c._version == 1


def test_inplace_on_a_non_leaf_is_recorded():
    rng = np.random.default_rng(0)
    x, w, b = leaf(rng.standard_normal((3, 4))), leaf(rng.standard_normal((4, 2))), leaf(rng.standard_normal(2))
    out = x @ w
    out += b
    out *= 2
    assert out.grad_fn.name() == "MulBackward"
    out.sum().backward()
    np.testing.assert_allclose(b.grad.numpy(), [6.0, 6.0])
    np.testing.assert_allclose(w.grad.numpy(), 2 * x.data.sum(0)[:, None].repeat(2, 1))


def test_inplace_multiply_by_a_tensor_that_requires_grad_keeps_the_old_values():
    x = leaf([1.0, 2.0])
    y = x * 2
    y *= x  # y = 2x * x: the new node must see y's values from before the update
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [4.0, 8.0])


def test_a_leaf_that_requires_grad_cannot_be_changed_while_recording():
    w = leaf([1.0])
    with pytest.raises(MiniTorchError, match="leaf tensor that requires grad"):
        w += 1
    with pytest.raises(MiniTorchError, match="no_grad"):
        w[0] = 2.0


def test_setitem_of_a_value_that_requires_grad_is_recorded():
    z = minitorch.zeros(4, dtype=minitorch.float64)
    v = leaf([1.0, 2.0])
    z[1:3] = v * 3
    (z * minitorch.arange(4, dtype=minitorch.float64)).sum().backward()
    np.testing.assert_allclose(v.grad.numpy(), [3.0, 6.0])


def test_copy_into_a_constant_makes_it_part_of_the_graph():
    buf = minitorch.zeros(2, 2, dtype=minitorch.float64)
    src = leaf([1.0, 2.0])
    buf.copy_(src)  # broadcast over the rows
    assert buf.requires_grad
    buf.sum().backward()
    np.testing.assert_allclose(src.grad.numpy(), [2.0, 2.0])


def test_recorded_inplace_through_a_view_is_refused():
    x = leaf([1.0, 2.0, 3.0])
    y = x * 2
    v = y[0:2]
    with pytest.raises(MiniTorchError, match="view"):
        v *= 3


def test_inplace_result_dtype_and_shape_checks():
    ints = minitorch.tensor([1, 2])
    with pytest.raises(MiniTorchError, match="result type Float can't be cast to the desired output type Long"):
        ints += 0.5
    with pytest.raises(MiniTorchError, match="result type Float"):
        ints /= 2
    with pytest.raises(MiniTorchError, match=r"output with shape \(2,\) doesn't match the broadcast shape \(3, 2\)"):
        minitorch.zeros(2).add_(minitorch.ones(3, 2))
    floats = minitorch.zeros(2)
    floats += minitorch.tensor([1, 2])  # int into float is fine, as in PyTorch
    assert floats.tolist() == [1.0, 2.0]


def test_hooks_must_return_a_gradient_of_the_same_shape_and_type():
    x = leaf([1.0, 2.0])
    x.register_hook(lambda g: g.sum())
    with pytest.raises(MiniTorchError, match=r"changed the size of the gradient: it was \(2,\)"):
        (x * 2).sum().backward()
    y = leaf([1.0, 2.0])
    h = y * 2
    h.register_hook(lambda g: 3.0)
    with pytest.raises(TypeError, match="returned a float"):
        h.sum().backward()
    z = leaf([1.0, 2.0])
    z.register_hook(lambda g: g.float())
    with pytest.raises(MiniTorchError, match="changed the type"):
        (z * 2).sum().backward()


def test_assigned_grad_must_match():
    p = nn.Parameter(minitorch.zeros(3))
    with pytest.raises(MiniTorchError, match=r"different size.*\(3,\).*\(1,\)"):
        p.grad = minitorch.ones(1)
    with pytest.raises(MiniTorchError, match="different type"):
        p.grad = minitorch.ones(3, dtype=minitorch.float64)
    with pytest.raises(TypeError, match="Tensor or None"):
        p.grad = np.ones(3, dtype=np.float32)
    p.grad = minitorch.ones(3)
    p.grad = None


def test_a_function_returning_a_tuple_is_refused():
    class Pair(minitorch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a, a * 2

        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(MiniTorchError, match=r"Pair.forward returned a tuple of 2 values"):
        Pair.apply(leaf([1.0]))


def test_post_accumulate_hooks_fire_during_backward_as_each_leaf_is_done():
    w1, w2 = leaf([1.0, 2.0]), leaf([3.0])
    events = []
    order = []
    w1.register_post_accumulate_grad_hook(lambda t: events.append(("w1", t.grad.tolist())))
    w2.register_post_accumulate_grad_hook(lambda t: events.append(("w2", t.grad.tolist())))
    minitorch.autograd.add_backward_observer(lambda node, g_out, g_in: order.append(node.name()))
    h = (w1 * 2).sum()  # w1's last consumer runs before w2's
    loss = (h * w2).exp()
    loss.backward()
    assert [name for name, _ in events] == ["w2", "w1"]
    # w2's hook ran before the nodes leading to w1 had all run
    assert len(order) == 4


def test_queue_callback_runs_at_the_end_of_backward():
    w = leaf([1.0, 2.0])
    seen = []

    def hook(t):
        minitorch.autograd.queue_callback(lambda: seen.append(("end", t.grad.tolist())))

    w.register_post_accumulate_grad_hook(hook)
    (w * 3).sum().backward()
    assert seen == [("end", [3.0, 3.0])]
    with pytest.raises(MiniTorchError, match="during a backward"):
        minitorch.autograd.queue_callback(lambda: None)
