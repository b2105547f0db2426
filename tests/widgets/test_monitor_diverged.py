"""TrainingMonitor and a diverged run: a NaN/Inf metric is drawn as a marked point and reported once."""

import math
import warnings

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from widgets.draw import plotting  # noqa: E402
from widgets.draw.monitor import TrainingMonitor  # noqa: E402


def _nan_markers(ax):
    return [line for line in ax.get_lines() if line.get_marker() == "x"]


def test_a_nan_loss_warns_once_and_is_drawn_as_a_red_cross():
    monitor = TrainingMonitor(display=False)
    with pytest.warns(RuntimeWarning, match=r"loss is nan at step 3: the run has diverged") as caught:
        for step, value in enumerate([1.0, 0.8, 0.5, float("nan"), float("nan"), math.inf]):
            monitor.update(step, loss=value)
    assert len([w for w in caught if "diverged" in str(w.message)]) == 1  # said once, not at every step
    assert len(monitor.history["loss"][1]) == 6  # every value is kept, the NaNs too
    fig = monitor.figure()
    (marker,) = _nan_markers(fig.axes[0])
    np.testing.assert_array_equal(marker.get_xdata(), [3, 4, 5])
    np.testing.assert_array_equal(marker.get_ydata(), [1.0, 1.0, 1.0])  # at the top of the finite values
    assert "NaN/Inf (3)" in marker.get_label()
    assert any("nan from step 3" in t.get_text() for t in fig.axes[0].texts)
    assert plotting.figure_png(fig)[:8] == b"\x89PNG\r\n\x1a\n"


def test_minus_inf_sits_at_the_bottom_and_finite_runs_have_no_marker():
    monitor = TrainingMonitor(display=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for step, value in enumerate([2.0, 1.0, -math.inf]):
            monitor.update(step, score=value)
    monitor.update(0, acc=0.5)
    fig = monitor.figure()
    (marker,) = _nan_markers(fig.axes[0])
    assert list(marker.get_ydata()) == [1.0]
    assert _nan_markers(fig.axes[1]) == []


def test_only_nan_values_still_draw():
    monitor = TrainingMonitor(display=False)
    with pytest.warns(RuntimeWarning, match="loss is nan"):
        monitor.update(0, loss=float("nan"))
    (marker,) = _nan_markers(monitor.figure().axes[0])
    assert list(marker.get_xdata()) == [0]


@pytest.mark.parametrize("step", [float("nan"), math.inf])
def test_a_step_that_is_not_finite_is_refused(step):
    monitor = TrainingMonitor(display=False)
    with pytest.raises(ValueError, match=r"TrainingMonitor.update: step must be a finite number .* got (nan|inf)"):
        monitor.update(step, loss=1.0)
    with pytest.raises(ValueError, match="monitor.update\\(step, loss=loss\\)"):
        monitor.update(float("nan"))
