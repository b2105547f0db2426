"""A recorded step: the flat list of what the eager run did, and the loop that replays it.

The tracer (``tracer.py``) fills a ``Program`` while the eager step runs; ``Program.run``
then does the same work again on new input arrays, without Tensors, graph building or
checks. Every array lives in a numbered *slot*: the step's inputs, the constants the
trace met (parameters, settings such as an axis), and each op's output. A step is one of

- ``OpStep``: call ``Function.forward(ctx, *slots)`` of one op, its output into a slot;
- ``BackwardStep``: the engine's walk over the recorded nodes, each op's ``backward`` in
  the order the trace's ``backward()`` ran them, gradients summed in the same order;
- ``CallStep``: a Python call to run again as it is (``optimizer.step()``,
  ``zero_grad()``, ``scheduler.step()``, ``p.grad = None``): its numbers are inputs of the
  program (the learning rate, Adam's step count), so it must run every time;
- ``GraphPassStep``: ``autograd.grad(..., create_graph=True)``, run again eagerly with its
  ops put where the trace's went (``graph_pass.py``).

Bit-identical to the eager step by construction: the very same ``forward``/``backward``
functions and optimizer code run in the very same order on arrays of the same dtypes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from minitorch.autograd import engine
from minitorch.autograd.function import fast_kernel, new_node
from minitorch.jit.graph_pass import GraphPassStep, run_pass
from minitorch.tensor_base import TensorBase


@dataclass
class OpStep:
    """One op's forward: ``slots[out] = function.forward(ctx, *slots[args])``."""

    function: Any  # the Function subclass
    args: tuple[int, ...]  # a slot per argument of forward
    out: int  # the slot of the output array
    node: int  # where its ctx goes in the run's list of contexts
    needs_input_grad: tuple[bool, ...] | None  # None: the eager op kept no backward node
    is_tensor_input: tuple[bool, ...]
    xp: Any  # the array library the eager ctx had (numpy or cupy)
    line: str = ""  # the learner's line that called the op (for explain and the drawing)


@dataclass
class BackwardStep:
    """``root.backward()``: the nodes in the eager engine's order and where each gradient goes.

    ``order[k] = (node, destinations)``; a destination is ``("node", n)``, ``("leaf", tensor)``,
    ``("arg", i)`` (a leaf that is input ``i`` of the step) or None (no gradient).
    ``leaf_edges`` counts the edges into each leaf, as ``engine.backward_plan`` does.
    """

    root: int  # the node of the root
    root_slot: int  # the slot of the root's value (d root / d root = ones like it)
    order: list[tuple[int, tuple[Any, ...]]]
    leaf_edges: dict[Any, int]
    retain_graph: bool


@dataclass
class CallStep:
    """``method(owner, *args, **kwargs)``, run again on every replay."""

    method: Any
    owner: Any
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    label: str  # e.g. "Adam.step"


@dataclass
class Program:
    """What one trace recorded: slots, steps, outputs, and what it assumed."""

    constants: dict[int, Any] = field(default_factory=dict)  # slot -> value fixed by the trace
    inputs: list[int] = field(default_factory=list)  # slot of each tensor input, in order
    input_tensors: list[int] = field(default_factory=list)  # which flattened argument each input is
    steps: list[Any] = field(default_factory=list)
    n_slots: int = 0
    n_nodes: int = 0
    output: Any = None  # the output's structure: ("slot", i) / ("arg", k) / ("value", v) / tuples
    live: list[tuple[TensorBase, Any]] = field(default_factory=list)  # (tensor, its array): guarded
    random_ops: list[str] = field(default_factory=list)  # ops that drew random numbers
    capture_refused: str | None = None  # on a GPU: why the replay is not one CUDA graph
    lowered: Any = None  # the step written out as NumPy calls on buffers (lowering.Lowered), if it could be
    lowering_refused: str | None = None  # else why it replays op by op
    to_lower: Any = None  # what the trace saw, for the lowering at the first replay (then None)

    def new_slot(self) -> int:
        """A fresh slot number."""
        self.n_slots += 1
        return self.n_slots - 1

    def prepare(self) -> None:
        """Freeze the slot template: constants in place, every other slot empty."""
        template: list[Any] = [None] * self.n_slots
        for slot, value in self.constants.items():
            template[slot] = value
        self.template = template

    def live_arrays_unchanged(self) -> bool:
        """The guard on state: every tensor the program reads directly still holds the same array."""
        for tensor, array in self.live:
            if tensor.data is not array:
                return False
        return True

    def run(
        self, args: list[Any], missing: set[tuple[int, int]] | None = None, kernels: dict[int, Any] | None = None
    ) -> Any:
        """Replay the program on the flattened arguments ``args`` of this call; return its output.

        ``missing``, if given, collects (node, input) for each gradient an op's backward gave
        as None where the graph has an edge (the lowering must know: the engine skips those);
        ``kernels`` the fast kernel each op ran (by node number; None: the op as written), which
        the lowering writes out (``jit/kernels.py``).
        """
        slots = self.template.copy()
        for slot, k in zip(self.inputs, self.input_tensors):
            slots[slot] = args[k].data
        ctxs: list[Any] = [None] * self.n_nodes
        for step in self.steps:
            if type(step) is OpStep:
                _run_op(step, slots, ctxs, kernels)
            elif type(step) is BackwardStep:
                _run_backward(step, slots, ctxs, args, missing)
            elif type(step) is GraphPassStep:
                run_pass(step, slots, ctxs, args)
            else:
                step.method(step.owner, *step.args, **step.kwargs)
        return _outputs(self.output, slots, args)


def _run_op(step: OpStep, slots: list[Any], ctxs: list[Any], kernels: dict[int, Any] | None) -> None:
    """One forward of the op-by-op replay: its output into its slot, its ctx into the list."""
    out, ctx = forward_on_fresh_ctx(step, *[slots[i] for i in step.args], chosen=kernels)
    if ctx is not None:
        ctxs[step.node] = ctx
    slots[step.out] = out


def forward_on_fresh_ctx(step: OpStep, *arrays: Any, chosen: dict[int, Any] | None = None) -> tuple[Any, Any]:
    """``function.forward`` on a new ctx, as ``Function.apply`` runs it, minus the unwrapping,
    checks and wrapping: (the output array, the ctx its backward needs, or None without a node).
    ``chosen``, if given, gets the fast kernel that ran (or None) under the op's node number."""
    function = step.function
    ctx = new_node(function, step.xp)
    # the fast kernel eager would take for these arguments (the same calls: the same bits)
    kernel = fast_kernel(function, "cpu" if step.xp is np else "cuda", arrays) if function._kernels else None
    if chosen is not None:
        chosen[step.node] = kernel
    forward = function.forward if kernel is None or kernel.forward is None else kernel.forward
    out = forward(ctx, *arrays)
    if type(out) is not step.xp.ndarray:  # a NumPy scalar from a reduction, as apply converts it
        out = np.asarray(out) if isinstance(out, np.generic) else step.xp.asarray(out)
    if step.needs_input_grad is None:
        return out, None
    ctx.fast_kernel = kernel if kernel is not None and kernel.backward is not None else None
    ctx.needs_input_grad = step.needs_input_grad
    ctx.is_tensor_input = step.is_tensor_input
    ctx.next_nodes = (None,) * len(step.is_tensor_input)  # some backwards read its length
    ctx.out_shape = out.shape
    ctx.out_dtype = out.dtype
    ctx.created_at = None
    return out, ctx


def backward_of(ctx: Any, grad_output: Any) -> tuple[Any, ...]:
    """The op's backward (or its fast kernel's, as the engine picks), its result always a tuple."""
    op = ctx.function if ctx.fast_kernel is None else ctx.fast_kernel
    grad_inputs = op.backward(ctx, grad_output)
    if type(grad_inputs) is not tuple:
        grad_inputs = tuple(grad_inputs) if isinstance(grad_inputs, list) else (grad_inputs,)
    return grad_inputs


def _run_backward(
    step: BackwardStep, slots: list[Any], ctxs: list[Any], args: list[Any], missing: set[tuple[int, int]] | None
) -> None:
    """``engine.run_backward``'s loop over the recorded order, without planning or checks."""
    root = slots[step.root_slot]
    grads: dict[Any, Any] = {step.root: ctxs[step.root].xp.ones(root.shape, dtype=root.dtype)}
    leaf_edges = dict(step.leaf_edges)
    handed_out: set[int] = set()
    for node, destinations in step.order:
        grad_output = grads.pop(node, None)
        if grad_output is None:
            continue
        ctx = ctxs[node]
        grad_inputs = backward_of(ctx, grad_output)
        if not step.retain_graph:
            ctx.release_saved()
        if missing is not None:
            missing.update((node, i) for i, where in enumerate(destinations) if where is not None and
                           (i >= len(grad_inputs) or grad_inputs[i] is None))  # fmt: skip
        for where, g in zip(destinations, grad_inputs):
            if where is None or g is None:
                continue
            kind, target = where
            if kind == "node":
                previous = grads.get(target)
                grads[target] = g if previous is None else previous + g
                continue
            leaf = args[target] if kind == "arg" else target
            key = where if kind == "arg" else target  # a leaf tensor is its own key, as in the engine
            if getattr(g, "shape", ()) != leaf.data.shape:
                g = g.reshape(leaf.data.shape)  # the trace proved only size-1 dims differ
            previous = grads.pop(key, None)
            total = g if previous is None else previous + g
            leaf_edges[key] -= 1
            if leaf_edges[key]:
                grads[key] = total
            else:
                engine.accumulate_leaf(leaf, total, handed_out)
    for key, total in list(grads.items()):  # leaves whose last edge got no gradient
        if type(key) is tuple:
            engine.accumulate_leaf(args[key[1]], total, handed_out)
        elif isinstance(key, TensorBase):
            engine.accumulate_leaf(key, total, handed_out)


def _outputs(spec: Any, slots: list[Any], args: list[Any]) -> Any:
    """The step's return value rebuilt: Tensors around the replay's arrays."""
    kind = spec[0]
    if kind == "slot":
        return TensorBase._make(slots[spec[1]], None, False)
    if kind == "arg":
        return args[spec[1]]
    if kind == "value":
        return spec[1]
    if kind == "tuple":
        return tuple(_outputs(s, slots, args) for s in spec[1])
    if kind == "list":
        return [_outputs(s, slots, args) for s in spec[1]]
    return {k: _outputs(s, slots, args) for k, s in spec[1]}  # "dict"
