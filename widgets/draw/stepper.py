"""``BackwardStepper``: walk through ``loss.backward()`` one node at a time.

    stepper = BackwardStepper(loss, params=model)
    stepper            # a slider, Prev / Next / Play, the graph and a caption

The stepper runs the backward once with ``retain_graph=True`` while an engine observer
writes down each step, in the order the engine really took them. Each slider position
then redraws the graph: the op that just ran is highlighted, the gradients computed so far
are shown, and what is still to come is grey. The leaves' ``.grad`` are put back as they
were, so the stepper never doubles a gradient; ``loss.backward()`` still works afterwards.

If the graph was already used by a plain ``loss.backward()`` (its buffers are freed), the
stepper replays what ``widgets.draw.recorder`` recorded during that backward instead (recording
starts with the first ``draw_graph`` or stepper, or ``widgets.record_gradients()``).

In a notebook checked by nbval, put ``# NBVAL_IGNORE_OUTPUT`` on the stepper's cell: a
widget's output embeds the SVG, which depends on the graphviz version.

Without Graphviz's ``dot`` program the graph panel is a ``browser_view`` widget instead of SVG:
the browser picks the layout once (as ``draw_graph`` does) and redraws each step's DOT in it.
"""

from typing import Any

import ipywidgets as widgets

from minitorch import autograd, backends
from minitorch.autograd import BackwardNode
from minitorch.autograd import graph as autograd_graph
from minitorch.hints import Array, Gradients
from minitorch.tensor import Tensor
from widgets import style
from widgets.check import arguments
from widgets.draw import browser_view, layout, recorder
from widgets.draw.graph import DEFAULT_MAX_NODES, build_graph, render
from widgets.draw.picture import GraphPicture
from widgets.i18n import _

Step = tuple[BackwardNode, Array, Gradients]  # (node, grad_output, grad_inputs) of one backward step
MAX_CHIPS = 60  # engine-order chips shown at once; a longer backward shows a window around the step


def _copy(array: Array | None) -> Array | None:
    return None if array is None else array.copy()


def record_backward(loss: Tensor) -> list[Step]:
    """``[(node, grad_output, grad_inputs), ...]`` in the engine's order, leaving ``.grad`` as it was."""
    if loss.grad_fn is None:
        raise ValueError(_("record_backward: loss has no grad_fn, so there is no backward to record"))
    graph_leaves = autograd_graph.leaves(loss.grad_fn)
    # The engine accumulates with ``leaf.grad.data = leaf.grad.data + g``: keep the array too.
    saved = {id(t): (t.grad, None if t.grad is None else t.grad.data) for t in graph_leaves}
    steps: list[Step] = []

    def observe(node: BackwardNode, grad_output: Array, grad_inputs: Gradients) -> None:
        steps.append((node, _copy(grad_output), tuple(_copy(g) for g in grad_inputs)))

    was_recording = recorder.set_recording(False)  # a failed replay must not overwrite real records
    autograd.add_backward_observer(observe)
    try:
        loss.backward(retain_graph=True)
    finally:
        autograd.remove_backward_observer(observe)
        recorder.set_recording(was_recording)
        for t in graph_leaves:
            t.grad, data = saved[id(t)]
            if t.grad is not None:
                t.grad.data = data
    return steps


def replay_recorded(loss: Tensor) -> list[Step] | None:
    """The steps of the last backward through ``loss``'s graph, from ``widgets.recorder``."""
    if loss.grad_fn is None:
        return None  # nothing was recorded: there is no graph
    records = []
    for node in autograd_graph.nodes(loss.grad_fn):
        rec = recorder.record_of(node)
        if rec is None:
            return None
        records.append((rec[0], node, rec[1], rec[2]))
    records.sort(key=lambda r: r[0])
    return [(node, g_out, g_in) for _, node, g_out, g_in in records]


def leaf_uses(steps: list[Step]) -> dict[int, list[tuple[int, Array]]]:
    """``{id(leaf): [(step index, gradient sent to it), ...]}`` over all steps."""
    uses: dict[int, list[tuple[int, Array]]] = {}
    for i, (node, _grad_output, grad_inputs) in enumerate(steps):
        for nxt, g in zip(node.next_nodes, grad_inputs):
            if isinstance(nxt, Tensor) and g is not None:
                uses.setdefault(id(nxt), []).append((i, g))
    return uses


class StepGradients:
    """The gradients known after the first ``k`` backward steps (what ``render`` draws)."""

    def __init__(self, steps: list[Step], k: int, position: dict[BackwardNode, int] | None = None,
                 uses: dict[int, list[tuple[int, Array]]] | None = None) -> None:
        self.position = position if position is not None else {node: i for i, (node, _, _) in enumerate(steps)}
        self.uses = uses if uses is not None else leaf_uses(steps)
        self.steps = steps
        self.k = k

    def output(self, bnode: BackwardNode) -> Array | None:
        # A node's output gradient is complete once all its consumers ran: by the time it runs.
        i = self.position.get(bnode)
        return None if i is None or i > self.k else self.steps[i][1]

    def inputs(self, bnode: BackwardNode) -> Gradients | None:
        i = self.position.get(bnode)
        return None if i is None or i >= self.k else self.steps[i][2]

    def leaf(self, tensor: Tensor) -> Array | None:
        """The part of the leaf's gradient gathered so far (summed over the ops that ran)."""
        total = None
        for i, g in self.uses.get(id(tensor), ()):
            if i >= self.k:
                break
            if g.shape != tuple(tensor.shape):  # a size-1 gradient, as the engine allows
                g = backends.module_of(g).broadcast_to(g, tuple(tensor.shape))
            total = g if total is None else total + g
        return total


class BackwardStepper:
    """A slider through the engine's backward steps over the graph of ``loss``."""

    def __init__(self, loss: Tensor, params: Any = None, names: dict[str, Tensor] | None = None,
                 max_nodes: int = DEFAULT_MAX_NODES, rankdir: str = "auto") -> None:
        w = "BackwardStepper"
        arguments.need_tensor(w, "loss", loss)
        if loss.grad_fn is None:
            raise ValueError(_(
                "{widget}: loss has no grad_fn ({value}, requires_grad={requires_grad}): there is no backward to "
                "step through. Pass a result computed from tensors with requires_grad=True, outside "
                "minitorch.no_grad()", widget=w, value=arguments.what(loss), requires_grad=loss.requires_grad))
        if loss.data.size != 1:
            raise ValueError(_("{widget}: loss must be a single number to start backward from, got {value}; reduce it "
                               "first, e.g. BackwardStepper(loss.sum()) or loss.mean()", widget=w,
                               value=arguments.what(loss)))
        rankdir = rankdir if rankdir == "auto" else arguments.need_rankdir(w, rankdir)
        browser_view.require_renderer()
        self.loss = loss
        self.graph, self.modules = build_graph(loss, params, names, max_nodes, widget=w)
        # One layout for every step, chosen as draw_graph chooses it; every node stays (a step
        # may need any of them), so a big graph is shrunk to the width rather than summarised.
        fitted = layout.fit_to_notebook(
            lambda direction, _boxes: render(self.graph, None, rankdir=direction, modules=self.modules, legend=False,
                                        size=None), len(self.graph.nodes), rankdir, show_all=True)
        self.rankdir, self.size = fitted.rankdir, fitted.size
        # Without dot the browser chooses among these directions (fitted.picture.browser_plan).
        plan = fitted.picture.browser_plan
        self._browser_plan = plan
        self._directions = [p["rankdir"] for p in plan["levels"][0]["pictures"]] if plan else [self.rankdir]
        recorder.install()  # so a later stepper can replay a plain loss.backward()
        try:
            self.steps = record_backward(loss)
            self.source = _("recorded now (retain_graph=True; .grad left unchanged)")
        except RuntimeError as exc:  # buffers already freed by an earlier backward
            if "second time" not in str(exc) and "freed" not in str(exc):
                raise  # another error (a backward that fails, ...): show it as it is
            replayed = replay_recorded(loss)
            self.source = _("replayed from the backward() that already ran")
            if replayed is None:
                raise RuntimeError(_(
                    "BackwardStepper: this graph was already used by backward() and its buffers are "
                    "freed. Create the stepper before calling loss.backward(), or call "
                    "loss.backward(retain_graph=True). (A plain backward can be replayed only once "
                    "recording has started: widgets.record_gradients(), or any draw_graph or stepper before it.)"
                )) from None
            self.steps = replayed
        self.order = [type(node).__name__ for node, _, _ in self.steps]
        self._position = {node: i for i, (node, _, _) in enumerate(self.steps)}
        self._uses = leaf_uses(self.steps)
        self._svg_cache: dict[int, str] = {}
        self._build_widget()

    def __len__(self) -> int:
        return len(self.steps)

    # -------------------------------------------------------------- drawing one step
    def states(self, k: int) -> dict[BackwardNode, str]:
        """``{node: "done" | "current" | "pending"}`` after ``k`` steps."""
        states: dict[BackwardNode, str] = {}
        for i, node in enumerate(node for node, _g_out, _g_in in self.steps):
            states[node] = "current" if i == k - 1 else ("done" if i < k else "pending")
        return states

    def show(self, k: int, rankdir: str | None = None) -> GraphPicture:
        """The graph after ``k`` backward steps, as a ``graphviz.Digraph`` (``rankdir``: the layout's, by default)."""
        grads = StepGradients(self.steps, k, self._position, self._uses)
        return render(self.graph, grads, rankdir=rankdir or self.rankdir, modules=self.modules,
                      states=self.states(k), legend=False, size=self.size)

    def caption(self, k: int) -> str:
        """One sentence saying what step ``k`` did."""
        n = len(self.steps)
        if k == 0:
            return _("Before backward: d loss / d loss = 1 starts at the output. {n} ops will run their "
                     "backward, in the order below. Press Next.", n=n)
        node, g_out, g_in = self.steps[k - 1]
        sent = ", ".join(style.fmt_norm(style.array_norm(g)) for g in g_in if g is not None) or _("nothing")
        text = _("Step {k} of {n}: {op} received a gradient of norm {norm} and sent gradients of norm {sent} to its "
                 "inputs.", k=k, n=n, op=type(node).__name__, norm=style.fmt_norm(style.array_norm(g_out)), sent=sent)
        if k == n:
            text += _(" Backward is done: every leaf that requires grad has its .grad.")
        return text

    def _svg(self, k: int) -> str:
        if k not in self._svg_cache:
            svg = self.show(k).pipe(format="svg").decode("utf-8")
            # Scale with the notebook's width instead of overflowing it.
            self._svg_cache[k] = svg.replace("<svg ", '<svg style="max-width:100%;height:auto" ', 1)
        return self._svg_cache[k]

    # -------------------------------------------------------------- the widget
    def _build_widget(self) -> None:
        n = len(self.steps)
        self.slider = widgets.IntSlider(value=0, min=0, max=n, step=1, description=_("step"),
                                        continuous_update=True, layout=widgets.Layout(width="420px"))
        self.prev_button = widgets.Button(description=_("Prev"), icon="step-backward",
                                          layout=widgets.Layout(width="80px"))
        self.next_button = widgets.Button(description=_("Next"), icon="step-forward",
                                          layout=widgets.Layout(width="80px"))
        self.play = widgets.Play(value=0, min=0, max=n, step=1, interval=900, description=_("play"))
        widgets.jslink((self.play, "value"), (self.slider, "value"))
        self.caption_html = widgets.HTML()
        self.order_html = widgets.HTML()
        if self._browser_plan is None:
            self.graph_html = widgets.HTML(layout=widgets.Layout(overflow="auto"))
            self.graph_panel = self.graph_html
        else:  # no dot: the browser draws each step (graph_view.js)
            self.graph_panel = browser_view.graph_view(self._browser_plan, frame=self._frame(0), step=0)
        self.prev_button.on_click(lambda _: self._move(-1))
        self.next_button.on_click(lambda _: self._move(+1))
        self.slider.observe(lambda change: self._update(change["new"]), names="value")
        controls = widgets.HBox([self.play, self.prev_button, self.slider, self.next_button])
        self.widget = widgets.VBox([controls, self.caption_html, self.order_html, self.graph_panel])
        self.widget.add_class("minitorch-stepper")
        self._update(0)

    def _move(self, delta: int) -> None:
        self.slider.value = int(min(max(self.slider.value + delta, 0), self.slider.max))

    def _update(self, k: int) -> None:
        self.caption_html.value = f'<div style="font-family:sans-serif;margin:4px 0">{self.caption(k)}</div>'
        chips: list[str] = []
        first, last = 0, len(self.order)
        if last > MAX_CHIPS:  # a long backward: the chips around step k, and how many are left out
            first = min(max(k - 1 - MAX_CHIPS // 2, 0), last - MAX_CHIPS)
            last = first + MAX_CHIPS
        for i in range(first, last):
            name = self.order[i]
            if i == k - 1:
                css = f"background:{style.CURRENT_FILL};border:2px solid {style.CURRENT_BORDER};font-weight:bold"
            elif i < k:
                css = "background:#ffffff;border:1px solid #555"
            else:
                css = f"background:{style.PENDING_FILL};color:{style.PENDING_FONT};border:1px solid #ccc"
            chips.append(f'<span style="{css};border-radius:4px;padding:1px 5px;margin:2px;'
                         f'display:inline-block;font-size:0.85em">{i + 1}. {name}</span>')
        before = _("... {n:,} earlier steps ", n=first) if first else ""
        after = _(" ... {n:,} later steps", n=len(self.order) - last) if last < len(self.order) else ""
        shown = before + "".join(chips) + after
        self.order_html.value = f'<div style="font-family:sans-serif">{_("engine order:")} {shown}</div>'
        if self._browser_plan is None:
            self.graph_html.value = f'<div class="minitorch-stepper-graph" data-step="{k}">{self._svg(k)}</div>'
        elif self.graph_panel.step != k:  # one message to the browser: the step's DOT in every candidate layout
            with self.graph_panel.hold_sync():
                self.graph_panel.frame = self._frame(k)
                self.graph_panel.step = k

    def _frame(self, k: int) -> dict[str, str]:
        """Step ``k``'s DOT in each direction the browser may choose (it picks one, once)."""
        return {direction: self.show(k, direction).source for direction in self._directions}

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)
