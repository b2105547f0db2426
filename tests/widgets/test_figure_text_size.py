"""The PNG formatter stores each figure's smallest text size, for the browser's text-size test."""

import os
from pathlib import Path

import matplotlib
import nbformat
from nbclient import NotebookClient

matplotlib.use("Agg")

from widgets.draw import plotting  # noqa: E402


def test_smallest_visible_text_is_found():
    fig = plotting.new_figure(4, 3)
    ax = fig.subplots()
    ax.plot([0, 1], [0, 1])
    ax.set_title("title", fontsize=14)
    ax.tick_params(labelsize=11)
    ax.text(0.5, 0.5, "tiny note", fontsize=6)
    ax.text(0.2, 0.2, "hidden", fontsize=3, visible=False)  # not drawn: does not count
    png, metadata = plotting.figure_png_with_text_size(fig)
    assert png[:4] == b"\x89PNG"
    assert metadata[plotting.TEXT_SIZE_KEY] == {"smallest_pt": 6.0, "smallest_text": "tiny note", "dpi": plotting.DPI}


def test_a_figure_without_text_has_no_metadata():
    fig = plotting.new_figure(2, 2)
    ax = fig.subplots()
    ax.set_axis_off()
    assert plotting.text_size(fig) == {}


def test_pyplot_figures_in_a_kernel_carry_the_metadata(monkeypatch):
    # The inline backend registers its own PNG formatter when it loads, with the first pyplot
    # figure: ``import widgets`` loads it first, so the lessons' plt.show() figures are measured.
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("import matplotlib.pyplot as plt\nimport widgets"),
                nbformat.v4.new_code_cell("fig, ax = plt.subplots(figsize=(3, 2))\n_ = ax.set_title('t', fontsize=7)\n"
                                          "plt.show()")]
    repo = str(Path(__file__).resolve().parents[2])
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in (repo, os.environ.get("PYTHONPATH")) if p))
    NotebookClient(nb, timeout=120, kernel_name="python3").execute()
    out, = nb.cells[1].outputs
    sizes = out["metadata"]["image/png"][plotting.TEXT_SIZE_KEY]
    assert sizes["smallest_pt"] == 7.0 and sizes["smallest_text"] == "t" and sizes["dpi"] > 0
