"""draw_graph: the DOT source for small known graphs (nodes, edges, labels, colours)."""

import re

import numpy as np
import pytest

import minitorch
from minitorch.functions import Mul
from widgets import draw_graph, style
from widgets.draw import recorder
from widgets.draw.graph import ComputationGraph


@pytest.fixture(autouse=True)
def _recorder():
    # the recorder starts with the first widget opened; install it here whatever ran before.
    recorder.install()


def nodes(dot):
    """{node id: attribute text} from a DOT source."""
    found = dict(re.findall(r"^\t+(\w+) \[(.*?)\]$", dot.source, flags=re.M | re.S))
    return {k: v for k, v in found.items() if k not in ("node", "edge", "graph")}


def edges(dot):
    return re.findall(r"^\t+(\w+) -> (\w+) \[(.*?)\]$", dot.source, flags=re.M)


def small_graph():
    x = minitorch.tensor([[1.0, 2.0, 3.0]])  # data: needs no grad
    w = minitorch.tensor(np.arange(6, dtype=np.float32).reshape(3, 2) / 10, requires_grad=True)
    b = minitorch.zeros(2, requires_grad=True)
    loss = ((x @ w + b) ** 2).mean()
    return x, w, b, loss


def test_known_graph_nodes_edges_and_labels():
    x, w, b, loss = small_graph()
    dot = draw_graph(loss, names={"w": w, "b": b})
    n = nodes(dot)
    ops = {k: v for k, v in n.items() if k.startswith("op")}
    # MatMul, Add, Pow, Mean; each op's output is a tensor node; the loss is the root.
    assert sorted(re.search(r"label=(\w+)", v).group(1) for v in ops.values()) == [
        "AddBackward", "MatMulBackward", "MeanBackward", "PowBackward"]
    assert 'label="loss\n() float32' in n["t0"]
    assert style.ROOT_FILL in n["t0"]
    params = [v for v in n.values() if style.PARAM_FILL in v]
    assert len(params) == 2 and any('"w\n(3, 2) float32' in p for p in params)
    # x, a tensor that needs no grad, is drawn as a "no grad" input; the Python number 2 of
    # ``** 2`` and mean's settings are not tensors and get no box.
    assert sum(1 for v in n.values() if "no grad" in v) == 1
    # 4 ops + 4 output tensors (3 intermediate + loss) + 2 params + 1 constant
    assert len(n) == 11
    # every op has one output edge and one edge per tensor input: 4 + (2 + 2 + 1 + 1)
    assert len(edges(dot)) == 10


def test_only_tensor_inputs_get_a_no_grad_box():
    from minitorch.functions.fused import linear

    x = minitorch.randn(2, 3)  # data: a tensor that needs no grad, drawn as "no grad"
    w = minitorch.randn(4, 3, requires_grad=True)
    # A None bias, the Python number 3.0 and sum's axis are not tensors: no box for them.
    loss = (linear(x, w, None) * 3.0).sum(1).sum()
    assert draw_graph(loss).source.count('label="no grad"') == 1
    assert 'label="no grad"' not in draw_graph(loss, show_constants=False).source


def test_ids_are_deterministic_and_not_addresses():
    *_, loss1 = small_graph()
    *_, loss2 = small_graph()
    assert draw_graph(loss1).source == draw_graph(loss2).source
    assert "0x" not in draw_graph(loss1).source


def test_gradients_shown_after_backward_with_edge_colours():
    x, w, b, loss = small_graph()
    before = draw_graph(loss)
    assert "|grad|" not in before.source
    assert all(style.NO_GRAD_EDGE in attrs for *_, attrs in edges(before))
    loss.backward()
    after = draw_graph(loss, names={"w": w, "b": b})
    n = nodes(after)
    w_label = next(v for v in n.values() if '"w\n' in v)
    assert f"|grad| {style.fmt_norm(float(np.linalg.norm(w.grad.numpy())))}" in w_label
    coloured = [attrs for *_, attrs in edges(after) if any(c in attrs for c in style.GRAD_RAMP)]
    assert len(coloured) >= 7  # every edge that carried a gradient
    assert "|grad|" not in draw_graph(loss, show_grad=False).source


def test_nan_gradient_is_flagged():
    x = minitorch.tensor([0.0, 1.0], requires_grad=True)
    loss = x.sqrt().sum() * 0 + (x.log()).sum()  # d log(x)/dx at 0 is inf
    loss.backward()
    src = draw_graph(loss).source
    assert "bad gradient!" in src and style.BAD_GRAD in src


def test_learners_backward_is_marked():
    def my_mul_backward(ctx, grad):
        a, b = ctx.saved_tensors
        return grad * b, grad * a

    minitorch.autograd.override_backward(Mul, my_mul_backward)
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    src = draw_graph((x * x).sum()).source
    assert "MulBackward\n(your backward)" in src and style.YOURS_FILL in src


def test_module_parameters_are_named_and_clustered():
    nn = pytest.importorskip("minitorch.nn")
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    loss = model(minitorch.randn(5, 3)).sum()
    src = draw_graph(loss, params=model).source
    assert src.count("subgraph cluster_") == 2
    assert '"0.weight\n(4, 3) float32' in src and '"2.bias\n(2,) float32' in src


def test_big_graph_is_summarised_with_a_note():
    x = minitorch.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(200):
        y = y * 1.01
    dot = draw_graph(y.sum(), max_nodes=30)
    n = nodes(dot)
    assert len(n) < 45
    assert "Large graph" in dot.source and "more are summarised" in dot.source
    graph = ComputationGraph(y.sum(), max_nodes=30)
    assert sum(graph.hidden.values()) + len(graph.op_ids) == graph.total_ops == 201


def test_leaf_root_and_show_data():
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    src = draw_graph(x, show_data=True).source
    assert "[1. 2.]" in src and style.PARAM_FILL in src


def test_renders_svg():
    *_, loss = small_graph()
    svg = draw_graph(loss)._repr_image_svg_xml()
    assert svg.count('class="node"') == 11


def test_text_form_is_stable_for_nbval():
    *_, loss = small_graph()
    dot = draw_graph(loss)
    assert repr(dot) == "<computation graph: 11 nodes, 10 edges>"
    assert dot._repr_mimebundle_(include=["image/svg+xml"])  # still a graphviz picture


def test_records_are_capped_when_graphs_are_kept_alive(monkeypatch):
    monkeypatch.setattr(recorder, "MAX_BYTES", 10_000)
    kept = []
    x = minitorch.randn(100, requires_grad=True)  # 400-byte gradients
    for _ in range(50):
        loss = (x * 2.0).sum()
        loss.backward()
        kept.append(loss)  # the classic mistake: keeping every graph alive
    recorded = [recorder.record_of(loss.grad_fn) is not None for loss in kept]
    assert recorded[-1] and not recorded[0]
    assert recorder.STATE.held_bytes <= 10_000


def test_recorder_state_reset():
    state = recorder.RecorderState()
    first = next(state.counter)
    state.enabled, state.held_bytes = False, 123
    state.recent.append((None, 123))
    state.reset()
    assert state.enabled and state.held_bytes == 0 and not state.recent
    assert next(state.counter) > first  # sequence numbers keep increasing across a reset
