"""Matplotlib without pyplot: figures that show as PNG in a notebook and never pile up.

The widgets build ``matplotlib.figure.Figure`` objects directly (no global pyplot state, no
figure shown twice by the inline backend). The first figure made registers a PNG formatter
for ``Figure`` with IPython (not the import of ``widgets``), so a returned figure shows as
an image in the notebook: an ``image/png`` output that survives saving and that nbval does
not compare.
"""

import io
from typing import Any

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from widgets import style
from widgets.i18n import get_language

DPI = 90


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


def register_png_formatter() -> None:
    """Show every ``Figure`` as PNG in IPython (no-op outside IPython)."""
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is None:
        return
    shell.display_formatter.formatters["image/png"].for_type(Figure, figure_png)


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
