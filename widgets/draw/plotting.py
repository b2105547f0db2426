"""Matplotlib without pyplot: figures that show as PNG in a notebook and never pile up.

The widgets build ``matplotlib.figure.Figure`` objects directly (no global pyplot state, no
figure shown twice by the inline backend). The first figure made registers a PNG formatter
for ``Figure`` with IPython (not the import of ``widgets``), so a returned figure shows as
an image in the notebook: an ``image/png`` output that survives saving and that nbval does
not compare. ``import widgets`` registers it too, so the lessons' pyplot figures (``plt.show()``)
go through it as well.

Each PNG carries, in its output metadata (``TEXT_SIZE_KEY``), the size of the figure's smallest
text and its dpi: pixels hide the text, and this is what lets the browser test compute how big
the learner sees it (``tests/browser/test_text_size.py``).
"""

import io
from typing import Any

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.text import Text

from widgets import style
from widgets.i18n import get_language

DPI = 90
# The widest figure shown at full size: JupyterLab's output area is 968 px wide in a 1400 px
# window (tests/browser/test_text_size.py); 10.5 in at DPI is 945 px.
NOTEBOOK_WIDTH_IN = 10.5
TEXT_SIZE_KEY = "minitorch_text_size"  # the PNG output's metadata: {"smallest_pt", "smallest_text", "dpi"}


def new_figure(width: float = 6.0, height: float = 3.5, fast: bool = False) -> Figure:
    """A Figure with an Agg canvas attached (renders without any GUI or pyplot).

    ``fast``: a fixed layout instead of matplotlib's constrained layout, which roughly
    halves the drawing time (for figures redrawn during training).
    """
    register_png_formatter()  # the figure is about to be shown; a dict entry, cheap to set again
    style.use_language_fonts(get_language())  # MINITORCH_LANG=zh without set_language: Chinese labels too
    fig = Figure(figsize=(width, height), dpi=DPI, layout=None if fast else "constrained")
    FigureCanvasAgg(fig)
    return fig


def figure_png(fig: Figure) -> bytes:
    """The figure as PNG bytes."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=DPI)
    return buffer.getvalue()


def text_size(fig: Figure) -> dict[str, Any]:
    """``{TEXT_SIZE_KEY: {"smallest_pt", "smallest_text", "dpi"}}``: the figure's smallest visible text.

    Every text artist counts (titles, labels, tick labels, legend entries, annotations) if it
    is visible and not empty; tick labels of ticks not drawn have the size of those drawn, so
    the answer is never larger than the smallest text on the image.
    """
    smallest: tuple[float, str] | None = None
    for artist in fig.findobj(Text):
        label = artist.get_text().strip()
        if not label or not artist.get_visible() or (artist.axes is not None and not artist.axes.get_visible()):
            continue
        size = float(artist.get_fontsize())
        if smallest is None or size < smallest[0]:
            smallest = (size, label)
    if smallest is None:
        return {}
    return {TEXT_SIZE_KEY: {"smallest_pt": smallest[0], "smallest_text": smallest[1][:40], "dpi": float(fig.dpi)}}


def figure_png_with_text_size(fig: Figure) -> tuple[bytes, dict[str, Any]]:
    """The figure as PNG (trimmed to its drawing, as the inline backend does) and its text-size metadata."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=fig.dpi, bbox_inches="tight", facecolor=fig.get_facecolor())
    return buffer.getvalue(), text_size(fig)


def register_png_formatter() -> None:
    """Show every ``Figure`` as PNG with its text-size metadata in IPython (no-op outside IPython)."""
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is None:
        return
    _load_inline_backend()
    shell.display_formatter.formatters["image/png"].for_type(Figure, figure_png_with_text_size)


def _load_inline_backend() -> None:
    """Load matplotlib's inline backend now if it is the one chosen (a Jupyter kernel).

    When it loads (lazily, with the first pyplot figure) it registers its own PNG formatter
    for ``Figure``, which would replace this one: loaded first, it cannot.
    """
    import matplotlib

    try:
        backend = matplotlib.get_backend(auto_select=False)  # matplotlib >= 3.10; never loads a backend
    except TypeError:
        backend = matplotlib.rcParams._get("backend")
    if backend in ("inline", "module://matplotlib_inline.backend_inline"):
        import matplotlib_inline.backend_inline  # noqa: F401  (its import registers its formatter)


def in_ipython() -> bool:
    """True inside an IPython kernel or shell."""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    return get_ipython() is not None


def show(obj: Any) -> Any:
    """``IPython.display.display`` when IPython is there; returns a display handle or None."""
    try:
        from IPython import get_ipython
        from IPython.display import display
    except ImportError:
        return None
    if get_ipython() is None:
        return None
    return display(obj, display_id=True)
