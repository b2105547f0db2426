"""``draw_graph`` of a compiled step: the flat list of kernels, and the listing behind it."""

import pytest

import minitorch
from minitorch import nn
from minitorch.jit.listing import kernels, listing
from minitorch.nn import functional as F
from widgets import draw_graph


def compiled_step():
    minitorch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
    opt = minitorch.optim.Adam(model.parameters(), lr=1e-2)

    def step(x, y):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss

    return model, minitorch.compile(step)


def test_the_listing_is_the_replay_order_with_the_buffers_each_kernel_reads_and_writes():
    _, step = compiled_step()
    x, y = minitorch.randn(5, 4), minitorch.tensor([0, 1, 2, 0, 1])
    step(x, y)
    program = next(iter(step.entries.values())).program
    rows = kernels(program)
    assert [k.name for k in rows] == [
        "Adam.zero_grad",
        "Linear.forward",
        "ReLU.forward",
        "Linear.forward",
        "SoftmaxCrossEntropy.forward",
        "SoftmaxCrossEntropy.backward",
        "Linear.backward",
        "ReLU.backward",
        "Linear.backward",
        "Adam.step",
    ]
    first, relu = rows[1], rows[2]
    assert relu.reads == first.writes  # the dataflow: ReLU reads what the first Linear wrote
    assert rows[7].reads == rows[6].writes[:1]  # the gradient of ReLU's output comes from Linear.backward
    assert any("(.grad)" in w for w in rows[8].writes)
    assert "Linear.backward" in listing(program) and "(Python, run again)" in listing(program)


def test_draw_graph_of_a_compiled_step_draws_its_kernels():
    model, step = compiled_step()
    with pytest.raises(ValueError, match="not been called yet"):
        draw_graph(step)
    step(minitorch.randn(5, 4), minitorch.tensor([0, 1, 2, 0, 1]))
    picture = draw_graph(step)
    source = picture.source
    assert source.count("shape=box") == 10  # one box per kernel
    assert "0: Adam.zero_grad" in source and "8: Linear.backward" in source and "9: Adam.step" in source
    assert "style=dotted" in source  # the order
    assert "rankdir=TB" in source  # a list of kernels reads top to bottom, whatever draw_graph's default
    assert "memory address" not in repr(picture) and "nodes" in repr(picture)


def test_draw_graph_of_a_compiled_module_and_of_an_eager_signature():
    model = nn.Linear(3, 2)
    model.compile()
    with minitorch.no_grad():
        model(minitorch.ones(1, 3))
    assert "Linear.forward" in draw_graph(model).source
    eager = minitorch.compile(lambda x: x.sum().item())
    with pytest.warns(UserWarning):
        eager(minitorch.ones(2))
    with pytest.raises(ValueError, match="has no program"):
        draw_graph(eager)
