"""``draw_graph(compiled_step)``: a compiled program as what it is, a flat list of kernels.

Where ``draw_graph(loss)`` draws the graph the engine walks (ops and tensors, gradients
flowing back), a compiled step has no graph any more: a replay runs its kernels top to
bottom. The picture shows that list:

- white box: a forward kernel (``Linear.forward``), orange: a backward kernel, in the
  engine's order; grey: a Python call the replay runs again (``Adam.step``);
- ellipse: a buffer, named by its slot (``s4``): grey an input, blue a parameter or
  constant, yellow an op's output; ``d s4`` is the gradient flowing back into ``s4``;
- the dotted arrows give the order; every replay reuses the same slots (on a GPU the
  captured graph even reuses the very same memory).
"""

from typing import Any

from minitorch.jit import CompiledFunction
from minitorch.jit.listing import kernels, slot_kind
from minitorch.jit.program import Program
from widgets import style
from widgets.draw.picture import GraphPicture
from widgets.i18n import _

BACKWARD_FILL = "#ffe0c2"
BACKWARD_BORDER = "#e65100"
KIND_COLOURS = {
    "input": (style.CONST_FILL, style.CONST_BORDER),
    "constant": (style.PARAM_FILL, style.PARAM_BORDER),
    "output": (style.TENSOR_FILL, style.TENSOR_BORDER),
}


def compiled_of(value: Any) -> CompiledFunction | None:
    """The CompiledFunction behind ``value`` (a compiled function or a module after ``.compile()``)."""
    if isinstance(value, CompiledFunction):
        return value
    found = getattr(value, "__dict__", {}).get("_compiled_forward")
    return found if isinstance(found, CompiledFunction) else None


def program_of(compiled: CompiledFunction, signature: int = 0) -> Program:
    """The program of the ``signature``-th traced signature (an error naming why there is none)."""
    entries = list(compiled.entries.values())
    if not entries:
        raise ValueError(_("draw_graph: {name} has not been called yet: call it once, then draw it",
                           name=compiled.__name__))
    if not 0 <= signature < len(entries):
        raise ValueError(_("draw_graph: signature={signature}, but {name} has {n} signature(s)", signature=signature,
                           name=compiled.__name__, n=len(entries)))
    program = entries[signature].program
    if program is None:
        reason = entries[signature].breaks[0][0] if entries[signature].breaks else _("it runs eagerly")
        raise ValueError(_("draw_graph: this signature of {name} has no program ({reason})", name=compiled.__name__,
                           reason=reason))
    return program


def draw_program(compiled: CompiledFunction, signature: int = 0, rankdir: str = "TB") -> GraphPicture:
    """The kernels of one traced signature, in replay order, with the buffers they read and write."""
    program = program_of(compiled, signature)
    rows = kernels(program)
    dot = GraphPicture("compiled")
    dot.attr(rankdir=rankdir, fontname="Helvetica", fontsize="11", nodesep="0.2", ranksep="0.3")
    dot.attr("node", fontname="Helvetica", fontsize="10", margin="0.08,0.04", height="0.3")
    dot.attr("edge", arrowsize="0.6")
    buffers: set[str] = set()

    def buffer(name: str) -> str:
        node_id = "b_" + name.replace(" ", "_").replace("(", "").replace(")", "").replace(".", "")
        if node_id not in buffers:
            buffers.add(node_id)
            slot = int(name.split("s")[-1].split()[0])
            fill, border = KIND_COLOURS[slot_kind(program, slot)]
            dot.node(node_id, name, shape="ellipse", style="filled", fillcolor=fill, color=border)
        return node_id

    previous = None
    for k in rows:
        node_id = f"k{k.index}"
        if k.kind == "forward":
            attrs = {"fillcolor": style.OP_FILL, "color": style.OP_BORDER}
        elif k.kind == "backward":
            attrs = {"fillcolor": BACKWARD_FILL, "color": BACKWARD_BORDER}
        else:
            attrs = {"fillcolor": style.CONST_FILL, "color": style.CONST_BORDER}
        dot.node(node_id, f"{k.index}: {k.name}", shape="box", style="rounded,filled", **attrs)
        for name in k.reads:
            dot.edge(buffer(name), node_id)
        for name in k.writes:
            dot.edge(node_id, buffer(name))
        if previous is not None:
            dot.edge(previous, node_id, style="dotted", color=style.NO_GRAD_EDGE, constraint="false")
        previous = node_id
    return dot
