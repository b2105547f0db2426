"""The PNG formatter stores each figure's smallest text size, for the browser's text-size test."""

import matplotlib

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
