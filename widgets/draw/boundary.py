"""``decision_boundary``: what a 2-D classifier predicts everywhere, with the data on top.

    X, y = minitorch.datasets.make_moons(200)
    ... train model ...
    decision_boundary(model, X, y)       # a Figure: coloured regions + the points

The model is evaluated (without a graph) on a grid covering the data. With several output
columns the predicted class is the argmax and the shade is the model's confidence (the
softmax probability of that class); with one output column it is a logit: class 1 where
it is positive.
"""

from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure, SubFigure

import minitorch
from minitorch.tensor import Tensor
from widgets.check.arguments import need_int, what
from widgets.draw import plotting
from widgets.i18n import _

CLASS_COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"]


def _numpy(values: Any) -> np.ndarray:
    if isinstance(values, Tensor):
        values = values.data
    if hasattr(values, "get") and not isinstance(values, np.ndarray):
        values = values.get()
    return np.asarray(values)


def model_outputs(model: Any, points: np.ndarray) -> np.ndarray:
    """``model(points)`` as a NumPy ``(N, C)`` array: evaluation mode, no graph, model's device."""
    was_training = getattr(model, "training", False)
    if hasattr(model, "eval"):
        model.eval()
    try:
        with minitorch.no_grad():
            out = _numpy(model(minitorch.tensor(points.astype(np.float32)).to(_device_of(model))))
    finally:
        if was_training and hasattr(model, "train"):
            model.train()
    return out.reshape(len(points), -1).astype(np.float64)


def classes_and_confidence(out: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Predicted class and how sure the model is, from ``(N, C)`` outputs (C == 1: a logit)."""
    if out.shape[1] == 1:
        return (out[:, 0] > 0).astype(int), 1 / (1 + np.exp(-np.abs(out[:, 0])))
    shifted = np.exp(out - out.max(axis=1, keepdims=True))
    probs = shifted / shifted.sum(axis=1, keepdims=True)
    return probs.argmax(axis=1), probs.max(axis=1)


def predict_grid(model: Any, X: np.ndarray, resolution: int = 150, margin: float = 0.25
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(xx, yy, classes, confidence)`` of ``model`` on a grid around the points ``X``."""
    lo, hi = X.min(axis=0), X.max(axis=0)
    pad = (hi - lo) * margin + 1e-3
    xs = np.linspace(lo[0] - pad[0], hi[0] + pad[0], resolution)
    ys = np.linspace(lo[1] - pad[1], hi[1] + pad[1], resolution)
    xx, yy = np.meshgrid(xs, ys)
    classes, confidence = classes_and_confidence(model_outputs(model, np.stack([xx.ravel(), yy.ravel()], axis=1)))
    return xx, yy, classes.reshape(xx.shape), confidence.reshape(xx.shape)


def _device_of(model: Any) -> str:
    params = getattr(model, "parameters", None)
    for p in params() if params is not None else ():
        return p.device
    return "cpu"


def _checked_points(model: Any, X: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
    """``X`` as an ``(N, 2)`` float array and ``y`` as ``N`` class numbers, or an error saying what is wrong."""
    w = "decision_boundary"
    if not callable(model):
        raise TypeError(_("{widget}: model must be callable (a Module or a function of a tensor), got {value}",
                          widget=w, value=what(model)))
    for arg, value in (("X", X), ("y", y)):
        if not isinstance(value, (Tensor, np.ndarray, list, tuple)):
            raise TypeError(_("{widget}: {arg} must be a Tensor or an array, got {value}", widget=w, arg=arg,
                              value=what(value)))
    X, y = _numpy(X), _numpy(y)
    if X.ndim != 2 or X.shape[1] != 2 or X.shape[0] == 0:
        raise ValueError(_("{widget}: X must hold points in the plane, shape (N, 2) with N >= 1, got shape {shape}",
                           widget=w, shape=X.shape))
    if y.ndim == 2 and y.shape[0] == X.shape[0] and y.shape[1] > 1:
        raise ValueError(_("{widget}: y must be one class number per point, got shape {shape} (one-hot?): pass "
                           "y.argmax(1)", widget=w, shape=y.shape))
    if y.size != X.shape[0]:
        raise ValueError(_("{widget}: y must have one label per point of X ({n}), got shape {shape}", widget=w,
                           n=X.shape[0], shape=y.shape))
    not_whole = y.dtype.kind == "f" and not np.all(np.isfinite(y) & (y == np.round(y)))
    if y.dtype.kind not in "biuf" or not_whole or np.any(y < 0):
        raise ValueError(_("{widget}: y must hold class numbers 0, 1, 2, ..., got values like {values}", widget=w,
                           values=np.unique(y.ravel())[:5]))
    return X.astype(np.float64), y.astype(int).ravel()


def decision_boundary(model: Any, X: Any, y: Any, resolution: int = 150, title: str | None = None,
                      ax: Axes | None = None) -> Figure | SubFigure:
    """A Figure with the model's predicted class over the plane and the points ``X`` coloured by ``y``."""
    X, y = _checked_points(model, X, y)
    resolution = need_int("decision_boundary", "resolution", resolution, minimum=2)
    xx, yy, classes, confidence = predict_grid(model, X, resolution)
    n_classes = int(max(y.max(initial=0), classes.max(initial=0))) + 1
    # More classes than colours: the colours repeat rather than a class silently taking the last one.
    cmap = ListedColormap([CLASS_COLOURS[i % len(CLASS_COLOURS)] for i in range(n_classes)])
    fig = None
    if ax is None:
        fig = plotting.new_figure(5.0, 4.2)
        ax = fig.subplots()
    # Light colours where the model is unsure, stronger where it is confident.
    shade = (confidence - confidence.min()) / max(np.ptp(confidence), 1e-9)
    ax.imshow(classes, origin="lower", extent=(xx.min(), xx.max(), yy.min(), yy.max()), cmap=cmap,
              vmin=-0.5, vmax=n_classes - 0.5, alpha=0.15 + 0.35 * shade, aspect="auto", interpolation="nearest")
    if n_classes > 1:
        ax.contour(xx, yy, classes, levels=np.arange(n_classes - 1) + 0.5, colors="#333333", linewidths=1.0)
    ax.scatter(X[:, 0], X[:, 1], c=y, cmap=cmap, vmin=-0.5, vmax=n_classes - 0.5, s=18, edgecolors="#222222",
               linewidths=0.4)
    predicted, _confidence = classes_and_confidence(model_outputs(model, X))
    accuracy = float((predicted == y).mean()) if len(y) else 0.0
    ax.set_title(title or _("decision boundary (accuracy {accuracy:.0%} on these points)", accuracy=accuracy),
                 fontsize=10)
    ax.set_xlim(xx.min(), xx.max())
    ax.set_ylim(yy.min(), yy.max())
    return fig if fig is not None else ax.figure
