"""Live training curves (``TrainingMonitor``) and per-parameter gradient norms (``gradient_flow``).

    monitor = TrainingMonitor(model=model, grad_flow=True)   # shows an empty figure
    for step in range(steps):
        ...
        loss.backward(); optimizer.step()
        monitor.update(step, loss=loss.item(), acc=accuracy)   # cheap: draws now and then
        optimizer.zero_grad()
    monitor.close()                                           # the final figure, a static PNG

``update`` only appends numbers. The figure is redrawn at most every ``every`` seconds,
and only while the time spent drawing stays under ``budget`` (4 %) of the time since the
first update, so a fast loop is not slowed down (the first curve shows after a few
seconds). The picture is a PNG in a display slot that is replaced in place; ``close()``
leaves the final figure there, so it survives saving the notebook (nbval ignores PNGs).

``val_loss`` is drawn in the same panel as ``loss`` (one panel per metric, prefixes
``train_``/``val_``/``test_`` share a panel); noisy curves get a smoothed line on top.
"""

import math
import numbers
import time
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from minitorch.tensor import Tensor
from widgets import style
from widgets.check import arguments
from widgets.draw import plotting
from widgets.i18n import _

SMOOTH_AFTER = 20  # points before a smoothed line is drawn over the raw one
MAX_POINTS = 1000
SPLIT_PREFIXES = ("train_", "val_", "test_")


def _panel(name: str) -> str:
    """The panel a metric is drawn in: ``val_loss`` and ``train_loss`` share ``loss``."""
    for prefix in SPLIT_PREFIXES:
        if name.startswith(prefix):
            return name[len(prefix):]
    return name


def _ema(values: Sequence[float] | np.ndarray, alpha: float) -> np.ndarray:
    """Exponential moving average, bias-corrected (so the first points are not pulled to 0)."""
    out = np.empty(len(values))
    acc = 0.0
    for i, v in enumerate(values):  # one pass over at most a few thousand logged points
        acc = alpha * acc + (1 - alpha) * v
        out[i] = acc / (1 - alpha ** (i + 1))
    return out


class TrainingMonitor:
    """Loss/metric curves that update from inside a training loop; see the module docstring."""

    def __init__(self, model: Any = None, grad_flow: bool = False, every: float = 0.5, budget: float = 0.04,
                 smooth: float = 0.9, title: str | None = None, display: bool = True, width: float | None = None,
                 height: float = 3.2) -> None:
        w = "TrainingMonitor"
        grad_flow = arguments.need_bool(w, "grad_flow", grad_flow)
        if model is not None and not arguments.is_module(model):
            raise TypeError(_("{widget}: model must be a Module (for the gradient-flow panel), got {value}",
                              widget=w, value=arguments.what(model)))
        if grad_flow and model is None:
            raise ValueError(_("{widget}: grad_flow=True needs the model whose gradients to show: "
                               "TrainingMonitor(model=model, grad_flow=True)", widget=w))
        self.model = model
        self.grad_flow = grad_flow
        self.every = arguments.need_number(w, "every", every, low=0)
        self.budget = arguments.need_number(w, "budget", budget, low=0, high=1, low_open=True)
        self.smooth = arguments.need_number(w, "smooth", smooth, low=0, high=1, high_open=True)
        self.title = title
        self.width = None if width is None else arguments.need_number(w, "width", width, low=0, low_open=True)
        self.height = arguments.need_number(w, "height", height, low=0, low_open=True)
        self.history: dict[str, tuple[list[float], list[float]]] = {}  # metric name -> (steps, values)
        self.draws = 0
        self.draw_seconds = 0.0
        self._started: float | None = None  # time of the first update
        self._next_draw = 0.0
        self._draw_cost = 0.1  # seconds one redraw takes; measured after the first one
        self._closed = False
        self._diverged: set[str] = set()  # metrics already reported as NaN/Inf (warned once each)
        self._handle: Any = None  # IPython's display handle, updated in place
        if display and plotting.in_ipython():
            self._handle = plotting.show(self.warm_up())

    def warm_up(self) -> "_PNG":
        """Draw the (empty) figure once, before the loop; returns its PNG.

        It shows where the curves will appear, pays matplotlib's one-time start-up outside
        the training loop, and measures what a redraw costs.
        """
        start = time.perf_counter()
        fig = self.figure(fast=True)
        png = _PNG(plotting.figure_png(fig), fig)
        self._draw_cost = 1.5 * (time.perf_counter() - start)  # a figure full of data draws slower
        return png

    # ------------------------------------------------------------------ logging
    def update(self, step: float, *values: Any, **metrics: Any) -> None:
        """Log ``metrics`` (floats or 1-element tensors) at ``step``; redraw when it is time."""
        w = "TrainingMonitor.update"
        if values:
            raise TypeError(_("{widget}: give each metric a name, e.g. monitor.update(step, loss=...); got {n} "
                              "unnamed value(s) after step: {values}", widget=w, n=len(values),
                              values=", ".join(map(arguments.what, values))))
        if isinstance(step, bool) or not isinstance(step, numbers.Real):
            raise TypeError(_("{widget}: step must be a number (the x of the curves), got {value}", widget=w,
                              value=arguments.what(step)))
        if not math.isfinite(step):
            raise ValueError(_("{widget}: step must be a finite number (the x of the curves), got {step}; pass the "
                               "step first and the metrics by name: monitor.update(step, loss=loss)", widget=w,
                               step=step))
        logged = {name: _metric_value(w, name, value) for name, value in metrics.items() if value is not None}
        for name, value in logged.items():
            steps, values = self.history.setdefault(name, ([], []))
            steps.append(step)
            values.append(value)
            if not math.isfinite(value) and name not in self._diverged:
                # Once per metric: a diverged run is what the learner has to see, not a gap.
                self._diverged.add(name)
                warnings.warn(_("{widget}: {name} is {value} at step {step}: the run has diverged (try a smaller "
                                "learning rate); such points are drawn as red crosses at the panel's edge",
                                widget=w, name=name, value=value, step=step), RuntimeWarning, stacklevel=2)
        if self._handle is None:
            return
        now = time.perf_counter()
        if self._started is None:
            self._started = now
        # Draw when ``every`` seconds have passed and the drawing time so far, plus one more
        # draw, stays within ``budget`` of the time since the first update.
        affordable = self.draw_seconds + self._draw_cost <= self.budget * (now - self._started)
        if now >= self._next_draw and affordable:
            self._draw_live(now)

    def _draw_live(self, now: float) -> None:
        start = time.perf_counter()
        fig = self.figure(fast=True)
        self._handle.update(_PNG(plotting.figure_png(fig), fig))
        cost = time.perf_counter() - start
        self.draws += 1
        self.draw_seconds += cost
        self._draw_cost = 1.5 * cost  # the curves grow: expect the next draw to be a bit slower
        self._next_draw = now + cost + self.every

    def close(self) -> Figure:
        """Draw the final figure (a static PNG in the output) and return it."""
        fig = self.figure()
        if self._handle is not None:
            self._handle.update(_PNG(plotting.figure_png(fig), fig))
        self._closed = True
        return fig

    def last(self, name: str) -> float | None:
        """The most recent value logged for ``name`` (None if never)."""
        values = self.history.get(name, ([], []))[1]
        return values[-1] if values else None

    # ------------------------------------------------------------------ drawing
    def figure(self, fast: bool = False) -> Figure:
        """A new Figure with one panel per metric (and gradient flow, when asked).

        ``fast``: a fixed layout, quicker to draw (used for the live updates).
        """
        panels: dict[str, list[str]] = {}
        for name in self.history:
            panels.setdefault(_panel(name), []).append(name)
        n = len(panels) + (1 if self.grad_flow else 0)
        n = max(n, 1)
        # at most the notebook's width (JupyterLab shrinks a wider PNG, and its text with it)
        fig = plotting.new_figure(self.width or min(4.0 * n, plotting.NOTEBOOK_WIDTH_IN), self.height, fast=fast)
        axes = fig.subplots(1, n, squeeze=False)[0]
        if fast:
            fig.subplots_adjust(left=0.06, right=0.98, bottom=0.17, top=0.88, wspace=0.45 if self.grad_flow else 0.25)
        for ax, (panel, names) in zip(axes, panels.items()):
            for i, name in enumerate(names):
                self._plot_metric(ax, name, i)
            ax.set_title(names[0] if len(names) == 1 else panel)
            ax.set_xlabel(_("step"))
            ax.grid(alpha=0.3)
            if len(names) > 1:
                ax.legend(fontsize=8)
        if not panels and not self.grad_flow:
            axes[0].text(0.5, 0.5, _("waiting for monitor.update(...)"), ha="center", va="center",
                         transform=axes[0].transAxes, color="#888888")
            axes[0].set_axis_off()
        if self.grad_flow:
            plot_gradient_flow(axes[-1], gradient_norms(self.model))
        if self.title:
            fig.suptitle(self.title)
        return fig

    def _plot_metric(self, ax: Axes, name: str, i: int) -> None:
        logged_steps, logged_values = self.history[name]
        colour = ["#2171b5", "#e6550d", "#31a354", "#756bb1"][i % 4]
        steps, values = np.asarray(logged_steps), np.asarray(logged_values, dtype=np.float64)
        # At most ~MAX_POINTS points per line: a picture of 50,000 points is slow and no clearer.
        every = max(1, len(values) // MAX_POINTS)
        finite = values[np.isfinite(values)]
        log_scale = name.endswith("loss") and finite.size > 1 and np.all(finite > 0) and _spans_decades(finite)
        # Judge noise on the scale the curve is drawn on; smooth in that scale too.
        shown = np.log10(np.where(values > 0, values, np.nan)) if log_scale else values
        if len(values) > SMOOTH_AFTER and self.smooth and _is_noisy(shown):
            smooth = _ema(np.nan_to_num(shown, nan=float(np.nanmin(shown))), self.smooth)
            ax.plot(steps[::every], values[::every], color=colour, alpha=0.25, linewidth=0.8)
            ax.plot(steps[::every], (10**smooth if log_scale else smooth)[::every], color=colour, linewidth=1.8,
                    label=name)
        else:
            ax.plot(steps[::every], values[::every], color=colour, linewidth=1.5,
                    marker="." if len(values) < 30 else None, label=name)
        _mark_non_finite(ax, steps, values, finite)
        last = values[-1]
        if math.isfinite(last):
            # Label the latest value; below the curve when it sits at the top (the title is there).
            near_top = finite.size > 1 and last >= finite.min() + 0.9 * np.ptp(finite)
            ax.annotate(f"{last:.4g}", (steps[-1], last), textcoords="offset points",
                        xytext=(-4, -12 if near_top else 8), ha="right", fontsize=8, color=colour)
        if log_scale:
            ax.set_yscale("log")

    def __repr__(self) -> str:
        logged = ", ".join(self.history) or _("nothing yet")
        return f"TrainingMonitor({logged})"


def _mark_non_finite(ax: Axes, steps: np.ndarray, values: np.ndarray, finite: np.ndarray) -> None:
    """NaN and Inf values as red crosses: NaN and +Inf at the top of the curve's range, -Inf at the bottom.

    A line simply breaks at a NaN; the cross shows where the run diverged.
    """
    bad = ~np.isfinite(values)
    if not bad.any():
        return
    low, high = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    y = np.where(values[bad] == -np.inf, low, high)
    ax.plot(steps[bad], y, linestyle="none", marker="x", markersize=8, color=style.EXPLODE_BAR,
            label=f"NaN/Inf ({int(bad.sum())})")
    first = int(np.flatnonzero(bad)[0])
    ax.annotate(_("{value} from step {step:g}", value=values[first], step=steps[first]), (steps[first], y[0]),
                textcoords="offset points",
                xytext=(4, -12), fontsize=8, color=style.EXPLODE_BAR)


def _is_noisy(values: np.ndarray) -> bool:
    """True when step-to-step jumps are large next to the overall range (minibatch losses)."""
    finite = values[np.isfinite(values)]
    if finite.size < 3:
        return False
    spread = np.ptp(finite) if finite.size else 0.0
    return bool(spread > 0) and float(np.median(np.abs(np.diff(finite)))) > 0.02 * spread


def _spans_decades(finite: np.ndarray) -> bool:
    """True when the values span more than two decades (then a log scale shows them better)."""
    return bool(finite.max() / max(finite.min(), 1e-300) > 100)


def _metric_value(widget: str, name: str, value: Any) -> float:
    """One logged value as a float: a number, or a Tensor/array holding one number."""
    if isinstance(value, (Tensor, np.ndarray, np.generic)):
        size = int(np.prod(value.shape))
        if size != 1:
            raise ValueError(_("{widget}: {name} must be one number, got {value}; log a single value, e.g. "
                               "{name}=value.mean().item()", widget=widget, name=name, value=arguments.what(value)))
        value = value.item()
    elif not isinstance(value, (str, bytes)) and callable(getattr(value, "item", None)):
        value = value.item()  # another array library's 1-element array
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(_("{widget}: {name} must be a number or a 1-element tensor, got {value}", widget=widget,
                          name=name, value=arguments.what(value)))
    return float(value)


class _PNG:
    """A PNG with a fixed text form (the text is what nbval compares) and its text-size metadata."""

    def __init__(self, data: bytes, fig: Figure) -> None:
        self.data = data
        self.metadata = plotting.text_size(fig)

    def _repr_png_(self) -> tuple[bytes, dict[str, Any]]:
        return self.data, self.metadata

    def __repr__(self) -> str:
        return "<" + _("training curves") + ">"


# ---------------------------------------------------------------------- gradient flow
def gradient_norms(model: Any, widget: str = "gradient_flow") -> dict[str, float | None]:
    """``{parameter name: norm of its .grad}`` (None where a parameter has no gradient)."""
    if not arguments.is_module(model):
        hint = _("; pass the model, not a tensor it computed") if isinstance(model, Tensor) else ""
        raise TypeError(_("{widget}: model must be a Module (anything with named_parameters()), got {value}{hint}",
                          widget=widget, value=arguments.what(model), hint=hint))
    norms: dict[str, float | None] = {}
    for name, p in model.named_parameters():
        norms[name] = None if p.grad is None else style.array_norm(p.grad.data)
    return norms


def classify(norm: float | None) -> str:
    """'missing', 'bad' (NaN/Inf), 'vanishing', 'exploding' or 'ok' for one gradient norm."""
    if norm is None:
        return "missing"
    if not math.isfinite(norm):
        return "bad"
    if norm < style.VANISHING:
        return "vanishing"
    if norm > style.EXPLODING:
        return "exploding"
    return "ok"


def plot_gradient_flow(ax: Axes, norms: dict[str, float | None]) -> None:
    """Horizontal bars of gradient norms on a log scale, flagged by colour, on ``ax``."""
    names = list(norms)
    kinds = [classify(norms[n]) for n in names]
    colours = {"ok": style.OK_BAR, "vanishing": style.VANISH_BAR, "exploding": style.EXPLODE_BAR,
               "bad": style.EXPLODE_BAR, "missing": "#cccccc"}
    finite = [v for v in norms.values() if v is not None and math.isfinite(v) and v > 0]
    floor = min(min(finite, default=1.0), style.VANISHING) / 10
    ceiling = max(max(finite, default=1.0), style.EXPLODING) * 10
    # Bars start at ``floor`` (a log axis has no 0); NaN/Inf bars run to the right edge.
    ends = [ceiling if k == "bad" else (floor if v is None else max(v, floor))  # v is None: "missing"
            for v, k in zip((norms[n] for n in names), kinds)]
    y = np.arange(len(names))[::-1]
    ax.barh(y, [e - floor for e in ends], left=floor, color=[colours[k] for k in kinds])
    ax.set_xscale("log")
    labels = {"ok": "", "missing": "  (" + _("no grad") + ")", "bad": "  (NaN/Inf!)",
              "vanishing": "  (" + _("vanishing") + ")", "exploding": "  (" + _("exploding") + ")"}
    ax.set_yticks(y, [n + labels[k] for n, k in zip(names, kinds)], fontsize=8)
    ax.axvline(style.VANISHING, color=style.VANISH_BAR, linestyle="--", linewidth=1)
    ax.axvline(style.EXPLODING, color=style.EXPLODE_BAR, linestyle="--", linewidth=1)
    ax.set_xlim(floor, ceiling)
    ax.set_title(_("gradient norm per parameter"))
    ax.set_xlabel(_("|grad|, log scale (dashed: vanishing | exploding)"), fontsize=9)
    if not names:
        ax.text(0.5, 0.5, _("no parameters"), ha="center", va="center", transform=ax.transAxes)


class GradientFlow:
    """Per-parameter gradient norms after a backward: ``.norms``, ``.vanishing``, ``.exploding``, ``.figure``."""

    def __init__(self, model: Any) -> None:
        self.norms = gradient_norms(model)
        self.status = {n: classify(v) for n, v in self.norms.items()}
        self.vanishing = [n for n, s in self.status.items() if s == "vanishing"]
        self.exploding = [n for n, s in self.status.items() if s in ("exploding", "bad")]
        self.missing = [n for n, s in self.status.items() if s == "missing"]
        fig = plotting.new_figure(6.5, 0.9 + 0.28 * max(len(self.norms), 1))
        plot_gradient_flow(fig.subplots(), self.norms)
        self.figure = fig

    def _repr_png_(self) -> tuple[bytes, dict[str, Any]]:
        return plotting.figure_png(self.figure), plotting.text_size(self.figure)

    def __repr__(self) -> str:
        parts = [_("gradient flow over {n} parameters", n=len(self.norms))]
        for label, names in ((_("vanishing"), self.vanishing), (_("exploding/NaN"), self.exploding),
                             (_("without grad"), self.missing)):
            if names:
                parts.append(f"{label}: {', '.join(names)}")
        if len(parts) == 1:
            parts.append(_("all healthy"))
        return "; ".join(parts)


def gradient_flow(model: Any) -> GradientFlow:
    """The gradient norm of every parameter of ``model`` after ``backward()``, as a chart and data."""
    return GradientFlow(model)
