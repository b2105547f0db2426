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
"""

from collections.abc import Callable
from typing import NamedTuple

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
    """The picture that fits, and how: its direction, Graphviz ``size`` (None: full size) and box budget."""

    picture: GraphPicture
    rankdir: str
    size: str | None
    max_nodes: int


def fit_to_notebook(make: Callable[[str, int], GraphPicture], max_nodes: int, rankdir: str = "auto",
                    show_all: bool = False) -> Fitted:
    """The picture ``make(rankdir, max_nodes)`` that fits the notebook's width (see the module docstring).

    ``rankdir``: "auto" tries left to right, then top to bottom; any other value is kept.
    ``make`` builds the picture without a ``size`` attribute; the one returned may get one.
    """
    directions = ("LR", "TB") if rankdir == "auto" else (rankdir,)
    nodes = max_nodes
    while True:
        sized = []
        for direction in directions:
            picture = make(direction, nodes)
            width, height = natural_size(picture)
            if width <= NOTEBOOK_WIDTH_IN:
                return Fitted(picture, direction, None, nodes)
            sized.append((width, height, direction, picture))
        width, height, direction, picture = min(sized, key=lambda s: s[0])
        if show_all or width * MIN_SCALE <= NOTEBOOK_WIDTH_IN or nodes <= MIN_SUMMARY_NODES:
            size = f"{NOTEBOOK_WIDTH_IN:g},{height:.4g}"
            picture.attr(size=size)  # Graphviz shrinks it to the width
            return Fitted(picture, direction, size, nodes)
        nodes = max(MIN_SUMMARY_NODES, int(nodes * 0.7))
