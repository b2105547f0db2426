"""BackwardStepper: its order is the engine's, it leaves .grad alone, the slider moves the highlight."""

import numpy as np
import pytest

import minitorch
from widgets import style
from widgets.draw import recorder
from widgets.draw.stepper import BackwardStepper


@pytest.fixture(autouse=True)
def _recorder():
    recorder.install()


def make_loss():
    minitorch.manual_seed(0)
    x = minitorch.randn(4, 3)
    w = minitorch.randn(3, 2, requires_grad=True)
    b = minitorch.zeros(2, requires_grad=True)
    h = (x @ w + b).relu()
    return w, b, (h**2).mean() + (w * w).sum()


def engine_order(loss):
    order = []

    def observe(node, grad_output, grad_inputs):
        order.append(type(node).__name__)

    minitorch.autograd.add_backward_observer(observe)
    try:
        loss.backward(retain_graph=True)
    finally:
        minitorch.autograd.remove_backward_observer(observe)
    return order


def test_order_is_the_engines_and_grads_are_not_doubled():
    w, b, loss = make_loss()
    stepper = BackwardStepper(loss)
    assert w.grad is None and b.grad is None  # the stepper's own backward left .grad alone
    assert stepper.order == engine_order(loss)
    first = w.grad.numpy().copy()
    stepper2 = BackwardStepper(loss)
    np.testing.assert_array_equal(w.grad.numpy(), first)
    assert stepper2.order == stepper.order


def test_steps_highlight_one_node_and_grey_the_rest():
    w, b, loss = make_loss()
    stepper = BackwardStepper(loss, names={"w": w, "b": b})
    n = len(stepper)
    assert n == 8
    start = stepper.show(0).source
    assert style.CURRENT_FILL not in start
    assert start.count(style.PENDING_FILL) >= n  # every op still to run is grey
    middle = stepper.show(3).source
    assert middle.count(style.CURRENT_FILL) == 1
    assert f"{stepper.order[2]}" in middle
    end = stepper.show(n).source
    assert end.count(style.CURRENT_FILL) == 1 and "PENDING" not in end
    assert end.count(style.PENDING_FILL) == 0
    # after the last step the leaves show their full gradient
    w_norm = style.fmt_norm(float(np.linalg.norm(engine_grad(loss, w))))
    assert f"|grad| {w_norm}" in end


def engine_grad(loss, leaf):
    leaf.grad = None
    loss.backward(retain_graph=True)
    g = leaf.grad.numpy().copy()
    leaf.grad = None
    return g


def test_slider_and_buttons_redraw_the_graph():
    w, b, loss = make_loss()
    stepper = BackwardStepper(loss)
    assert 'data-step="0"' in stepper.graph_html.value
    stepper.next_button.click()
    assert stepper.slider.value == 1 and 'data-step="1"' in stepper.graph_html.value
    assert style.CURRENT_FILL in stepper.graph_html.value
    assert "Step 1 of 8: AddBackward" in stepper.caption_html.value
    stepper.slider.value = 8
    assert "Backward is done" in stepper.caption_html.value
    stepper.next_button.click()
    assert stepper.slider.value == 8  # clamped at the end
    stepper.prev_button.click()
    assert stepper.slider.value == 7


def test_replays_a_backward_that_already_ran():
    w, b, loss = make_loss()
    expected = engine_order(loss)
    w.grad = b.grad = None
    loss2 = make_loss()[2]
    loss2.backward()  # frees the buffers
    stepper = BackwardStepper(loss2)
    assert stepper.order == expected
    assert "replayed" in stepper.source


def test_freed_graph_without_records_has_a_clear_error():
    w, b, loss = make_loss()
    recorder.set_recording(False)
    try:
        loss.backward()
    finally:
        recorder.set_recording(True)
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        BackwardStepper(loss)
