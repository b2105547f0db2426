"""``GraphPicture``: the ``graphviz.Digraph`` that ``draw_graph`` and the stepper return.

Two things differ from a plain Digraph:

- its text form is stable (no memory address), so nbval compares notebooks cleanly;
- rendering (``pipe``, and through it the SVG a notebook shows) runs Graphviz's ``dot``
  with a time limit. ``graphviz.Digraph.pipe`` (graphviz 0.20, 0.21) waits for ``dot``
  without one, and ``dot`` can take many minutes on a graph of thousands of boxes: the
  kernel would freeze. ``draw_graph`` already keeps pictures small (``MAX_GRAPH_NODES``);
  the time limit is the second guard;
- where ``dot`` is not installed, a notebook shows it through the browser's copy of Graphviz
  (``widgets/draw/browser_view.py``): ``browser_plan`` then holds the candidate layouts
  ``draw_graph`` made (``widgets/draw/layout.py``), else the picture is drawn as it is.
"""

import re
import subprocess
import sys
from typing import Any

import graphviz
from graphviz.backend import dot_command

from widgets.draw import browser_view
from widgets.i18n import _

RENDER_TIMEOUT_S = 20  # seconds; a picture of MAX_GRAPH_NODES boxes takes well under one


class GraphPicture(graphviz.Digraph):
    """A ``graphviz.Digraph`` with a stable text form whose rendering cannot hang."""

    # Without ``dot``: the pictures the browser chooses from (``layout.browser_plan``); None: this one.
    browser_plan: dict[str, Any] | None = None

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None, **kwargs: Any) -> Any:
        """SVG drawn by ``dot``; where ``dot`` is not installed, the browser's drawing (a widget)."""
        if browser_view.use_browser():
            plan = self.browser_plan
            if plan is None or plan["levels"][0]["pictures"][0]["dot"] != self.source:  # none, or changed since
                plan = browser_view.fixed_plan(self.source)
            return browser_view.mimebundle(plan, repr(self))
        return super()._repr_mimebundle_(include, exclude, **kwargs)

    def node_count(self) -> int:
        return len(re.findall(r"^\t+(?!node \[|edge \[|graph \[)\w+ \[", self.source, flags=re.M))

    def __repr__(self) -> str:
        edges = self.source.count(" -> ")
        return "<" + _("computation graph: {nodes} nodes, {edges} edges", nodes=self.node_count(), edges=edges) + ">"

    def pipe(self, format: str | None = None, renderer: str | None = None, formatter: str | None = None,
             neato_no_op: bool | int | None = None, quiet: bool = False, *, engine: str | None = None,
             encoding: str | None = None) -> Any:
        """Like ``graphviz.Digraph.pipe``, but ``dot`` is stopped after ``RENDER_TIMEOUT_S`` seconds."""
        cmd = dot_command.command(engine or self.engine, format or self.format, renderer=renderer,
                                  formatter=formatter, neato_no_op=neato_no_op)
        try:
            proc = subprocess.run(cmd, input=self.source.encode(self.encoding), capture_output=True,
                                  timeout=RENDER_TIMEOUT_S)
        except FileNotFoundError as exc:
            raise graphviz.ExecutableNotFound(cmd) from exc
        except subprocess.TimeoutExpired:
            raise TimeoutError(_(
                "draw_graph: Graphviz 'dot' did not finish drawing {boxes} boxes within {seconds} s and was "
                "stopped. Draw less: a smaller max_nodes= (e.g. max_nodes=80), or the graph of a smaller part of "
                "the computation.", boxes=self.node_count(), seconds=RENDER_TIMEOUT_S)) from None
        if proc.stderr and not quiet:
            sys.stderr.write(proc.stderr.decode(self.encoding, errors="replace"))
        if proc.returncode != 0:
            raise graphviz.CalledProcessError(proc.returncode, cmd, output=proc.stdout, stderr=proc.stderr)
        return proc.stdout if encoding is None else proc.stdout.decode(encoding)
