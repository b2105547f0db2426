"""Widgets are never silently wrong: a learner's slip gets one clear error naming the widget,
the argument and the value; the checkers report a wrong call in their result; a huge graph
is summarised instead of freezing Graphviz."""

import re

import numpy as np
import pytest

import minitorch
from minitorch import nn
from minitorch.functions import Exp, Mul
from widgets import (
    BackwardStepper,
    TrainingMonitor,
    check_backward,
    check_function,
    decision_boundary,
    draw_graph,
    gradient_flow,
    lesson_score,
    recorder,
)
from widgets.draw.graph import MAX_GRAPH_NODES


@pytest.fixture(autouse=True)
def _recorder():
    recorder.install()


def model():
    minitorch.manual_seed(0)
    return nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 2))


def loss_of(m):
    return m(minitorch.randn(4, 2)).sum()


def monitor():
    return TrainingMonitor(display=False)


def points():
    return np.zeros((5, 2))


# (id, call, exception type, words the message must contain)
RAISES = [
    ("draw_graph-float", lambda: draw_graph(3.0), TypeError, ["draw_graph", "root", "Tensor", "float 3.0"]),
    ("draw_graph-module", lambda: draw_graph(model()), TypeError,
     ["draw_graph", "root", "Sequential", "not the model"]),
    ("draw_graph-array", lambda: draw_graph(np.ones(3)), TypeError, ["draw_graph", "NumPy array", "requires_grad"]),
    ("draw_graph-max_nodes-None", lambda: draw_graph(loss_of(model()), max_nodes=None), TypeError,
     ["draw_graph", "max_nodes", "whole number", "None"]),
    ("draw_graph-max_nodes-zero", lambda: draw_graph(loss_of(model()), max_nodes=0), ValueError,
     ["draw_graph", "max_nodes", ">= 1", "0"]),
    ("draw_graph-max_nodes-float", lambda: draw_graph(loss_of(model()), max_nodes=12.5), TypeError,
     ["max_nodes", "float 12.5"]),
    ("draw_graph-params-generator", lambda: draw_graph(loss_of(m := model()), params=m.parameters()), TypeError,
     ["draw_graph", "params", "without names", "params=model", "named_parameters"]),
    ("draw_graph-params-tensor", lambda: draw_graph(loss_of(model()), params=minitorch.ones(2)), TypeError,
     ["draw_graph", "params", "Tensor of shape (2,)"]),
    ("draw_graph-params-dict-of-arrays", lambda: draw_graph(loss_of(model()), params={"w": np.ones(2)}), TypeError,
     ["draw_graph", "params['w']", "NumPy array"]),
    ("draw_graph-names-list", lambda: draw_graph(loss_of(model()), names=[minitorch.ones(2)]), TypeError,
     ["draw_graph", "names", "dict", "list"]),
    ("draw_graph-model-as-show_grad", lambda: draw_graph(loss_of(m := model()), m), TypeError,
     ["draw_graph", "show_grad", "True or False", "params=model"]),
    ("draw_graph-rankdir-lowercase", lambda: draw_graph(loss_of(model()), rankdir="tb"), ValueError,
     ["draw_graph", "rankdir", "'tb'", "rankdir='TB'"]),
    ("draw_graph-size", lambda: draw_graph(loss_of(model()), size="big"), ValueError,
     ["draw_graph", "size", "width,height", "'big'"]),
    ("stepper-float", lambda: BackwardStepper(3.0), TypeError, ["BackwardStepper", "loss", "Tensor", "float 3.0"]),
    ("stepper-leaf", lambda: BackwardStepper(minitorch.ones(1)), ValueError,
     ["BackwardStepper", "grad_fn", "requires_grad=True"]),
    ("stepper-not-scalar", lambda: BackwardStepper(model()(minitorch.randn(4, 2))), ValueError,
     ["BackwardStepper", "single number", "(4, 2)", "loss.sum()"]),
    ("stepper-max_nodes", lambda: BackwardStepper(loss_of(model()), max_nodes=-3), ValueError,
     ["BackwardStepper", "max_nodes", "-3"]),
    ("stepper-rankdir", lambda: BackwardStepper(loss_of(model()), rankdir="up"), ValueError,
     ["BackwardStepper", "rankdir", "'up'"]),
    ("gradient_flow-int", lambda: gradient_flow(3), TypeError, ["gradient_flow", "model", "Module", "int 3"]),
    ("gradient_flow-tensor", lambda: gradient_flow(loss_of(model())), TypeError,
     ["gradient_flow", "model", "not a tensor"]),
    ("monitor-update-str", lambda: monitor().update(0, loss="abc"), TypeError,
     ["TrainingMonitor.update", "loss", "number", "'abc'"]),
    ("monitor-update-vector", lambda: monitor().update(0, loss=minitorch.ones(3)), ValueError,
     ["TrainingMonitor.update", "loss", "one number", "(3,)", ".item()"]),
    ("monitor-update-positional", lambda: monitor().update(0, 0.5), TypeError,
     ["TrainingMonitor.update", "name", "loss=", "float 0.5"]),
    ("monitor-update-step", lambda: monitor().update("one", loss=0.5), TypeError,
     ["TrainingMonitor.update", "step", "str 'one'"]),
    ("monitor-grad_flow-without-model", lambda: TrainingMonitor(grad_flow=True, display=False), ValueError,
     ["TrainingMonitor", "grad_flow=True", "model=model"]),
    ("monitor-model-not-module", lambda: TrainingMonitor(model=3, display=False), TypeError,
     ["TrainingMonitor", "model", "int 3"]),
    ("monitor-budget", lambda: TrainingMonitor(budget=0, display=False), ValueError, ["TrainingMonitor", "budget"]),
    ("boundary-X-3-columns", lambda: decision_boundary(model(), np.zeros((5, 3)), np.zeros(5)), ValueError,
     ["decision_boundary", "X", "(N, 2)", "(5, 3)"]),
    ("boundary-y-length", lambda: decision_boundary(model(), points(), np.zeros(4)), ValueError,
     ["decision_boundary", "y", "one label per point", "(4,)"]),
    ("boundary-y-one-hot", lambda: decision_boundary(model(), points(), np.eye(2)[[0, 1, 0, 1, 0]]), ValueError,
     ["decision_boundary", "one-hot", "argmax"]),
    ("boundary-y-fractions", lambda: decision_boundary(model(), points(), np.full(5, 0.5)), ValueError,
     ["decision_boundary", "class numbers"]),
    ("boundary-model-not-callable", lambda: decision_boundary(3, points(), np.zeros(5)), TypeError,
     ["decision_boundary", "model", "int 3"]),
    ("boundary-resolution", lambda: decision_boundary(model(), points(), np.zeros(5), resolution=1), ValueError,
     ["decision_boundary", "resolution", ">= 2"]),
    ("lesson_score-string", lambda: lesson_score("Mul.backward"), TypeError,
     ["lesson_score", "list", "lesson_score(['Mul.backward'])"]),
]


@pytest.mark.parametrize("call, error, words", [c[1:] for c in RAISES], ids=[c[0] for c in RAISES])
def test_a_slip_raises_a_clear_error(call, error, words):
    with pytest.raises(error) as info:
        call()
    for word in words:
        assert word in str(info.value), f"{word!r} missing from: {info.value}"


# (id, call, words the result's message must contain); the checkers never raise.
BAD_CALLS = [
    ("shapes-one-shape", lambda: check_backward(Mul, shapes=(3, 4)), ["one shape", "shapes=[(3, 4)]"]),
    ("shapes-empty", lambda: check_backward(Mul, shapes=[]), ["shapes is empty", "at least one case"]),
    ("shapes-not-a-shape", lambda: check_backward(Mul, shapes=[(3, "a")]), ["case 1", "'a'", "not a shape"]),
    ("shapes-negative", lambda: check_backward(Mul, shapes=[((3, -1), (3,))]), ["case 1", "(3, -1)", "negative"]),
    ("shapes-too-few", lambda: check_backward(Mul, shapes=[(3,)]),
     ["case 1", "1 shape", "2 tensor input", "((3,), (3,))"]),
    ("op-instance", lambda: check_backward(Mul(), None), ["instance of Mul", "check_backward(Mul"]),
    ("op-string", lambda: check_backward("Mul"), ["string 'Mul'", "class"]),
    ("backward-not-callable", lambda: check_backward(Mul, 3), ["backward", "int 3"]),
    ("backward-with-plain-function", lambda: check_backward(lambda a: a.exp(), lambda ctx, g: g),
     ["backward=", "Function class", "leave backward out"]),
    ("args-not-tuple", lambda: check_backward(Exp, args=1), ["args", "args=(1,)"]),
    ("domain-reversed", lambda: check_backward(Exp, domain=(2.0, -2.0)), ["domain", "low < high"]),
    ("atol-negative", lambda: check_backward(Exp, atol=-1), ["atol", ">= 0"]),
    ("check_function-no-cases", lambda: check_function("add", max, max, []), ["cases is empty"]),
    ("check_function-case-not-tuple", lambda: check_function("neg", abs, abs, [3]), ["case 1", "int 3", "(3,)"]),
    ("check_function-reference-fails", lambda: check_function("add", max, max, [()]),
     ["case 1", "reference failed", "TypeError"]),
    ("check_function-not-callable", lambda: check_function("add", None, max, [(1, 2)]), ["learner_fn", "None"]),
]


@pytest.mark.parametrize("call, words", [c[1:] for c in BAD_CALLS], ids=[c[0] for c in BAD_CALLS])
def test_a_wrong_check_call_is_reported_in_the_result(call, words):
    result = call()
    assert result.status == "failed" and not result.passed
    assert result.message.startswith("Bad arguments to check_")
    text = repr(result) + result._repr_html_()
    for word in words:
        assert word in result.message and word in result.rows[0].hint, f"{word!r} missing from: {result.message}"
    assert "FAIL" in text


def test_named_parameters_are_accepted_even_as_a_generator():
    m = model()
    loss = loss_of(m)
    source = draw_graph(loss, params=m.named_parameters()).source  # a generator of (name, tensor) pairs
    assert source == draw_graph(loss, params=dict(m.named_parameters())).source
    assert '"0.weight\n(3, 2) float32' in source


def test_monitor_takes_numbers_and_one_element_tensors():
    mon = monitor()
    mon.update(0, loss=minitorch.tensor(2.0), acc=np.float32(0.5), lr=None)
    mon.update(1, loss=np.array([1.0]), acc=1)
    assert mon.history["loss"] == ([0, 1], [2.0, 1.0]) and mon.history["acc"][1] == [0.5, 1.0]


def long_chain(n):
    x = minitorch.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(n):
        y = y * 1.0001
    return y.sum()


def node_ids(source):
    return re.findall(r"^\t+(?!node |edge |graph )(\w+) \[", source, flags=re.M)


def test_a_20000_op_graph_is_cut_to_the_limit_and_says_so():
    loss = long_chain(20_000)
    dot = draw_graph(loss, max_nodes=20_000)  # asked for everything: Graphviz would run for minutes
    ids = node_ids(dot.source)
    assert len(ids) <= MAX_GRAPH_NODES
    shown = sum(1 for i in ids if i.startswith("op"))
    assert f"showing {shown:,} of 20,001 ops" in dot.source
    assert f"limit: {MAX_GRAPH_NODES} boxes" in dot.source
    assert f"{20_001 - shown} more ops" in dot.source  # the summary box counts what was left out
    assert dot.pipe(format="svg").startswith(b"<?xml")  # a few hundred boxes: fast


def test_an_op_with_a_thousand_inputs_stays_within_the_limit():
    leaves = [minitorch.randn(2, requires_grad=True) for _ in range(1000)]
    dot = draw_graph(minitorch.functions.stack(leaves).sum(), max_nodes=5000)
    assert len(node_ids(dot.source)) <= MAX_GRAPH_NODES
    assert "inputs not drawn" in dot.source and "inputs are not drawn" in dot.source


def test_stepper_on_a_long_graph_is_bounded():
    stepper = BackwardStepper(long_chain(3000), max_nodes=10_000)
    assert len(stepper) == 3001
    stepper.slider.value = 1500
    assert len(node_ids(stepper.show(1500).source)) <= MAX_GRAPH_NODES
    assert "earlier steps" in stepper.order_html.value and "later steps" in stepper.order_html.value
    assert stepper.order_html.value.count("<span") <= 60
