"""The second drawing path: graphs laid out and drawn in the notebook's browser, without ``dot``.

``draw_graph``, the backward stepper and ``draw_graph(compiled_step)`` write Graphviz DOT (the
``graphviz`` package does that without any program). To show it, the first path runs
Graphviz's ``dot`` program and stores the SVG (``widgets/draw/picture.py``). Where ``dot`` is
not installed (Windows, macOS, a hosted notebook, a machine without root), this module shows
the same DOT through a widget instead: Graphviz compiled to WebAssembly (``@viz-js/viz``,
shipped inside the package as ``browser/viz.js``, nothing is downloaded at run time) lays it
out and draws it in the browser. The widget is an anywidget, so it works in JupyterLab,
Notebook 7, VS Code and Colab.

- ``VizLibrary``: one per kernel, carries viz.js (1.2 MB) to the browser once;
- ``GraphView``: one per picture, carries the candidate pictures and the fitting rule
  (``widgets/draw/layout.py``: ``browser_plan``); ``browser/graph_view.js`` picks and draws.

``MINITORCH_DRAW=browser`` takes this path even where ``dot`` is installed (to try it).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

BROWSER_DIR = Path(__file__).resolve().parent / "browser"
VIZ_FILE = BROWSER_DIR / "viz.js"
VIZ_PIN = json.loads((BROWSER_DIR / "viz.json").read_text())
FORCE_ENV = "MINITORCH_DRAW"


class BrowserRendererMissing(RuntimeError):
    """Neither Graphviz's ``dot`` program nor the package's copy of viz.js is there."""


def dot_program() -> str | None:
    """The path of Graphviz's ``dot`` program on PATH, or None."""
    return shutil.which("dot")


def use_browser() -> bool:
    """True when graphs are drawn in the browser: no ``dot`` on PATH, or ``MINITORCH_DRAW=browser``."""
    return os.environ.get(FORCE_ENV, "").strip().lower() == "browser" or dot_program() is None


def renderer_missing_message() -> str:
    """Why no graph can be drawn, and the three ways out."""
    from widgets.i18n import _

    return _(
        "draw_graph: Graphviz's 'dot' program is not installed, and this install of minitorch-course has no "
        "browser copy of Graphviz ({path} is missing: the package was built where npm was not available). "
        "Either install Graphviz (`minitorch-course doctor` prints the command for this computer), or install "
        "minitorch-course from its wheel, or in a checkout run `python -m tools.fetch_viz`.",
        path=VIZ_FILE,
    )


def require_renderer() -> None:
    """Raise BrowserRendererMissing when graphs go to the browser but the package has no viz.js."""
    if use_browser() and not VIZ_FILE.is_file():
        raise BrowserRendererMissing(renderer_missing_message())


def viz_code() -> str:
    """The text of viz.js; BrowserRendererMissing (saying what to do) when the package lacks it."""
    if not VIZ_FILE.is_file():
        raise BrowserRendererMissing(renderer_missing_message())
    return VIZ_FILE.read_text(encoding="utf-8")


def fixed_plan(source: str) -> dict[str, Any]:
    """The plan of a picture drawn as it is (an explicit size or direction, a compiled program)."""
    return {"levels": [{"boxes": None, "pictures": [{"rankdir": None, "dot": source}]}], "fit": {"fixed": True}}


def _widget_classes() -> tuple[type, type]:
    """``(VizLibrary, GraphView)``, defined on first use so that importing widgets needs no anywidget."""
    global _CLASSES
    if _CLASSES is None:
        import anywidget
        import ipywidgets
        import traitlets

        class VizLibrary(anywidget.AnyWidget):
            """Carries viz.js to the browser, once per kernel; every GraphView refers to it."""

            _esm = "export default {};"  # shows nothing: GraphView's script reads its `code`
            code = traitlets.Unicode("").tag(sync=True)

        class GraphView(anywidget.AnyWidget):
            """A graph drawn in the browser from its DOT (``browser/graph_view.js``)."""

            _esm = (BROWSER_DIR / "graph_view.js").read_text(encoding="utf-8")
            library = traitlets.Instance(VizLibrary).tag(sync=True, **ipywidgets.widget_serialization)
            library_version = traitlets.Unicode(VIZ_PIN["version"]).tag(sync=True)
            levels: traitlets.List[Any] = traitlets.List().tag(sync=True)
            fit = traitlets.Dict().tag(sync=True)
            frame = traitlets.Dict().tag(sync=True)
            step = traitlets.Int(-1).tag(sync=True)

        _CLASSES = (VizLibrary, GraphView)
    return _CLASSES


_CLASSES: tuple[type, type] | None = None
_LIBRARY: Any = None


def library() -> Any:
    """The kernel's one ``VizLibrary`` widget (made again if it was closed)."""
    global _LIBRARY
    if _LIBRARY is None or getattr(_LIBRARY, "comm", None) is None:
        viz_library, _view = _widget_classes()
        _LIBRARY = viz_library(code=viz_code())
    return _LIBRARY


def graph_view(plan: dict[str, Any], frame: dict[str, str] | None = None, step: int = -1) -> Any:
    """A ``GraphView`` widget for ``plan`` (``layout.browser_plan`` or ``fixed_plan``)."""
    _library, view = _widget_classes()
    return view(library=library(), levels=plan["levels"], fit=plan["fit"], frame=frame or {}, step=step)


def mimebundle(plan: dict[str, Any], text: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """What a notebook shows for a picture on this path: the widget, ``text`` as its plain-text form, and metadata."""
    data, metadata = graph_view(plan)._repr_mimebundle_()
    return {**data, "text/plain": text}, metadata
