"""The tracer: run a step eagerly once and write down what it did, as a ``Program``.

It is the recorder of ``minitorch/trace_hooks.py``: while it runs a step, ``SWITCHES.tracer``
is this tracer, and the eager code tells it what happens (the eager path pays one test per
call for this, and nothing else changes):

- ``Function.apply`` hands over each op call: its class, which slot feeds each argument,
  its output's slot (``record_op``);
- ``Tensor.backward`` hands over the pass: the engine's plan for it (``record_backward``);
- the ``@replayed`` calls (``optimizer.step()``, ``zero_grad()``, ``scheduler.step()``,
  ``clip_grad_norm_``, and ``p.grad = None``) are Python calls to make again on every replay:
  their numbers change from step to step (``record_call``);
- what would make a replay wrong is a **graph break** (``watchers.py``): a value handed to
  Python, an in-place change outside an op, random numbers drawn outside an op, a tensor
  computed outside the recorded ops, a backward pass the tracer does not write down.

Which array feeds which op is found by identity: every array the trace has seen is kept
alive until it ends, so an ``id`` is never reused during the trace.
"""

from __future__ import annotations

import linecache
import sys
from pathlib import Path
from typing import Any

import numpy as np

from minitorch import backends
from minitorch.autograd import engine
from minitorch.jit import graph_pass, lowering
from minitorch.jit.errors import GraphBreakError
from minitorch.jit.graph_pass import GraphPassStep
from minitorch.jit.program import BackwardStep, CallStep, OpStep, Program
from minitorch.jit.watchers import Watchers
from minitorch.switches import SWITCHES
from minitorch.tensor_base import TensorBase
from minitorch.trace_hooks import GO_ON

PACKAGE = str(Path(__file__).resolve().parents[1])  # .../minitorch: frames inside it are not the learner's
CREATE_GRAPH = (
    "a backward with create_graph=True is traced only as autograd.grad(outputs, inputs, create_graph=True) "
    "of tensors the recorded ops computed: this step runs eagerly"
)


def learner_line(source: bool = True) -> tuple[str, int, str]:
    """(file, line number, source) of the innermost frame outside the minitorch package."""
    frame: Any = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(PACKAGE):
        frame = frame.f_back
    if frame is None:
        return "<unknown>", 0, ""
    file, line = frame.f_code.co_filename, frame.f_lineno
    return file, line, linecache.getline(file, line).strip() if source else ""


class Tracer(Watchers):
    """Records one eager call of a step into ``self.program``; ``breaks`` lists why it can't be replayed.

    ``with Tracer() as tracer:`` makes it ``SWITCHES.tracer`` for the length of the call.
    """

    def __init__(self, fullgraph: bool = False) -> None:
        self.program = Program()
        self.fullgraph = fullgraph
        self.breaks: list[tuple[str, str, int, str]] = []  # (reason, file, line, source)
        self.slot_of: dict[int, int] = {}  # id(array) -> slot
        self.node_of: dict[int, int] = {}  # id(backward node) -> node number
        self.traced_ctx: dict[int, Any] = {}  # node number -> the eager ctx (for its final xp)
        self.arg_position: dict[int, int] = {}  # id(input tensor) -> its position in the arguments
        self.foreign: dict[int, str] = {}  # id(tensor made outside an op) -> where
        self.made: dict[int, Any] = {}  # id -> tensor created by the step from Python values (factories)
        self.keep: list[Any] = []  # everything seen, alive until the trace ends (ids stay unique)
        self.examples: dict[int, Any] = {}  # slot -> the array the trace saw there (for lowering)
        self.in_op = 0  # inside a recorded op's forward
        self.in_call = 0  # inside a replayed Python call or the engine: nothing there is recorded
        self.recording = True  # neither: the hooks hand what happens to this tracer
        self.graph_pass: GraphPassStep | None = None  # an autograd.grad(create_graph=True) being recorded

    # ------------------------------------------------------------------ the slot of trace_hooks
    def __enter__(self) -> Tracer:
        if SWITCHES.tracer is not None:
            raise RuntimeError("minitorch.compile: a trace is already running")
        SWITCHES.tracer = self
        return self

    def __exit__(self, *exc: Any) -> None:
        if SWITCHES.tracer is self:
            SWITCHES.tracer = None

    def _run_inside(self, kind: str, function: Any, *args: Any, **kwargs: Any) -> Any:
        """``function(*args, **kwargs)`` as part of a recorded op (``kind`` "op") or call: not recorded again."""
        if kind == "op":
            self.in_op += 1
        else:
            self.in_call += 1
        self.recording = False
        try:
            return function(*args, **kwargs)
        finally:
            if kind == "op":
                self.in_op -= 1
            else:
                self.in_call -= 1
            self.recording = not (self.in_op or self.in_call)

    # ------------------------------------------------------------------ breaks
    def graph_break(self, reason: str) -> None:
        """Note that the step did something a replay can't repeat (an error under fullgraph)."""
        file, line, source = learner_line()
        if self.breaks and self.breaks[-1][1:3] == (file, line) and self.breaks[-1][0] == reason:
            return  # the same thing again on the same line (scale() of a list, say): once is enough
        self.breaks.append((reason, file, line, source))
        if self.fullgraph:
            raise GraphBreakError(f"{reason} (at {file}:{line}: {source}); fullgraph=True makes this an error")

    # ------------------------------------------------------------------ inputs and slots
    def add_inputs(self, flat: list[Any]) -> None:
        """Give each tensor argument of the call its input slot."""
        for k, value in enumerate(flat):
            if isinstance(value, TensorBase):
                slot = self.program.new_slot()
                self.program.inputs.append(slot)
                self.program.input_tensors.append(k)
                self.slot_of[id(value.data)] = slot
                self.examples[slot] = value.data
                self.arg_position[id(value)] = k
                self.keep.append(value)

    def slot_for(self, value: Any, op: str) -> int:
        """The slot that holds ``value`` (an op's argument), made a constant if the trace never saw it."""
        program = self.program
        if isinstance(value, TensorBase):
            data = value.data
            slot = self.slot_of.get(id(data))
            if slot is not None:
                return slot
            if id(value) in self.foreign:
                self.graph_break(f"{op} uses a tensor computed outside the recorded ops ({self.foreign[id(value)]})")
            slot = program.new_slot()
            program.constants[slot] = data
            program.live.append((value, data))  # a parameter, a buffer, a constant: read as it is
            self.slot_of[id(data)] = slot
            self.keep.extend((value, data))
            return slot
        if isinstance(value, np.ndarray) or type(value).__module__.startswith("cupy"):
            slot = self.slot_of.get(id(value))
            if slot is not None:
                return slot
            self.graph_break(f"{op} got an array computed outside the recorded ops")
        elif isinstance(value, (tuple, list)) and any(isinstance(v, (TensorBase, np.ndarray)) for v in value):
            self.graph_break(f"{op} got tensors inside a {type(value).__name__}, which the tracer does not follow")
        slot = program.new_slot()
        program.constants[slot] = value
        self.keep.append(value)
        return slot

    # ------------------------------------------------------------------ recording (trace_hooks.Recorder)
    def record_op(self, function: type, args: tuple[Any, ...]) -> Any:
        """``Function.apply``'s call: run ``function.apply(*args)`` eagerly and append its OpStep."""
        if self.graph_pass is not None:  # inside autograd.grad(create_graph=True): numbered only
            return self._number_op(function, args)
        arg_slots = tuple(self.slot_for(a, function.__name__) for a in args)
        result = self._run_inside("op", function.apply, *args)  # type: ignore[attr-defined]
        node = result.grad_fn
        number = self.program.n_nodes
        self.program.n_nodes += 1
        out = self.program.new_slot()
        self.slot_of[id(result.data)] = out
        self.examples[out] = result.data
        self.keep.extend((result, result.data))
        tensors = tuple(isinstance(a, TensorBase) for a in args)
        xp = _xp_of(args)
        file, line, _ = learner_line(source=False)
        step = OpStep(function, arg_slots, out, number, None, tensors, xp, f"{Path(file).name}:{line}")
        if node is not None:
            step.needs_input_grad = node.needs_input_grad
            self.node_of[id(node)] = number
            self.traced_ctx[number] = node
            self.keep.append(node)
        self.program.steps.append(step)
        return result

    def _number_op(self, function: type, args: tuple[Any, ...]) -> Any:
        """An op of a create_graph pass: its output's slot and its node number, for the replay's ``Numbering``."""
        assert self.graph_pass is not None
        result = self._run_inside("op", function.apply, *args)  # type: ignore[attr-defined]
        data, node = graph_pass.data_and_node(result)
        number = self.program.n_nodes
        self.program.n_nodes += 1
        out = self.program.new_slot()
        self.slot_of[id(data)] = out
        self.keep.extend((result, data))
        if node is not None:
            self.node_of[id(node)] = number
            self.traced_ctx[number] = node
            self.keep.append(node)
        self.graph_pass.ops.append(graph_pass.GraphOp(function, out, number))
        return result

    def record_grad(self, run: Any, outputs: Any, inputs: Any, grad_outputs: Any, settings: dict[str, Any]) -> Any:
        """``autograd.grad``: with create_graph=True recorded as a ``GraphPassStep`` (``graph_pass.py``);
        else run as part of the step, which then runs eagerly (a graph break)."""
        if self.graph_pass is not None:
            return GO_ON  # the call record_grad itself makes, below
        if not settings["create_graph"]:
            self.graph_break(
                "autograd.grad(...) without create_graph is not traced (the replay writes gradients into "
                ".grad only): use loss.backward() in a compiled step"
            )
            return self._run_inside("call", run, outputs, inputs, grad_outputs, **settings)
        try:
            step = graph_pass.plan(self, outputs, inputs, grad_outputs)
        except graph_pass.CannotRecord as reason:
            self.graph_break(f"{reason}; {CREATE_GRAPH}")
            return self._run_inside("call", run, outputs, inputs, grad_outputs, **settings)
        self.graph_pass = step
        try:
            results = run(outputs, inputs, grad_outputs, **settings)  # its ops come to _number_op
        finally:
            self.graph_pass = None
        try:
            self.record_step(graph_pass.finish(self, step, results, settings))
        except graph_pass.CannotRecord as reason:
            self.graph_break(str(reason))
        return results

    def record_backward(
        self, run: Any, root: TensorBase, gradient: Any, retain_graph: Any, create_graph: bool, inputs: Any
    ) -> None:
        """``root.backward()``: run it eagerly (``run``, the engine's) and append the BackwardStep of its plan."""
        plan = None
        if gradient is not None:
            self.graph_break("backward(gradient=...) is not traced (only a loss's backward())")
        elif create_graph:
            self.graph_break(CREATE_GRAPH)
        elif root.grad_fn is None or id(root.grad_fn) not in self.node_of or root.data.size != 1:
            self.graph_break("backward() of a tensor the recorded ops did not compute")
        elif inputs is None:
            plan = self._plan(root)
        self._run_inside("call", run, root, gradient, retain_graph, create_graph, inputs)
        if plan is not None:
            order, leaf_edges = plan
            root_node = self.node_of[id(root.grad_fn)]
            self.program.steps.append(
                BackwardStep(root_node, self.slot_of[id(root.data)], order, leaf_edges, bool(retain_graph))
            )

    def record_pass(
        self, run: Any, root: TensorBase, gradient: Any, retain_graph: bool, capture: Any, create_graph: bool
    ) -> Any:
        """A backward pass not started by ``Tensor.backward`` (``autograd.backward``, say): not written
        down, so the step runs eagerly (the pass itself runs now, as eager runs it). Inside a recorded
        ``autograd.grad(create_graph=True)`` it goes on: its ops are numbered."""
        if self.graph_pass is not None:
            return GO_ON
        if create_graph:
            self.graph_break(CREATE_GRAPH)
        elif capture is not None:
            self.graph_break(
                "autograd.grad(...) is not traced (the replay writes gradients into .grad only): "
                "use loss.backward() in a compiled step"
            )
        else:
            self.graph_break("autograd.backward(...) is not traced: use loss.backward() in a compiled step")
        self._run_inside("call", run, root, gradient, retain_graph, capture, create_graph)

    def record_call(self, function: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """A ``@replayed`` call (optimizer steps, zero_grad, schedulers, clipping): make it and append its CallStep."""
        owner, rest = args[0], args[1:]
        method = "." in function.__qualname__  # Optimizer.step, not clip_grad_norm_
        if not method and not isinstance(owner, TensorBase):
            owner = list(owner)  # the parameters: a generator would be used up by the trace
        label = f"{type(owner).__name__}.{function.__name__}" if method else function.__name__
        if any(isinstance(a, TensorBase) or callable(a) for a in (*rest, *kwargs.values())):
            self.graph_break(f"{label} gets a tensor or a closure, whose values the replay would freeze")
        self.record_step(CallStep(function, owner, rest, dict(kwargs), label))
        return self._run_inside("call", function, owner, *rest, **kwargs)

    def record_step(self, step: Any) -> None:
        """Append a step to the program."""
        self.program.steps.append(step)

    def _plan(self, root: TensorBase) -> tuple[list[Any], dict[Any, int]] | None:
        """The engine's order for ``root``, with nodes as numbers and leaves as destinations."""
        assert root.grad_fn is not None  # (record_backward checked it)
        nodes, edges = engine.backward_plan(root.grad_fn)
        for node in nodes:
            if id(node) not in self.node_of:
                self.graph_break(f"backward() goes through {node.name()}, made outside the recorded ops")
                return None
            if node.has_hooks:
                self.graph_break("a register_hook on an intermediate tensor is not traced")
                return None
        order = [(self.node_of[id(node)], tuple(self._destination(n) for n in node.next_nodes)) for node in nodes]
        leaf_edges = {}
        for leaf, count in edges.items():
            where = self._destination(leaf)
            leaf_edges[where if where[0] == "arg" else leaf] = count
        return order, leaf_edges

    def _destination(self, nxt: Any) -> Any:
        if nxt is None:
            return None
        if not isinstance(nxt, TensorBase):
            return ("node", self.node_of[id(nxt)])
        if id(nxt) in self.arg_position:
            return ("arg", self.arg_position[id(nxt)])
        if id(nxt) in self.foreign or id(nxt) in self.made:
            self.graph_break(
                "a gradient flows into a leaf tensor created inside the step (a replay would reuse the trace's tensor)"
            )
        self.program.live.append((nxt, nxt.data))
        return ("leaf", nxt)

    # ------------------------------------------------------------------ the end
    def finish(self, output: Any) -> Program:
        """The program, with the output's structure and each node's final array library."""
        for step in self.program.steps:
            if type(step) is OpStep and step.node in self.traced_ctx:
                step.xp = self.traced_ctx[step.node].xp  # ToDevice sets its node's xp after forward
        self.program.output = self.output_spec(output)
        unique = {id(t): (t, a) for t, a in self.program.live}
        self.program.live = list(unique.values())
        self.program.prepare()
        if not self.breaks:  # what lowering needs, at the first replay (lowering.lower_program)
            constants = self.program.constants
            kept = {slot: a for slot, a in self.examples.items() if slot not in constants}
            shapes = {slot: lowering.stand_in(a) for slot, a in kept.items()}
            orders = {slot: lowering.memory_order(a) for slot, a in kept.items()}
            layouts = {slot: order for slot, order in orders.items() if order is not None}
            self.program.to_lower = (shapes, dict(self.traced_ctx), layouts)
        return self.program

    def output_spec(self, value: Any) -> Any:
        """How to rebuild the step's return value from a replay (see ``program._outputs``)."""
        if isinstance(value, TensorBase):
            if id(value) in self.arg_position:
                return ("arg", self.arg_position[id(value)])
            if value.grad_fn is not None and not value.grad_fn.freed:
                self.graph_break(
                    "the step returns a tensor whose graph is still to be used (backward() "
                    "outside the step): compile the whole training step"
                )
            slot = self.slot_of.get(id(value.data))
            if slot is not None and slot not in self.program.constants:
                return ("slot", slot)
            if id(value) in self.foreign:
                self.graph_break("the step returns a tensor computed outside the recorded ops")
            return ("value", value)
        if isinstance(value, (tuple, list)):
            kind = "tuple" if isinstance(value, tuple) else "list"
            return (kind, tuple(self.output_spec(v) for v in value))
        if isinstance(value, dict):
            return ("dict", tuple((k, self.output_spec(v)) for k, v in value.items()))
        if value is not None:  # a number or object made by the step's Python, which a replay does not run
            what = f"a Python {type(value).__name__}"  # (not its value: it differs from run to run)
            self.graph_break(
                f"the step returns {what}, not a tensor: a replay would return the trace's value "
                "(return tensors, or None)"
            )
        return ("value", value)


def _xp_of(args: tuple[Any, ...]) -> Any:
    """The array library of the first tensor argument (numpy without any), as ``Function.apply`` picks it."""

    for a in args:
        if isinstance(a, TensorBase):
            return np if type(a.data) is np.ndarray else backends.of(a.data).xp
    return np
