"""``autograd.grad(..., create_graph=True)`` inside a compiled step: recorded, replayed eagerly.

A gradient penalty (WGAN-GP) differentiates a gradient: ``autograd.grad(critic(x), x,
create_graph=True)`` runs each op's own backward on graph values (``autograd/graph_mode.py``).
Those backwards compute with arrays that no op returns (the gradient flowing in while it
carries no graph, masks, sums over broadcast axes), so a list of recorded ops alone could not
repeat the pass. It is recorded as one step instead, a ``GraphPassStep``, which a replay runs
eagerly:

- first the replay's forward nodes get the edges and saved roles that ``Function.apply``
  gives eager nodes (``function.connect_node``), so the engine can walk them;
- then ``autograd.grad`` itself runs, on tensors around the replay's arrays, with a
  ``Numbering`` in ``SWITCHES.tracer``: each op the pass applies gets the slot and node number
  the trace gave the op applied at that point, so the ops after the pass (the penalty) and the
  final ``backward()`` find their inputs and nodes where the trace left them.

The pass runs the code eager runs, on the same arrays, in the same order: the same bits come
out. The forward before it and the backward after it replay as usual; such a program is
replayed op by op (not lowered: ``lowering.py``), and not captured on a GPU.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from minitorch.autograd import engine, gradients
from minitorch.autograd.function import connect_node
from minitorch.autograd.graph_arrays import GraphArray
from minitorch.switches import SWITCHES
from minitorch.tensor_base import TensorBase
from minitorch.trace_hooks import GO_ON


@dataclass
class GraphOp:
    """An op the pass applied: its class, the slot of its output, its number in the run's nodes."""

    function: Any
    out: int
    node: int


@dataclass
class GraphPassStep:
    """``autograd.grad(outputs, inputs, grad_outputs, create_graph=True, ...)`` of the trace.

    A tensor is described as ``("node", slot, node)`` (computed by a recorded op), ``("arg", k)``
    (input ``k`` of the step), ``("leaf", tensor)`` (a parameter), ``("slot-leaf", slot)`` (a
    leaf the step made from an op's result: ``x = (...).requires_grad_()``) or ``("value",
    tensor)`` (a constant, for ``grad_outputs``).
    """

    outputs: tuple[Any, ...]
    inputs: tuple[Any, ...]
    grad_outputs: tuple[Any, ...] | None
    settings: dict[str, Any]
    wiring: list[tuple[int, tuple[Any, ...], tuple[int | None, ...]]]  # (node, its next nodes, its saved roles)
    ops: list[GraphOp]
    results: tuple[int | None, ...]  # the slot of each gradient returned (None: None)
    label: str = "autograd.grad(create_graph=True)"


class CannotRecord(Exception):
    """Why a pass is not recorded (the tracer makes it a graph break)."""


def data_and_node(result: Any) -> tuple[Any, Any]:
    """The output array and node of what ``Function.apply`` returned inside the pass: a Tensor, or
    (an op's backward calling ``apply`` on graph values) a GraphArray or a plain array."""
    if type(result) is GraphArray:
        result = result.tensor
    if isinstance(result, TensorBase):
        return result.data, result.grad_fn
    return result, None


def _as_tuple(value: Any) -> tuple[Any, ...]:
    return (value,) if isinstance(value, TensorBase) or value is None else tuple(value)


def describe(tracer: Any, t: Any, what: str) -> Any:
    """The description (class docstring) of a tensor the pass reads, as the trace knows it."""
    if not isinstance(t, TensorBase):
        raise CannotRecord(f"autograd.grad got {what} that is not a tensor")
    if id(t) in tracer.arg_position:
        return ("arg", tracer.arg_position[id(t)])
    slot = tracer.slot_of.get(id(t.data))
    if t.grad_fn is not None:
        if id(t.grad_fn) not in tracer.node_of or slot is None:
            raise CannotRecord(f"autograd.grad got {what} computed outside the recorded ops")
        return ("node", slot, tracer.node_of[id(t.grad_fn)])
    if id(t) in tracer.foreign or id(t) in tracer.made:
        raise CannotRecord(f"autograd.grad got {what}, a leaf created inside the step from Python values")
    if slot is not None and slot not in tracer.program.constants:
        return ("slot-leaf", slot)  # x = (eps * real + (1 - eps) * fake).requires_grad_()
    tracer.program.live.append((t, t.data))  # a parameter: read as it is, guarded by identity
    return ("leaf", t)


def _seed(tracer: Any, g: Any) -> Any:
    if g is None:
        return None
    if not isinstance(g, TensorBase) or g.requires_grad:
        raise CannotRecord("autograd.grad with grad_outputs that are not constant tensors is not traced")
    slot = tracer.slot_of.get(id(g.data))
    if slot is not None and slot not in tracer.program.constants:
        return ("node", slot, None)
    if id(g) in tracer.foreign:
        where = tracer.foreign[id(g)]
        raise CannotRecord(f"autograd.grad got grad_outputs computed outside the recorded ops ({where})")
    tracer.keep.append(g)
    return ("value", g)  # ones_like(...): a constant


def plan(tracer: Any, outputs: Any, inputs: Any, grad_outputs: Any) -> GraphPassStep:
    """What the trace knows of a pass about to run: its tensors described, its graph's edges."""
    outs = _as_tuple(outputs)
    described = []
    for t in outs:
        if not isinstance(t, TensorBase) or t.grad_fn is None:
            raise CannotRecord("autograd.grad of a tensor that no recorded op computed")
        described.append(describe(tracer, t, "an output"))
    ins = tuple(describe(tracer, t, "an input") for t in _as_tuple(inputs))
    seeds = None if grad_outputs is None else tuple(_seed(tracer, g) for g in _as_tuple(grad_outputs))
    wiring = []
    seen: set[int] = set()
    for t in outs:
        for node in engine.consumer_counts(t.grad_fn):  # every node the pass can reach
            if id(node) in seen:
                continue
            seen.add(id(node))
            if id(node) not in tracer.node_of:
                raise CannotRecord(f"autograd.grad goes through {node.name()}, made outside the recorded ops")
            if node.has_hooks:
                raise CannotRecord("a register_hook on an intermediate tensor is not traced")
            edges = tuple(None if n is None else _edge(tracer, n) for n in node.next_nodes)
            wiring.append((tracer.node_of[id(node)], edges, node.saved_roles))
    return GraphPassStep(tuple(described), ins, seeds, {}, wiring, [], ())


def _edge(tracer: Any, nxt: Any) -> Any:
    if isinstance(nxt, TensorBase):
        return describe(tracer, nxt, "a leaf")
    return ("node", None, tracer.node_of[id(nxt)])


def finish(tracer: Any, step: GraphPassStep, results: Any, settings: dict[str, Any]) -> GraphPassStep:
    """The step, once the pass ran: the slot of each gradient it returned."""
    slots = []
    for g in results:
        slot = None if g is None else tracer.slot_of.get(id(g.data))
        if g is not None and (slot is None or slot in tracer.program.constants):
            raise CannotRecord("autograd.grad returned a gradient no recorded op computed (a constant one)")
        slots.append(slot)
    step.results, step.settings = tuple(slots), dict(settings)
    return step


# ---------------------------------------------------------------------- the replay
class PassDiverged(RuntimeError):
    """The replayed pass applied another op than the trace's at some point (it must not)."""


class Numbering:
    """The recorder during a replayed pass: each op applied gets the trace's slot and node number."""

    def __init__(self, ops: list[GraphOp], slots: list[Any], ctxs: list[Any]) -> None:
        self.ops, self.slots, self.ctxs = ops, slots, ctxs
        self.done = 0
        self.recording = True
        self.in_op = 0

    def record_op(self, function: type, args: tuple[Any, ...]) -> Any:
        """The op applied at this point of the pass: run it, put its output and node where the trace's went."""
        if self.done >= len(self.ops) or self.ops[self.done].function is not function:
            expected = self.ops[self.done].function.__name__ if self.done < len(self.ops) else "no op"
            raise PassDiverged(
                f"minitorch.compile: the replayed create_graph pass applied {function.__name__} where the trace "
                f"applied {expected}: run this step eagerly (do not compile it)"
            )
        op = self.ops[self.done]
        self.done += 1
        self.recording, self.in_op = False, 1
        try:
            result = function.apply(*args)
        finally:
            self.recording, self.in_op = True, 0
        self.slots[op.out], self.ctxs[op.node] = data_and_node(result)
        return result

    def record_grad(self, run: Any, outputs: Any, inputs: Any, grad_outputs: Any, settings: dict[str, Any]) -> Any:
        return GO_ON  # the pass itself: it goes on, its ops numbered

    def record_pass(self, *args: Any) -> Any:
        return GO_ON

    def record_backward(self, *args: Any) -> Any:
        return GO_ON

    def record_call(self, function: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        return function(*args, **kwargs)

    def tensor_made(self, tensor: Any, from_python: bool) -> None:
        """Nothing to note: the trace proved what the pass makes."""

    def value_read(self, what: str) -> None:
        """As above."""

    def in_place(self, tensor: Any) -> None:
        """As above."""

    def grad_read(self, tensor: Any) -> None:
        """As above."""

    def grad_set(self, tensor: Any, value: Any) -> None:
        """As above."""

    def random_draw(self, what: str) -> None:
        """As above."""

    def graph_break(self, reason: str) -> None:
        """As above."""


def run_pass(step: GraphPassStep, slots: list[Any], ctxs: list[Any], args: list[Any]) -> None:
    """Replay the pass (module doc): wire the nodes, then ``autograd.grad`` with its ops numbered."""
    leaves: dict[int, TensorBase] = {}  # slot -> the leaf this replay made there

    def tensor(spec: Any) -> Any:
        kind = spec[0]
        if kind == "node":
            return TensorBase._make(slots[spec[1]], None if spec[2] is None else ctxs[spec[2]], spec[2] is not None)
        if kind == "arg":
            return args[spec[1]]
        if kind == "slot-leaf":
            if spec[1] not in leaves:
                leaves[spec[1]] = TensorBase._make(slots[spec[1]], None, True)
            return leaves[spec[1]]
        return spec[1]  # "leaf", "value"

    for node, edges, roles in step.wiring:
        nexts = tuple(None if e is None else ctxs[e[2]] if e[0] == "node" else tensor(e) for e in edges)
        connect_node(ctxs[node], nexts, roles)
    outputs = [tensor(s) for s in step.outputs]
    inputs = [tensor(s) for s in step.inputs]
    seeds = None if step.grad_outputs is None else [None if s is None else tensor(s) for s in step.grad_outputs]
    numbering = Numbering(step.ops, slots, ctxs)
    previous, SWITCHES.tracer = SWITCHES.tracer, numbering
    try:
        results = gradients.grad(outputs, inputs, seeds, **step.settings)
    finally:
        SWITCHES.tracer = previous
    if numbering.done != len(step.ops):
        raise PassDiverged(
            f"minitorch.compile: the replayed create_graph pass applied {numbering.done} ops, the trace's "
            f"{len(step.ops)}: run this step eagerly (do not compile it)"
        )
    for slot, g in zip(step.results, results):
        if slot is not None and g is not None:
            slots[slot] = g.data
