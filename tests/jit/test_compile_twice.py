"""Compiling a compiled step: ``minitorch.compile(minitorch.compile(f))`` is that compiled step.

Before, the second compile read the first one's ``__closure__`` for its guards and raised
``AttributeError: 'CompiledFunction' object has no attribute '__closure__'``.
"""

import numpy as np

import minitorch
from minitorch import nn, optim
from minitorch.nn import functional as F


def _step_and_model():
    minitorch.manual_seed(0)
    model = nn.Linear(4, 3)
    opt = optim.SGD(model.parameters(), lr=0.1)

    def step(x, y):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss

    return step, model


def test_compiling_a_compiled_step_returns_it_and_it_still_replays():
    step, model = _step_and_model()
    once = minitorch.compile(step)
    twice = minitorch.compile(once)
    assert twice is once
    x, y = minitorch.randn(5, 4), minitorch.tensor([0, 1, 2, 0, 1])
    losses = [twice(x, y).item() for _ in range(3)]
    assert once.traces == 1 and losses[2] < losses[0]


def test_other_settings_compile_the_wrapped_function_again():
    step, _ = _step_and_model()
    once = minitorch.compile(step)
    strict = minitorch.compile(once, fullgraph=True)
    assert strict is not once and strict.fn is step and strict.fullgraph
    as_decorator = minitorch.compile(fullgraph=True)(once)
    assert as_decorator.fn is step and as_decorator.fullgraph


def test_a_twice_compiled_step_trains_as_the_eager_one():
    eager_step, eager_model = _step_and_model()
    step, model = _step_and_model()
    compiled = minitorch.compile(minitorch.compile(step))
    x, y = minitorch.randn(5, 4), minitorch.tensor([0, 1, 2, 0, 1])
    for _ in range(3):
        assert eager_step(x, y).item() == compiled(x, y).item()
    for a, b in zip(eager_model.parameters(), model.parameters()):
        assert np.array_equal(a.data, b.data)
