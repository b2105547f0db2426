"""The tracer: run a step eagerly once and write down what it did, as a ``Program``.

It watches the eager run without any hook in the engine: for the length of one call it
swaps a few methods for recording versions and puts the originals back afterwards (so
the eager path costs exactly what it always did when nothing is traced):

- ``Function.apply``: each op's class, which slot feeds each argument, its output's slot;
- ``Tensor.backward``: the engine's plan for the pass (``engine.backward_plan``);
- ``Optimizer.step``/``zero_grad``, ``LRScheduler.step``, ``Module.zero_grad``, ``t.grad = None``:
  Python calls to run again on every replay (their numbers change from step to step);
- the ways a value leaves the program for Python (``item``, ``bool``, ``float``, ``tolist``,
  ``numpy``, printing), in-place changes outside an op, random numbers drawn outside an
  op, tensors computed outside the recorded ops: each one is a **graph break**, a reason
  why the recording would not be the step (``breaks``).

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
from minitorch import random as mt_random
from minitorch.autograd import engine
from minitorch.autograd.function import Function
from minitorch.backends.base import Backend
from minitorch.jit import lowering, watchers
from minitorch.jit.errors import GraphBreakError
from minitorch.jit.program import BackwardStep, CallStep, OpStep, Program
from minitorch.tensor_base import TensorBase

PACKAGE = str(Path(__file__).resolve().parents[1])  # .../minitorch: frames inside it are not the learner's
_FACTORIES = str(Path(PACKAGE) / "factories.py")

# Python calls a replay runs again, found by name (not imported: nn imports this package for
# Module.compile(), so importing nn here would close an import cycle).
REPLAYED_METHODS = (
    ("minitorch.optim.optimizer", "Optimizer", ("step", "zero_grad")),
    ("minitorch.optim.lr_scheduler", "LRScheduler", ("step",)),
    ("minitorch.nn.module", "Module", ("zero_grad",)),
)
REPLAYED_FUNCTIONS = (("minitorch.nn.utils", ("clip_grad_norm_", "clip_grad_value_")),)
# float(t), int(t) and f"{t:.3f}" go through item(), printing through tensor_base.tensor_repr
# (patched as a module function): fewer special methods to swap, each swap costs ~10 us
VALUE_READERS = ("item", "tolist", "numpy", "__array__", "__bool__", "__index__")

ACTIVE: list[Tracer] = []  # the trace now running, if any (one at a time)


def learner_line(source: bool = True) -> tuple[str, int, str]:
    """(file, line number, source) of the innermost frame outside the minitorch package."""
    frame: Any = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(PACKAGE):
        frame = frame.f_back
    if frame is None:
        return "<unknown>", 0, ""
    file, line = frame.f_code.co_filename, frame.f_lineno
    return file, line, linecache.getline(file, line).strip() if source else ""


class Tracer:
    """Records one eager call of a step into ``self.program``; ``breaks`` lists why it can't be replayed."""

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
        self._patches: list[tuple[Any, str, Any, bool]] = []

    # ------------------------------------------------------------------ breaks
    def graph_break(self, reason: str) -> None:
        """Note that the step did something a replay can't repeat (an error under fullgraph)."""
        file, line, source = learner_line()
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

    # ------------------------------------------------------------------ recording
    def record_op(self, cls: type, args: tuple[Any, ...], apply: Any) -> Any:
        """Run ``cls.apply(*args)`` eagerly and append its OpStep."""
        arg_slots = tuple(self.slot_for(a, cls.__name__) for a in args)
        self.in_op += 1
        try:
            result = apply(cls, *args)
        finally:
            self.in_op -= 1
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
        step = OpStep(cls, arg_slots, out, number, None, tensors, xp, f"{Path(file).name}:{line}")
        if node is not None:
            step.needs_input_grad = node.needs_input_grad
            self.node_of[id(node)] = number
            self.traced_ctx[number] = node
            self.keep.append(node)
        self.program.steps.append(step)
        return result

    def record_backward(self, root: TensorBase, gradient: Any, retain_graph: bool, backward: Any) -> None:
        """Run ``root.backward()`` eagerly and append the BackwardStep of its plan."""
        plan = None
        if gradient is not None:
            self.graph_break("backward(gradient=...) is not traced (only a loss's backward())")
        elif root.grad_fn is None or id(root.grad_fn) not in self.node_of or root.data.size != 1:
            self.graph_break("backward() of a tensor the recorded ops did not compute")
        else:
            plan = self._plan(root)
        self.in_call += 1
        try:
            backward(root, gradient, retain_graph)
        finally:
            self.in_call -= 1
        if plan is not None:
            order, leaf_edges = plan
            root_node = self.node_of[id(root.grad_fn)]
            self.program.steps.append(
                BackwardStep(root_node, self.slot_of[id(root.data)], order, leaf_edges, bool(retain_graph))
            )

    def _plan(self, root: TensorBase) -> tuple[list[Any], dict[Any, int]] | None:
        """The engine's order for ``root``, with nodes as numbers and leaves as destinations."""
        assert root.grad_fn is not None  # (record_backward checked it)
        nodes, edges = engine.backward_plan(root.grad_fn)
        order = []
        for node in nodes:
            if id(node) not in self.node_of:
                self.graph_break(f"backward() goes through {node.name()}, made outside the recorded ops")
                return None
            if node._pre_hooks is not None:
                self.graph_break("a register_hook on an intermediate tensor is not traced")
                return None
            order.append((self.node_of[id(node)], tuple(self._destination(n) for n in node.next_nodes)))
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

    def record_call(self, method: Any, owner: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        """Append a Python call the replay runs again (optimizer steps, zero_grad, schedulers)."""
        label = f"{method.__name__}" if isinstance(owner, list) else f"{type(owner).__name__}.{method.__name__}"
        if any(isinstance(a, TensorBase) or callable(a) for a in (*args, *kwargs.values())):
            self.graph_break(f"{label} gets a tensor or a closure, whose values the replay would freeze")
        self.program.steps.append(CallStep(method, owner, args, dict(kwargs), label))

    # ------------------------------------------------------------------ installing the recorders
    def __enter__(self) -> Tracer:
        if ACTIVE:
            raise RuntimeError("minitorch.compile: a trace is already running")
        ACTIVE.append(self)
        try:
            self._install()
        except BaseException:
            self._uninstall()
            raise
        return self

    def __exit__(self, *exc: Any) -> None:
        self._uninstall()

    def _patch(self, owner: Any, name: str, replacement: Any) -> None:
        had_own = name in owner.__dict__
        self._patches.append((owner, name, owner.__dict__.get(name), had_own))
        setattr(owner, name, replacement)

    def _uninstall(self) -> None:
        while self._patches:
            owner, name, original, had_own = self._patches.pop()
            if had_own:
                setattr(owner, name, original)
            else:
                delattr(owner, name)
        holder = mt_random._HOLDER
        if isinstance(holder.generator, WatchedGenerator):
            holder.generator = holder.generator._real
        elif getattr(self, "_real_generator", None) is not None:
            self.breaks.append(("manual_seed inside the step replaces the generator", *learner_line()))
        if ACTIVE and ACTIVE[-1] is self:
            ACTIVE.pop()

    def _install(self) -> None:

        apply = Function.__dict__["apply"].__func__
        self._patch(Function, "apply", classmethod(watchers.traced_apply(self, apply)))
        face: Any = TensorBase._face
        self._patch(face, "backward", watchers.traced_backward(self, face.backward))
        for name in VALUE_READERS:
            self._patch(TensorBase, name, watchers.value_reader(self, name, getattr(TensorBase, name)))
        base_module = sys.modules[TensorBase.__module__]
        self._patch(base_module, "tensor_repr", watchers.value_reader(self, "__repr__", base_module.tensor_repr))
        self._patch(TensorBase, "_bump_version", watchers.version_bump(self, TensorBase._bump_version))
        self._patch(TensorBase, "_make", staticmethod(watchers.traced_make(self, TensorBase._make)))
        self._patch(TensorBase, "_from_data", staticmethod(watchers.traced_from_data(self, TensorBase._from_data)))
        self._patch(TensorBase, "grad", watchers.traced_grad_property(self, TensorBase.__dict__["grad"]))
        for module_name, class_name, methods in REPLAYED_METHODS:
            module = sys.modules.get(module_name)
            base = getattr(module, class_name, None)
            if base is None:
                continue
            for cls in (base, *_subclasses(base)):
                for name in methods:
                    if name in cls.__dict__:
                        self._patch(cls, name, watchers.replayed_call(self, cls.__dict__[name]))
        for cls in _subclasses(Backend):  # a device's own generator (CuPy's, for dropout on a GPU)
            if "uniform" in cls.__dict__:
                self._patch(cls, "uniform", watchers.random_draw(self, cls.__dict__["uniform"]))
        for module_name, names in REPLAYED_FUNCTIONS:
            module = sys.modules.get(module_name)
            for name in names:
                if module is not None and name in module.__dict__:
                    self._patch(module, name, watchers.replayed_function(self, module.__dict__[name]))
        scaler = getattr(sys.modules.get("minitorch.amp.grad_scaler"), "GradScaler", None)
        if scaler is not None:
            self._patch(scaler, "scale", watchers.breaking(self, scaler.scale, "GradScaler's scale changes"))
        holder = mt_random._HOLDER
        self._real_generator = holder.generator
        holder.generator = WatchedGenerator(holder.generator, self)  # type: ignore[assignment]

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
            if value.grad_fn is not None and not value.grad_fn._freed:
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


class WatchedGenerator:
    """The random generator during a trace: draws inside an op are fine (the op runs again on
    replay), draws outside one would be frozen into the program."""

    def __init__(self, real: np.random.Generator, tracer: Tracer) -> None:
        self._real, self._tracer = real, tracer

    def __getattr__(self, name: str) -> Any:
        tracer = self._tracer
        if tracer.in_op:
            tracer.program.random_ops.append(name)
        elif not tracer.in_call:
            tracer.graph_break(f"random numbers drawn outside an op (generator.{name}) would be frozen")
        return getattr(self._real, name)


def _xp_of(args: tuple[Any, ...]) -> Any:
    """The array library of the first tensor argument (numpy without any), as ``Function.apply`` picks it."""

    for a in args:
        if isinstance(a, TensorBase):
            return np if type(a.data) is np.ndarray else backends.of(a.data).xp
    return np


def _subclasses(cls: type) -> list[type]:
    found: list[type] = []
    stack = [cls]
    while stack:
        subs: list[type] = stack.pop().__subclasses__()
        for sub in subs:
            found.append(sub)
            stack.append(sub)
    return found
