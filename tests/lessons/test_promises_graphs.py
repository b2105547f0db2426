"""Lessons 06 and 12 promise graphs: what their text tells the learner to look for is in the stored picture.

The pictures are read from the solution notebooks' stored SVG (what JupyterLab shows):
boxes by their ``<title>`` id and ``<text>`` labels, arrows by their ``src->dst`` titles.
The browser test (tests/browser/test_text_size.py) checks that the same pictures are
readable; here the stored SVG must also be at least ``MIN_SCALE`` of its full size and
no wider than the notebook.
"""

import html
import re
from pathlib import Path

import nbformat
import pytest

from widgets import style
from widgets.draw import layout

SOLUTIONS = Path(__file__).resolve().parents[2] / "lessons" / "solutions"


class Picture:
    """A stored graphviz SVG: ``labels`` {node id: its text lines}, ``fills`` {node id: fill}, ``edges``."""

    def __init__(self, svg: str) -> None:
        self.svg = svg
        self.labels: dict[str, list[str]] = {}
        self.fills: dict[str, str] = {}
        self.bodies: dict[str, str] = {}
        for node_id, body in re.findall(r'<g id="node\d+" class="node">\s*<title>([^<]+)</title>(.*?)</g>', svg, re.S):
            self.labels[node_id] = [html.unescape(t) for t in re.findall(r"<text[^>]*>([^<]*)</text>", body)]
            fill = re.search(r'fill="(#[0-9a-fA-F]{6})"', body)
            self.fills[node_id] = fill.group(1).lower() if fill else ""
            self.bodies[node_id] = body
        self.edges = [tuple(html.unescape(t).split("->")) for t in
                      re.findall(r'<g id="edge\d+" class="edge">\s*<title>([^<]+)</title>', svg)]

    def ops(self, name: str) -> list[str]:
        """Ids of the op boxes labelled ``name`` (e.g. ``CellUpdateBackward``)."""
        return [node for node, lines in self.labels.items() if lines and lines[0] == name]

    def op_names(self) -> list[str]:
        return [lines[0] for lines in self.labels.values() if lines and lines[0].endswith("Backward")]

    def text_y(self, node: str) -> float:
        """The y of the node's first text line (SVG y grows downwards)."""
        found = re.search(r'<text[^>]* y="(-?[\d.]+)"', self.bodies[node])
        assert found is not None, node
        return float(found.group(1))

    def after(self, node: str) -> list[str]:
        return [dst for src, dst in self.edges if src == node]

    def scale_and_width_in(self) -> tuple[float, float]:
        """Graphviz's shrink factor (1.0: full size) and the picture's width in inches."""
        scale = re.search(r'class="graph" transform="scale\(([\d.]+)', self.svg)
        width = re.search(r'<svg width="([\d.]+)pt"', self.svg)
        assert width is not None
        return (float(scale.group(1)) if scale else 1.0), float(width.group(1)) / 72


def stored_pictures(lesson: str, code_contains: str) -> list[Picture]:
    """The SVG pictures stored under the code cells of ``lesson`` whose source contains ``code_contains``."""
    nb = nbformat.read(SOLUTIONS / f"{lesson}.ipynb", as_version=4)
    found = [Picture(out["data"]["image/svg+xml"]) for cell in nb.cells
             if cell.cell_type == "code" and code_contains in cell.source
             for out in cell.outputs if "image/svg+xml" in out.get("data", {})]
    assert found, f"{lesson}: no stored graph under a cell with {code_contains!r}"
    return found


def stored_text(lesson: str, code_contains: str) -> str:
    nb = nbformat.read(SOLUTIONS / f"{lesson}.ipynb", as_version=4)
    return "".join(out.get("text", "") for cell in nb.cells if cell.cell_type == "code" and code_contains in cell.source
                   for out in cell.outputs)


def assert_readable(picture: Picture) -> None:
    scale, width = picture.scale_and_width_in()
    assert scale >= layout.MIN_SCALE, f"the graph is shrunk to {scale:.2f} of its size"
    assert width <= layout.NOTEBOOK_WIDTH_IN + 0.01, f"the graph is {width:.1f} in wide: the browser would shrink it"


def test_lesson06_composed_log_softmax_has_six_ops_the_fused_one():
    # "Compare the graphs: six op nodes for the composed version, one for the fused op. (If
    # your MyLogSoftmax is in use, it is drawn purple: an op you wrote yourself.)"
    composed, = stored_pictures("06_losses_stability", "draw_graph(stable_log_softmax(")
    fused, = stored_pictures("06_losses_stability", "draw_graph(log_softmax(")
    # both end in the .sum() that makes a scalar to draw from: that op is not counted
    assert composed.op_names().count("SumBackward") >= 1 and len(composed.op_names()) - 1 == 6, composed.op_names()
    assert len(fused.op_names()) - 1 == 1, fused.op_names()
    yours = [op for op in fused.op_names() if op != "SumBackward"]
    assert "YOUR log_softmax" in stored_text("06_losses_stability", "Using YOUR log_softmax")
    purple = [node for node, lines in fused.labels.items() if lines and lines[0] == yours[0]]
    assert fused.fills[purple[0]] == style.YOURS_FILL.lower() and "(your backward)" in fused.labels[purple[0]]
    for picture in (composed, fused):
        assert_readable(picture)


def test_lesson12_unrolled_lstm_has_one_cell_update_per_step_chained_through_c():
    # "Three LSTM steps ... The same weight leaves feed every step ... Find the
    # CellUpdateBackward nodes: one per step, chained through c."
    picture, = stored_pictures("12_recurrent", "CellUpdate.apply(z, c)")
    updates = picture.ops("CellUpdateBackward")
    assert len(updates) == 3, picture.op_names()
    # op -> its output c -> the next step's CellUpdate: two links chain the three
    links = [(op, nxt) for op in updates for c in picture.after(op) for nxt in picture.after(c) if nxt in updates]
    assert len(links) == 2, links
    # each weight leaf feeds one TransposeBackward per step (.t() in z = x @ W_ih.t() + h @ W_hh.t())
    for weight in ("W_ih", "W_hh"):
        leaf, = [node for node, lines in picture.labels.items() if lines and lines[0] == weight]
        assert len(picture.after(leaf)) == 3, (weight, picture.after(leaf))
    # drawn top to bottom: each step's CellUpdate below the one before it
    heights = {op: picture.text_y(op) for op in updates}
    assert all(heights[nxt] > heights[op] for op, nxt in links), heights
    assert_readable(picture)


@pytest.mark.parametrize("lesson", ["06_losses_stability", "12_recurrent"])
def test_every_stored_graph_of_the_lesson_fits_the_notebook(lesson):
    for picture in stored_pictures(lesson, "draw_graph("):
        assert_readable(picture)
