"""TrainingMonitor, gradient_flow and decision_boundary (matplotlib Agg, no notebook needed)."""

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import minitorch  # noqa: E402
from minitorch import nn  # noqa: E402
from widgets import decision_boundary, gradient_flow  # noqa: E402
from widgets.draw import plotting  # noqa: E402
from widgets.draw.monitor import TrainingMonitor, classify  # noqa: E402


class FakeHandle:
    """A display handle that only counts what it was sent."""

    def __init__(self):
        self.shown = []

    def update(self, obj):
        self.shown.append(obj)


def small_model():
    minitorch.manual_seed(0)
    return nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 3))


def test_update_logs_and_groups_metrics_into_panels():
    monitor = TrainingMonitor(display=False)
    for step in range(50):
        monitor.update(step, loss=1.0 / (step + 1), val_loss=1.2 / (step + 1), acc=minitorch.tensor(step / 50))
    assert monitor.history["loss"][0] == list(range(50))
    assert monitor.last("acc") == pytest.approx(49 / 50)
    fig = monitor.figure()
    titles = [ax.get_title() for ax in fig.axes]
    assert titles == ["loss", "acc"]  # val_loss shares the loss panel
    assert len(fig.axes[0].get_lines()) == 2
    assert plotting.figure_png(fig)[:8] == b"\x89PNG\r\n\x1a\n"


def test_redraws_are_throttled_by_time_and_budget(monkeypatch):
    clock = [0.0]
    monkeypatch.setattr("widgets.draw.monitor.time.perf_counter", lambda: clock[0])

    def slow_png(fig):  # each redraw takes 0.1 s of the fake clock
        clock[0] += 0.1
        return b"png"

    monkeypatch.setattr("widgets.draw.monitor.plotting.figure_png", slow_png)
    monitor = TrainingMonitor(display=False, every=0.5, budget=0.05)
    monitor._handle = FakeHandle()
    monitor.warm_up()
    clock[0] = 0.0
    for step in range(10_000):  # 10,000 steps of 1 ms = 10 s of "training"
        clock[0] += 0.001
        monitor.update(step, loss=1.0)
    # "every" alone would allow 20 redraws; the 5 % budget allows at most 5 of 0.1 s.
    assert 2 <= monitor.draws <= 5
    assert monitor.draw_seconds <= 0.05 * clock[0]
    assert len(monitor._handle.shown) == monitor.draws


def test_close_leaves_a_static_png_with_fixed_text():
    monitor = TrainingMonitor(display=False)
    monitor._handle = FakeHandle()
    monitor.update(0, loss=2.0)
    monitor.update(1, loss=1.0)
    fig = monitor.close()
    final = monitor._handle.shown[-1]
    png, metadata = final._repr_png_()
    assert png[:4] == b"\x89PNG" and repr(final) == "<training curves>"
    # the size of its smallest text, for the browser test: tick labels at the figure's dpi
    assert metadata[plotting.TEXT_SIZE_KEY]["dpi"] == fig.dpi and metadata[plotting.TEXT_SIZE_KEY]["smallest_pt"] > 5
    assert fig.axes[0].get_title() == "loss"


def test_monitor_with_gradient_flow_panel():
    model = small_model()
    nn.functional.cross_entropy(model(minitorch.randn(4, 2)), minitorch.tensor([0, 1, 2, 0])).backward()
    monitor = TrainingMonitor(model=model, grad_flow=True, display=False)
    monitor.update(0, loss=1.0)
    fig = monitor.figure(fast=True)
    assert [ax.get_title() for ax in fig.axes] == ["loss", "gradient norm per parameter"]


def test_gradient_flow_flags_vanishing_exploding_and_missing():
    model = small_model()
    x = minitorch.randn(4, 2)
    nn.functional.cross_entropy(model(x), minitorch.tensor([0, 1, 2, 0])).backward()
    params = dict(model.named_parameters())
    params["0.weight"].grad = params["0.weight"].grad * 1e-9
    params["2.weight"].grad = params["2.weight"].grad * 1e6
    params["2.bias"].grad = None
    flow = gradient_flow(model)
    assert flow.vanishing == ["0.weight"] and flow.exploding == ["2.weight"] and flow.missing == ["2.bias"]
    assert flow.norms["0.bias"] == pytest.approx(float(np.linalg.norm(params["0.bias"].grad.numpy())))
    assert "vanishing: 0.weight" in repr(flow)
    labels = [t.get_text() for t in flow.figure.axes[0].get_yticklabels()]
    assert "0.weight  (vanishing)" in labels and "2.bias  (no grad)" in labels
    assert flow._repr_png_()[0][:4] == b"\x89PNG"
    assert classify(float("nan")) == "bad" and classify(1.0) == "ok"


def test_decision_boundary_on_a_separable_problem():
    from minitorch.datasets import make_moons

    X, y = make_moons(100, noise=0.05)
    minitorch.manual_seed(0)
    model = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 2))
    opt = minitorch.optim.Adam(model.parameters(), lr=0.05)
    for _ in range(150):
        loss = nn.functional.cross_entropy(model(X), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    fig = decision_boundary(model, X, y)
    title = fig.axes[0].get_title()
    assert title.startswith("decision boundary (accuracy") and int(title.split()[3].rstrip("%")) >= 85
    assert model.training  # put back in training mode
    assert plotting.figure_png(fig)[:4] == b"\x89PNG"
