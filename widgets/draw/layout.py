"""Fitting a graph picture to the notebook's width with its text still readable.

A picture wider than the notebook is not drawn small: the browser would shrink it to the
width of the output and its labels with it (an unrolled LSTM drawn left to right came out
at a fifth of its size, 2 px text). Instead ``fit_to_notebook`` asks Graphviz how big each
layout is (``dot -Tplain``, no drawing) and picks, in this order:

1. left to right at full size (a short chain reads like the formula);
2. top to bottom at full size (a long chain, an RNN unrolled over time: one step below the other);
3. the narrower of the two, shrunk by Graphviz to the width, but never below ``MIN_SCALE``;
4. a summary: only the ops nearest the output, the rest in one "N more ops" box, with a
   note that ``show_all=True`` draws all of them (smaller).

With ``show_all=True`` step 4 is skipped: the whole graph is shrunk to the width.

Without Graphviz's ``dot`` program (``widgets.draw.browser_view.use_browser()``) nothing can be
measured in Python: ``fit_to_notebook`` then makes every candidate picture of the steps above
(both directions, each summary size) and the browser measures and picks them in the same order
with Graphviz compiled to WebAssembly (``widgets/draw/browser/graph_view.js``).
"""

from collections.abc import Callable
from typing import Any, NamedTuple

from widgets.draw import browser_view
from widgets.draw.picture import GraphPicture

# JupyterLab's output area is 968 CSS px wide in a 1400 px window with the file
# browser open (measured by tests/browser/test_text_size.py); 96 px make an inch.
NOTEBOOK_WIDTH_IN = 9.3
# The smallest label is 9 pt (12 px at full size): at 0.75 of its size it is 9 px.
MIN_SCALE = 0.75
MIN_SUMMARY_NODES = 6  # a summary keeps at least this many boxes


def natural_size(picture: GraphPicture) -> tuple[float, float]:
    """``(width, height)`` in inches of Graphviz's layout of ``picture`` at full size."""
    header = picture.pipe(format="plain", encoding="utf-8").split("\n", 1)[0].split()
    return float(header[2]), float(header[3])  # "graph <scale> <width> <height>"


class Fitted(NamedTuple):
    """The picture that fits, and how: its direction, Graphviz ``size`` (None: full size) and box budget.

    On the browser path the choice is the browser's: ``picture`` is the first candidate, and
    ``picture.browser_plan`` holds all of them (``browser_plan``).
    """

    picture: GraphPicture
    rankdir: str
    size: str | None
    max_nodes: int


def summary_sizes(max_nodes: int, show_all: bool = False) -> list[int]:
    """The box budgets tried one after the other: all of them, then 0.7 times fewer, down to MIN_SUMMARY_NODES."""
    sizes = [max_nodes]
    while not show_all and sizes[-1] > MIN_SUMMARY_NODES:
        sizes.append(max(MIN_SUMMARY_NODES, int(sizes[-1] * 0.7)))
    return sizes


def browser_plan(make: Callable[[str, int], GraphPicture], directions: tuple[str, ...], max_nodes: int,
                 show_all: bool) -> Fitted:
    """Every candidate picture, for the browser to measure and pick from (``graph_view.js``: ``choose``)."""
    levels: list[dict[str, Any]] = []
    first = None
    for boxes in summary_sizes(max_nodes, show_all):
        pictures = []
        for direction in directions:
            picture = make(direction, boxes)
            first = first or picture
            pictures.append({"rankdir": direction, "dot": picture.source})
        levels.append({"boxes": boxes, "pictures": pictures})
    assert first is not None
    first.browser_plan = {"levels": levels, "fit": {"width_in": NOTEBOOK_WIDTH_IN, "min_scale": MIN_SCALE,
                                                    "show_all": show_all, "fixed": False}}
    return Fitted(first, directions[0], None, max_nodes)


def fit_to_notebook(make: Callable[[str, int], GraphPicture], max_nodes: int, rankdir: str = "auto",
                    show_all: bool = False) -> Fitted:
    """The picture ``make(rankdir, max_nodes)`` that fits the notebook's width (see the module docstring).

    ``rankdir``: "auto" tries left to right, then top to bottom; any other value is kept.
    ``make`` builds the picture without a ``size`` attribute; the one returned may get one.
    """
    directions = ("LR", "TB") if rankdir == "auto" else (rankdir,)
    if browser_view.use_browser():
        return browser_plan(make, directions, max_nodes, show_all)
    sizes = summary_sizes(max_nodes, show_all)
    for nodes in sizes:
        sized = []
        for direction in directions:
            picture = make(direction, nodes)
            width, height = natural_size(picture)
            if width <= NOTEBOOK_WIDTH_IN:
                return Fitted(picture, direction, None, nodes)
            sized.append((width, height, direction, picture))
        width, height, direction, picture = min(sized, key=lambda s: s[0])
        if show_all or width * MIN_SCALE <= NOTEBOOK_WIDTH_IN or nodes == sizes[-1]:
            size = f"{NOTEBOOK_WIDTH_IN:g},{height:.4g}"
            picture.attr(size=size)  # Graphviz shrinks it to the width
            return Fitted(picture, direction, size, nodes)
    raise AssertionError("summary_sizes ends with a size that is always drawn")
