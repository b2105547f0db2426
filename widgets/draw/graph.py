"""``draw_graph``: the computation graph behind a tensor, as a graphviz picture.

Reading the picture (arrows point the way of the forward pass; gradients flow against them):

- blue box: a leaf that requires grad (a parameter), grouped per Module when names are known;
- grey dashed box: a tensor input that needs no gradient (data, a constant tensor); plain
  Python values (the ``2`` of ``x ** 2``, an axis, a ``None`` bias) get no box, as in
  PyTorch's torchviz;
- white rounded box: an op, named after its backward node (``MulBackward``); purple when
  its backward is your code (``override_backward``) or an op you wrote yourself;
- yellow note: the tensor an op produced; green: the tensor backward starts from (the loss);
- after ``backward()``: each tensor shows the norm of its gradient, and edges get darker and
  thicker the larger the gradient that flowed along them; NaN/Inf gradients are red.

    loss = ((x @ w + b).relu() ** 2).mean()
    loss.backward()
    draw_graph(loss, names={"x": x, "w": w, "b": b})        # or params=model

The graph is read from ``root.grad_fn`` with ``minitorch.autograd.graph`` (the walk the
engine itself uses); the gradients come from ``widgets.draw.recorder``, which watches the
engine's backward steps once the first ``draw_graph`` (or ``BackwardStepper``) has started it.
"""

import math
from collections import Counter
from typing import Any, Protocol

import numpy as np

from minitorch.autograd import BackwardNode
from minitorch.autograd import graph as autograd_graph
from minitorch.hints import Array, Gradients
from minitorch.tensor import Tensor
from minitorch.tensor_base import TensorBase
from widgets import style
from widgets.check import arguments
from widgets.draw import browser_view, graph_legend, layout, recorder
from widgets.draw.picture import GraphPicture
from widgets.draw.program import compiled_of, draw_program
from widgets.i18n import _, get_language

DEFAULT_MAX_NODES = 80
# The most boxes ever sent to Graphviz, whatever max_nodes asks: ``dot`` needs minutes for
# thousands of boxes (a frozen kernel), and well under a second for a few hundred. Beyond
# it, the rest of the graph is summarised in one "N more ops" box.
MAX_GRAPH_NODES = 300
# The stepper's picture: fits the width of a JupyterLab notebook (inches; graphviz shrinks
# only bigger graphs). draw_graph fits its picture itself (widgets/draw/layout.py).
DEFAULT_SIZE = "10,30"


class GraphNode:
    """One box of the picture: a tensor (``kind`` param/const/tensor/root) or an op."""

    def __init__(self, node_id: str, kind: str, obj: Any = None) -> None:
        self.id = node_id
        self.kind = kind
        self.obj = obj  # the BackwardNode (op, tensor) or the leaf Tensor
        self.name: str | None = None
        self.cluster: str | None = None


class GraphEdge:
    """An arrow in forward direction; ``grad`` is the gradient that flowed back along it."""

    def __init__(self, src: GraphNode, dst: GraphNode, op: BackwardNode | None = None, slot: int | None = None) -> None:
        self.src = src
        self.dst = dst
        self.op = op  # for input edges: the BackwardNode consuming the input ...
        self.slot = slot  # ... and the input's position; None for op -> output edges


class ComputationGraph:
    """The nodes and edges reachable from ``root``, in a deterministic walk order.

    Node ids are ``t0, t1, ...`` (tensors) and ``op0, op1, ...`` (ops) in breadth-first order
    from the root, never memory addresses, so the DOT source is the same on every run.
    ``max_nodes`` keeps only the ops nearest the root; the rest become one summary node.
    """

    def __init__(self, root: Tensor, names: dict[str, Tensor] | None = None, max_nodes: int = DEFAULT_MAX_NODES,
                 show_constants: bool = True) -> None:
        self.root = root
        self.nodes: list[GraphNode] = []  # in walk order
        self.edges: list[GraphEdge] = []
        self.op_ids: dict[BackwardNode, GraphNode] = {}  # the op's box
        self.out_ids: dict[BackwardNode, GraphNode] = {}  # the box of the tensor it produced
        self.leaf_ids: dict[int, GraphNode] = {}  # id(leaf Tensor) -> its box
        self.hidden: Counter[str] = Counter()  # op name -> how many were left out (max_nodes)
        self.total_ops = 0
        self.asked_max_nodes = max_nodes
        self.limit_hit = False  # True when MAX_GRAPH_NODES, not max_nodes, cut the picture
        self.dropped_inputs = 0  # inputs of drawn ops left out to stay within MAX_GRAPH_NODES
        self.fitted_note: str | None = None  # set when the picture was summarised to fit the width
        self._names = {id(t): n for n, t in (names or {}).items() if isinstance(t, Tensor)}
        self._counts: Counter[str] = Counter()
        self._build(max_nodes, show_constants)

    # ------------------------------------------------------------------ building
    def _new(self, prefix: str, kind: str, obj: Any = None) -> GraphNode:
        node = GraphNode(f"{prefix}{self._counts[prefix]}", kind, obj)
        self._counts[prefix] += 1
        self.nodes.append(node)
        return node

    def _leaf(self, tensor: TensorBase) -> GraphNode:
        node = self.leaf_ids.get(id(tensor))
        if node is None:
            node = self._new("t", "param" if tensor.requires_grad else "const", tensor)
            node.name = self._names.get(id(tensor))
            if node.name and "." in node.name:
                node.cluster = node.name.rsplit(".", 1)[0]
            self.leaf_ids[id(tensor)] = node
        return node

    def _room(self) -> bool:
        """True while one more box fits under MAX_GRAPH_NODES (one is kept for the summary box)."""
        if len(self.nodes) < MAX_GRAPH_NODES - 1:
            return True
        self.limit_hit = True
        return False

    def _build(self, max_nodes: int, show_constants: bool) -> None:
        root = self.root
        root_node = root.grad_fn
        top = self._new("t", "root" if root_node is not None else ("param" if root.requires_grad else "const"), root)
        top.name = self._names.get(id(root)) or (_("loss") if root.data.size == 1 else _("output"))
        if root_node is None:
            return
        all_ops = autograd_graph.nodes(root_node)  # breadth-first: nearest the output first
        self.total_ops = len(all_ops)
        self.out_ids[root_node] = top
        clamped = max_nodes > MAX_GRAPH_NODES
        max_nodes = min(max_nodes, MAX_GRAPH_NODES)
        # An op is drawn (expanded) only if, when its output tensor was first reached, the
        # picture still had room (max_nodes). Once it is full nothing new is expanded, so
        # the drawn ops are the first ones of the breadth-first order. MAX_GRAPH_NODES is a
        # hard limit on top: an op with hundreds of inputs cannot overflow it either.
        expand = {root_node}
        starved: list[GraphNode] = []  # drawn ops some of whose inputs were left out
        for bnode in all_ops:
            if bnode not in expand or not self._room():
                break
            op = self._new("op", "op", bnode)
            self.op_ids[bnode] = op
            self.edges.append(GraphEdge(op, self.out_ids[bnode]))
            for slot, nxt in enumerate(bnode.next_nodes):
                if nxt is None:
                    # No gradient goes to this input. Draw it only if it was a Tensor: a Python
                    # number and a setting (an axis, a shape) look alike to the graph.
                    if show_constants and bnode.is_tensor_input[slot]:
                        if self._room():
                            self.edges.append(GraphEdge(self._new("c", "const"), op, bnode, slot))
                        else:
                            self.dropped_inputs += 1
                            starved.append(op)
                    continue
                drawn = self.leaf_ids.get(id(nxt)) if isinstance(nxt, TensorBase) else self.out_ids.get(nxt)
                if drawn is None and not self._room():
                    self.dropped_inputs += 1
                    starved.append(op)
                    continue
                if isinstance(nxt, TensorBase):  # a leaf
                    self.edges.append(GraphEdge(self._leaf(nxt), op, bnode, slot))
                    continue
                if nxt not in self.out_ids:  # first time this op's output is reached
                    self.out_ids[nxt] = self._new("t", "tensor", nxt)
                    if len(self.nodes) < max_nodes:
                        expand.add(nxt)
                self.edges.append(GraphEdge(self.out_ids[nxt], op, bnode, slot))
        # Ops reached but not expanded (over max_nodes) collapse into one summary node.
        unexpanded = [n for n in all_ops if n not in self.op_ids]
        if unexpanded and clamped:
            self.limit_hit = True  # max_nodes asked for more than MAX_GRAPH_NODES allows
        if unexpanded or starved:
            self.hidden = Counter(type(n).__name__ for n in unexpanded)
            more = self._new("more", "more")
            most = ", ".join(f"{name} x{count}" for name, count in self.hidden.most_common(3))
            more.name = _("{n} more ops", n=len(unexpanded)) + f"\n({most}{', ...' if len(self.hidden) > 3 else ''})"
            if self.dropped_inputs:
                more.name += "\n" + _("and {n} inputs not drawn", n=self.dropped_inputs)
            for bnode, out in self.out_ids.items():
                if bnode not in self.op_ids:
                    self.edges.append(GraphEdge(more, out))
            for op in dict.fromkeys(starved):
                self.edges.append(GraphEdge(more, op))

    def name_intermediates(self, names: dict[str, Tensor] | None) -> None:
        """Names for non-leaf tensors, found through their ``grad_fn``."""
        for name, t in (names or {}).items():
            if isinstance(t, Tensor) and t.grad_fn is not None and t.grad_fn in self.out_ids:
                node = self.out_ids[t.grad_fn]
                if node.kind == "tensor" or node.name in (None, _("loss"), _("output")):
                    node.name = name


def is_learners_op(bnode: BackwardNode) -> bool:
    """True when the op's backward is a learner's: overridden, or a Function written outside minitorch."""
    fn = bnode.function
    return bool(getattr(fn, "backward_overridden", False)) or not fn.__module__.startswith("minitorch.")


class GradientSource(Protocol):
    """What ``render`` asks about gradients: ``RecordedGradients``, or the stepper's ``StepGradients``."""

    def output(self, bnode: BackwardNode) -> Array | None: ...

    def inputs(self, bnode: BackwardNode) -> Gradients | None: ...

    def leaf(self, tensor: Tensor) -> Array | None: ...


class RecordedGradients:
    """Gradients for drawing, taken from the engine observer and the leaves' ``.grad``."""

    def output(self, bnode: BackwardNode) -> Array | None:
        rec = recorder.record_of(bnode)
        return None if rec is None else rec[1]

    def inputs(self, bnode: BackwardNode) -> Gradients | None:
        rec = recorder.record_of(bnode)
        return None if rec is None else rec[2]

    def leaf(self, tensor: Tensor) -> Array | None:
        return None if tensor.grad is None else tensor.grad.data


def draw_graph(
    root: Tensor,
    show_grad: bool = True,
    show_data: bool = False,
    rankdir: str = "auto",
    max_nodes: int = DEFAULT_MAX_NODES,
    params: Any = None,
    names: dict[str, Tensor] | None = None,
    show_constants: bool = True,
    legend: bool = True,
    size: Any = "auto",
    show_all: bool = False,
) -> GraphPicture:
    """The graph behind ``root`` as a ``graphviz.Digraph`` (shows as SVG in a notebook).

    Drawn by Graphviz's ``dot`` program; where it is not installed, by the browser's copy of
    Graphviz, with the same layout rules (``widgets/draw/browser_view.py``).

    ``params``: a Module (its ``named_parameters()`` name the parameter boxes and group them
    per sub-module), a ``{name: tensor}`` dict or ``model.named_parameters()``. ``names``:
    more ``{name: tensor}`` labels, intermediate results too (``names={"h": h}``).
    ``show_grad``: gradient norms after ``backward()``. ``show_data``: values of small
    tensors. ``max_nodes``: a bigger graph is summarised with a note instead of drawn in
    full (never more than ``MAX_GRAPH_NODES`` boxes, so Graphviz stays fast; rendering
    stops after ``picture.RENDER_TIMEOUT_S`` seconds).

    Readable by default (``size="auto"``, ``rankdir="auto"``): left to right when that fits
    the notebook's width, else top to bottom, shrunk at most to 0.75 of full size; a graph
    too big even so shows the ops nearest the output and summarises the rest
    (``widgets/draw/layout.py``). ``show_all=True`` draws every op, shrunk to the width.
    ``rankdir="LR"``/``"TB"`` fixes the direction; ``size``: the largest picture in inches
    ("width,height", Graphviz shrinks to it) or None (full size, however big).

    ``root`` may also be a ``minitorch.compile``d step (or a module after ``.compile()``):
    the picture is then its program, the flat list of kernels (``widgets/draw/program.py``).
    """
    w = "draw_graph"
    browser_view.require_renderer()  # no dot and no browser copy of Graphviz: say so now, and how to fix it
    compiled = compiled_of(root)
    if compiled is not None:  # a compiled step: its flat list of kernels (widgets/draw/program.py)
        return draw_program(compiled, rankdir="TB" if rankdir in ("LR", "auto") else rankdir)
    show_grad, show_data, show_constants, legend, show_all = (
        arguments.need_bool(w, arg, v) for arg, v in
        (("show_grad", show_grad), ("show_data", show_data), ("show_constants", show_constants), ("legend", legend),
         ("show_all", show_all)))
    rankdir = rankdir if rankdir == "auto" else arguments.need_rankdir(w, rankdir)
    size = size if size == "auto" else arguments.need_size(w, size)
    graph, modules = build_graph(root, params, names, max_nodes, show_constants)
    just_started = recorder.install()  # from now on each backward is recorded, for the next pictures
    note = _not_recorded_note(graph) if just_started and show_grad else None
    grads = RecordedGradients() if show_grad else None
    if size != "auto":
        return render(graph, grads, show_data, "LR" if rankdir == "auto" else rankdir, modules, legend,
                      title=note, size=size)
    drawn = len(graph.nodes)

    def make(direction: str, boxes: int) -> GraphPicture:
        part, title = graph, note
        if boxes < drawn:  # summarised to fit the width: the ops nearest the output
            part, _unused = build_graph(root, params, names, boxes, show_constants)
            part.fitted_note = _("Summarised to fit the notebook's width with readable text: the {shown} ops "
                                 "nearest the output of {total}. draw_graph(..., show_all=True) draws all of them, "
                                 "smaller.", shown=part.total_ops - sum(part.hidden.values()), total=part.total_ops)
        return render(part, grads, show_data, direction, modules, legend, title=title, size=None)

    return layout.fit_to_notebook(make, drawn, rankdir, show_all).picture


def _not_recorded_note(graph: ComputationGraph) -> str | None:
    """A note for a graph whose leaves have gradients from a backward that ran before recording started."""
    if not any(node.kind == "param" and node.obj.grad is not None for node in graph.leaf_ids.values()):
        return None
    return _("Gradient norms are recorded from this draw_graph on: a backward that ran before it shows only the "
             "leaves' .grad. Run the forward and backward again to see the gradient along every arrow.")


def build_graph(root: Any, params: Any = None, names: Any = None, max_nodes: Any = DEFAULT_MAX_NODES,
                show_constants: bool = True, widget: str = "draw_graph") -> tuple[ComputationGraph, dict[str, str]]:
    """The ``ComputationGraph`` behind ``root`` with names applied, and the module kinds for clusters.

    Checks the arguments first: a wrong one raises a TypeError/ValueError naming ``widget``.
    """
    arguments.need_tensor(widget, "root" if widget == "draw_graph" else "loss", root)
    max_nodes = arguments.need_int(widget, "max_nodes", max_nodes, minimum=1)
    all_names, modules = arguments.need_params(widget, params)
    names = arguments.need_names(widget, names)
    all_names.update(names)
    graph = ComputationGraph(root, all_names, max_nodes, show_constants)
    graph.name_intermediates(names)
    return graph, modules


# ---------------------------------------------------------------------- rendering
def render(graph: ComputationGraph, grads: GradientSource | None, show_data: bool = False, rankdir: str = "LR",
           modules: dict[str, str] | None = None, legend: bool = True, states: dict[BackwardNode, str] | None = None,
           title: str | None = None, size: str | None = DEFAULT_SIZE) -> GraphPicture:
    """DOT for a ``ComputationGraph``.

    ``grads``: where gradients come from (None: draw none). ``states``: for the stepper,
    ``{BackwardNode: "done" | "current" | "pending"}``; pending parts are greyed out.
    """
    norms = _edge_and_node_norms(graph, grads)
    finite = [v for v in norms.values() if v is not None and math.isfinite(v) and v > 0]
    lo, hi = (min(finite), max(finite)) if finite else (None, None)

    dot = GraphPicture("minitorch")
    font = style.graph_font(get_language())  # Chinese labels need a font that has their characters
    dot.attr(rankdir=rankdir, fontname=font, fontsize="11", nodesep="0.25", ranksep="0.35")
    if size:
        dot.attr(size=size)  # graphviz only shrinks a picture bigger than this (inches)
    dot.attr("node", fontname=font, fontsize="10", margin="0.08,0.04", height="0.3")
    dot.attr("edge", arrowsize="0.6")
    states = states or {}

    clusters: dict[str, list[tuple[str, dict[str, str]]]] = {}
    for node in graph.nodes:
        attrs = _node_attrs(node, norms.get(node.id), show_data, states)
        if states and node.kind in ("tensor", "root", "param") and node.id not in norms:
            attrs.update(fillcolor=style.PENDING_FILL, color=style.PENDING_FONT, fontcolor=style.PENDING_FONT)
        if node.cluster is not None:
            clusters.setdefault(node.cluster, []).append((node.id, attrs))
        else:
            dot.node(node.id, **attrs)
    for i, (path, members) in enumerate(sorted(clusters.items())):
        with dot.subgraph(name=f"cluster_{i}") as sub:
            kind = (modules or {}).get(path)
            sub.attr(label=f"{path} ({kind})" if kind else path, style="rounded,dashed", color="#7f9cc9",
                     fontname=font, fontsize="10", fontcolor="#1f5fbf")
            for node_id, attrs in members:
                sub.node(node_id, **attrs)

    for edge in graph.edges:
        dot.edge(edge.src.id, edge.dst.id, **_edge_attrs(edge, norms, lo, hi, states))

    notes: list[str] = []
    if title:
        notes.append(title)
    if graph.limit_hit:
        hidden = sum(graph.hidden.values())
        dropped = _(", and {n:,} inputs are not drawn", n=graph.dropped_inputs) if graph.dropped_inputs else ""
        notes.append(_("Large graph: showing {shown:,} of {total:,} ops (limit: {limit} boxes, so Graphviz stays "
                       "fast); {hidden:,} more are summarised{dropped}. Draw a smaller part of the computation to "
                       "see more.", shown=graph.total_ops - hidden, total=graph.total_ops, limit=MAX_GRAPH_NODES,
                       hidden=hidden, dropped=dropped))
    elif graph.fitted_note:
        notes.append(graph.fitted_note)
    elif graph.hidden:
        shown = graph.total_ops - sum(graph.hidden.values())
        notes.append(_("Large graph: showing the {shown} ops nearest the output; {hidden} more are summarised "
                       "(max_nodes); a bigger max_nodes= draws more.", shown=shown, hidden=sum(graph.hidden.values())))
    label = graph_legend.label(notes, legend)
    if label:
        dot.attr(label=label, labelloc="b", labeljust="l")
    return dot


def _edge_and_node_norms(graph: ComputationGraph, grads: GradientSource | None) -> dict[Any, float | None]:
    """Gradient norm per node id and per edge (keyed ``(src id, dst id, slot)``)."""
    norms: dict[Any, float | None] = {}  # keyed by node id, or by _edge_key for an edge
    if grads is None:
        return norms
    for bnode, out in graph.out_ids.items():
        g = grads.output(bnode)
        if g is not None:
            norms[out.id] = style.array_norm(g)
    for node in graph.leaf_ids.values():
        g = grads.leaf(node.obj) if node.kind == "param" else None
        if g is not None:
            norms[node.id] = style.array_norm(g)
    if graph.root.grad_fn is None and graph.root.requires_grad and grads.leaf(graph.root) is not None:
        norms[graph.nodes[0].id] = style.array_norm(grads.leaf(graph.root))
    for edge in graph.edges:
        if edge.op is None:
            continue
        g_in = grads.inputs(edge.op)
        if g_in is not None and edge.slot is not None and edge.slot < len(g_in) and edge.src.kind != "const":
            norms[_edge_key(edge)] = style.array_norm(g_in[edge.slot])
    # op -> output edges carry the output's gradient
    for edge in graph.edges:
        if edge.op is None and edge.dst.id in norms and edge.src.kind == "op":
            norms[_edge_key(edge)] = norms[edge.dst.id]
    return norms


def _edge_key(edge: GraphEdge) -> tuple[str, str, int | None]:
    return (edge.src.id, edge.dst.id, edge.slot)


def _node_attrs(node: GraphNode, norm: float | None, show_data: bool,
                states: dict[BackwardNode, str]) -> dict[str, str]:
    """Shape, colours and label of one node."""
    if node.kind == "op":
        bnode = node.obj
        yours = is_learners_op(bnode)
        label = type(bnode).__name__ + ("\n(" + _("your backward") + ")" if yours else "")
        attrs = {"shape": "box", "style": "rounded,filled", "label": label,
                 "fillcolor": style.YOURS_FILL if yours else style.OP_FILL,
                 "color": style.YOURS_BORDER if yours else style.OP_BORDER,
                 "penwidth": "1.5" if yours else "1"}
        return _apply_state(attrs, states.get(bnode))
    if node.kind == "more":
        return {"shape": "box", "style": "dashed", "label": node.name or "", "color": style.CONST_BORDER,
                "fontcolor": "#666666"}
    if node.kind == "const" and node.obj is None:
        return {"shape": "box", "style": "dashed,filled", "label": _("no grad"), "fontsize": "9",
                "fillcolor": style.CONST_FILL, "color": style.CONST_BORDER, "fontcolor": "#666666",
                "height": "0.2"}

    if node.kind in ("param", "const"):
        tensor = node.obj
        shape, dtype = tensor.shape, tensor.dtype
    else:  # a non-leaf tensor: its shape/dtype are on the node that produced it
        bnode = node.obj.grad_fn if isinstance(node.obj, Tensor) else node.obj
        assert bnode is not None  # a tensor drawn as an op's output was made by that op
        shape, dtype = bnode.out_shape, bnode.out_dtype
    lines: list[str] = []
    if node.name:
        lines.append(node.name)
    lines.append(f"{style.fmt_shape(shape)} {style.fmt_dtype(dtype)}")
    if show_data and isinstance(node.obj, Tensor):
        lines.append(_short_values(node.obj))
    bad = norm is not None and not math.isfinite(norm)
    if norm is not None:
        lines.append(f"|grad| {style.fmt_norm(norm)}" + ("  (" + _("bad gradient!") + ")" if bad else ""))
    fill, border, shape_name, extra = {
        "param": (style.PARAM_FILL, style.PARAM_BORDER, "box", ""),
        "const": (style.CONST_FILL, style.CONST_BORDER, "box", ",dashed"),
        "tensor": (style.TENSOR_FILL, style.TENSOR_BORDER, "note", ""),
        "root": (style.ROOT_FILL, style.ROOT_BORDER, "box", ",bold"),
    }[node.kind]
    attrs = {"shape": shape_name, "style": "filled" + extra, "label": "\n".join(lines),
             "fillcolor": fill, "color": style.BAD_GRAD if bad else border, "penwidth": "2.5" if bad else "1"}
    if bad:
        attrs["fontcolor"] = style.BAD_GRAD
    return attrs


def _apply_state(attrs: dict[str, str], state: str | None) -> dict[str, str]:
    """Stepper colouring: the current op stands out, ops still to run are greyed."""
    if state == "current":
        attrs.update(fillcolor=style.CURRENT_FILL, color=style.CURRENT_BORDER, penwidth="3")
    elif state == "pending":
        attrs.update(fillcolor=style.PENDING_FILL, color=style.PENDING_FONT, fontcolor=style.PENDING_FONT)
    return attrs


def _edge_attrs(edge: GraphEdge, norms: dict[Any, float | None], lo: float | None, hi: float | None,
                states: dict[BackwardNode, str]) -> dict[str, str]:
    norm = norms.get(_edge_key(edge))
    attrs = {"color": style.grad_colour(norm, lo, hi), "penwidth": f"{style.grad_width(norm, lo, hi):.2g}"}
    if norm is None and edge.src.kind == "const":
        attrs["style"] = "dashed"
    if edge.op is not None and states.get(edge.op) == "pending":
        attrs["color"] = style.PENDING_FONT
    return attrs


def _short_values(tensor: Tensor) -> str:
    """The values of a small tensor on one line; only the size for a big one."""
    data = tensor.data
    if not isinstance(data, np.ndarray):
        data = data.get()
    if data.size > 8:
        return _("{n} values", n=data.size)
    return np.array2string(data.reshape(-1), precision=3, separator=" ", max_line_width=60)
