"""Ops without a replay kernel inside a lowered step (jit/op_calls.py).

Such an op's own forward and backward are called from the generated code. What it returns
may be a view of a buffer the next replay overwrites (a reshape of a ReLU's output), and its
gradients may be a buffer or of another shape than their leaf: those must leave the step as
fresh arrays, as eager's do. A backward that gives None for an input is followed as the
engine does (the edge is skipped), and one that changes its mind later is an error.
"""

import numpy as np
import pytest
from training_step import training_step

import minitorch
from minitorch import nn
from minitorch.autograd import Function
from minitorch.jit.lowering import memory_order
from minitorch.jit.op_calls import GradientPatternChanged
from minitorch.kernels import use_fast_kernels
from minitorch.nn import functional as F


@pytest.fixture
def fast_kernels():
    """The lines written out for Linear and the cross-entropy are their fast kernels' calls:
    eager runs those (and the lowering writes them out) only with the fast kernels on, as
    they are unless MINITORCH_FAST_KERNELS=0 says otherwise."""
    with use_fast_kernels(True):
        yield


def _program(step):
    return next(iter(step.entries.values())).program


def _batches(n=6, shape=(5, 6)):
    rng = np.random.default_rng(0)
    return [(minitorch.tensor(rng.standard_normal(shape, dtype=np.float32)),
             minitorch.tensor(rng.integers(0, 3, shape[0]))) for _ in range(n)]  # fmt: skip


def _train(make_model, compiled, batches):
    minitorch.manual_seed(0)
    model = make_model()
    opt = minitorch.optim.Adam(model.parameters(), lr=1e-2)
    step = training_step(model, opt)

    run = minitorch.compile(step, fullgraph=True) if compiled else step
    losses = [run(x, y).data.tobytes() for x, y in batches]
    return losses, [p.data.tobytes() for p in model.parameters()], run


@pytest.mark.usefixtures("fast_kernels")
def test_an_op_without_a_kernel_is_called_from_the_generated_code_with_the_eager_bits():
    make = lambda: nn.Sequential(nn.Linear(6, 8), nn.Sigmoid(), nn.Linear(8, 3))  # noqa: E731
    eager = _train(make, False, _batches())
    compiled = _train(make, True, _batches())
    assert compiled[:2] == eager[:2]
    program = _program(compiled[2])
    assert program.lowered is not None and program.lowered.called == ["Sigmoid (it has no replay kernel)"]
    assert "Sigmoid.forward" not in program.lowered.source and "ctx" in program.lowered.source
    assert "Sigmoid (it has no replay kernel)" in str(minitorch.explain(compiled[2]))


@pytest.mark.usefixtures("fast_kernels")
def test_a_cnn_is_lowered_around_its_convolutions_with_the_eager_bits():
    def make():
        return nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(16, 3))

    batches = [(x.reshape(5, 1, 4, 4)[:, :, :, :4], y) for x, y in _batches(shape=(5, 16))]
    eager = _train(make, False, batches)
    compiled = _train(make, True, batches)
    assert compiled[:2] == eager[:2]
    lowered = _program(compiled[2]).lowered
    assert lowered is not None and lowered.kernels == 3  # ReLU, Linear, the cross-entropy
    assert any(c.startswith("Conv2d") for c in lowered.called)
    # the ReLU's buffers are laid out as the eager ReLU's output (the conv's: channels-last),
    # not in C order: an op mixing two layouts runs several times slower
    minitorch.manual_seed(0)
    conv = make()[0]
    with minitorch.no_grad():
        eager_relu = F.relu(conv(batches[0][0])).data
    buffers = [v for k, v in lowered.replay.__globals__.items() if k.startswith("buf") and v.ndim == 4]
    same_shape = [b for b in buffers if b.shape == eager_relu.shape]
    assert len(same_shape) == 3  # its output, its mask, its input's gradient
    assert all(memory_order(b) == memory_order(eager_relu) is not None for b in same_shape)


def test_a_view_of_a_buffer_leaves_the_step_as_a_fresh_array():
    minitorch.manual_seed(0)
    linear = nn.Linear(6, 4)
    step = minitorch.compile(lambda x: F.relu(linear(x)).reshape(-1).detach())
    outputs = [step(x) for x, _ in _batches(4)]
    assert _program(step).lowered is not None
    with minitorch.no_grad():
        expected = [F.relu(linear(x)).reshape(-1) for x, _ in _batches(4)]
    for got, want in zip(outputs, expected):
        assert np.array_equal(got.data, want.data)  # not overwritten by the calls after it


def test_a_gradient_through_a_reshape_into_a_leaf_is_fresh_and_leaf_shaped():
    minitorch.manual_seed(0)
    linear = nn.Linear(6, 3)

    def step(flat_x):
        loss = linear(flat_x.reshape(5, 6)).sum()
        loss.backward()
        return loss.detach()

    compiled = minitorch.compile(step)
    inputs = [minitorch.tensor(x.data.reshape(-1), requires_grad=True) for x, _ in _batches(4)]
    for x in inputs:
        compiled(x)
    assert _program(compiled).lowered is not None
    for x in inputs:
        want = minitorch.tensor(x.data, requires_grad=True)
        linear.weight.grad = None
        step(want)
        assert x.grad.shape == (30,) and np.array_equal(x.grad.data, want.grad.data)


class HalfGrad(Function):
    """y = a * b with a gradient for ``a`` only (or, when ``flip`` is set on a replay, for ``b`` only)."""

    flip = False

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        return (None, grad * a) if HalfGrad.flip else (grad * b, None)


def test_a_backward_giving_none_is_followed_and_a_change_of_mind_is_an_error():
    a = minitorch.tensor(np.ones(3, np.float32), requires_grad=True)
    b = minitorch.tensor(np.full(3, 2.0, np.float32), requires_grad=True)

    def step(x):
        a.grad = b.grad = None
        loss = (HalfGrad.apply(a, b) * x).sum()
        loss.backward()
        return loss.detach()

    compiled = minitorch.compile(step)
    for k in range(4):
        compiled(minitorch.ones(3) * k)
        assert b.grad is None and np.array_equal(a.grad.data, np.full(3, 2.0 * k, np.float32))
    if _program(compiled).lowered is None:
        pytest.skip(f"not lowered: {_program(compiled).lowering_refused}")
    HalfGrad.flip = True
    try:
        with pytest.raises(GradientPatternChanged, match="HalfGrad.backward"):
            compiled(minitorch.ones(3))
    finally:
        HalfGrad.flip = False
