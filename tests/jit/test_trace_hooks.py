"""The tracer records through the interface the eager code offers it (minitorch/trace_hooks.py).

While a step is traced, ``SWITCHES.tracer`` is the tracer and ``Function.apply``, the engine,
``TensorBase`` and ``minitorch.random`` tell it what happens; no method or module global is
swapped. The Python calls a replay makes again are the ones marked ``@replayed`` where they
are defined (and a subclass's own ``step``/``zero_grad``); backward passes the tracer does not
write down (``autograd.grad``, ``autograd.backward``) make the step run eagerly, never wrong.
"""

import re
import warnings

import numpy as np
import pytest

import minitorch
from minitorch import nn
from minitorch.jit import GraphBreakError, GraphBreakWarning
from minitorch.nn import functional as F
from minitorch.optim.optimizer import Optimizer
from minitorch.switches import SWITCHES
from minitorch.tensor_base import TensorBase
from minitorch.trace_hooks import replayed, unwrapped


def setup(seed=0):
    minitorch.manual_seed(seed)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
    return model, minitorch.optim.SGD(model.parameters(), lr=0.1)


def batches(n=5):
    rng = np.random.default_rng(0)
    return [(minitorch.tensor(rng.standard_normal((5, 4)).astype(np.float32)), minitorch.tensor(rng.integers(0, 3, 5)))
            for _ in range(n)]  # fmt: skip


def _program(compiled):
    return next(iter(compiled.entries.values())).program


def test_a_trace_swaps_no_method_and_no_global():
    import minitorch.random.generator as mt_random
    import minitorch.tensor_base as tensor_base_module
    from minitorch.autograd.function import Function

    owners = (TensorBase, minitorch.Tensor, Function, Optimizer, nn.Module, tensor_base_module, mt_random)
    before = [dict(vars(o)) for o in owners]
    generator = mt_random.default_generator()
    model, opt = setup()
    seen = []

    def step(x, y):
        seen.append(([dict(vars(o)) for o in owners], SWITCHES.tracer))  # as it is in the middle of the trace
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()

    compiled = minitorch.compile(step, fullgraph=True)
    for x, y in batches(3):
        compiled(x, y)
    assert len(seen) == 1  # traced once, replayed twice
    during, tracer = seen[0]
    assert during == before and tracer is not None and type(tracer).__name__ == "Tracer"
    assert SWITCHES.tracer is None and mt_random.default_generator() is generator


def test_the_slot_is_empty_again_after_a_step_that_raises():
    compiled = minitorch.compile(lambda x: x.item(), fullgraph=True)
    with pytest.raises(GraphBreakError):
        compiled(minitorch.ones(1))
    assert SWITCHES.tracer is None

    def failing(x):
        raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        minitorch.compile(failing)(minitorch.ones(1))
    assert SWITCHES.tracer is None


def test_replayed_marks_a_call_and_unwrapped_gives_the_function_back():
    assert getattr(Optimizer.step, "replayed", False) and getattr(nn.Module.zero_grad, "replayed", False)
    assert getattr(nn.utils.clip_grad_norm_, "replayed", False)
    assert getattr(minitorch.optim.lr_scheduler.StepLR.step, "replayed", False)  # inherited from LRScheduler
    assert unwrapped(Optimizer.step) is Optimizer.step.__wrapped__
    assert unwrapped(len) is len

    calls = []

    @replayed
    def bump(box, by=1):
        calls.append(by)
        return by

    assert bump([0], by=3) == 3 and calls == [3]  # outside a trace: the call itself


class HandWrittenSGD(Optimizer):
    """A learner's optimizer that writes its own step (PyTorch's way), not _update_parameter."""

    def __init__(self, params, lr):
        super().__init__(params, {"lr": lr})

    def step(self, closure=None):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    p.data -= group["lr"] * p.grad.data


def test_a_subclass_s_own_step_is_replayed_as_the_base_class_s():
    assert getattr(HandWrittenSGD.step, "replayed", False)  # made so by Optimizer.__init_subclass__

    def run(compiled):
        model, _ = setup()
        opt = HandWrittenSGD(model.parameters(), lr=0.1)

        def step(x, y):
            opt.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            return loss

        fn = minitorch.compile(step, fullgraph=True) if compiled else step
        losses = [fn(x, y).data.tobytes() for x, y in batches()]
        return losses, [p.data.tobytes() for p in model.parameters()], fn

    eager, compiled = run(False), run(True)
    assert eager[:2] == compiled[:2]
    labels = [s.label for s in _program(compiled[2]).steps if hasattr(s, "label")]
    assert labels == ["HandWrittenSGD.zero_grad", "HandWrittenSGD.step"]


def set_grads(model, grads):
    for p, g in zip(model.parameters(), grads):
        p.grad = g


@pytest.mark.parametrize(
    "backward, reason",
    [
        (lambda loss, model: minitorch.autograd.backward(loss), r"autograd\.backward\(\.\.\.\) is not traced"),
        (
            lambda loss, model: set_grads(model, minitorch.autograd.grad(loss, list(model.parameters()))),
            r"autograd\.grad\(\.\.\.\) without create_graph is not traced",
        ),
    ],
    ids=["autograd.backward", "autograd.grad"],
)
def test_a_backward_the_tracer_does_not_write_down_runs_the_step_eagerly(backward, reason):
    def run(compiled):
        model, opt = setup()

        def step(x, y):
            opt.zero_grad()
            loss = F.cross_entropy(model(x), y)
            backward(loss, model)
            opt.step()
            return loss

        fn = minitorch.compile(step) if compiled else step
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            losses = [fn(x, y).data.tobytes() for x, y in batches()]
        return losses, [p.data.tobytes() for p in model.parameters()], fn, caught

    eager, compiled = run(False), run(True)
    assert eager[:2] == compiled[:2]  # eager every time: the model trained as without compile
    assert eager[0][0] != eager[0][-1]
    assert _program(compiled[2]) is None
    assert any(w.category is GraphBreakWarning for w in compiled[3])
    assert any(re.search(reason, r) for r in minitorch.explain(compiled[2]).break_reasons)


def test_random_numbers_from_a_generator_of_the_step_s_own_are_a_graph_break():
    g = minitorch.Generator().manual_seed(0)
    compiled = minitorch.compile(lambda x: (x + minitorch.rand(3, generator=g)).sum())
    with pytest.warns(GraphBreakWarning, match=r"random numbers drawn outside an op \(rand\)"):
        compiled(minitorch.ones(3))
    first, second = compiled(minitorch.ones(3)), compiled(minitorch.ones(3))
    assert first.item() != second.item()  # eager: fresh numbers every call


def test_manual_seed_inside_the_step_is_a_graph_break():
    def step(x):
        minitorch.manual_seed(0)
        return (x * 2).sum()

    compiled = minitorch.compile(step)
    with pytest.warns(GraphBreakWarning, match="manual_seed"):
        compiled(minitorch.ones(3))
    assert _program(compiled) is None
