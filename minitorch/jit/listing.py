"""A recorded program as a flat list of kernels: what each one reads and writes, in order.

``kernels(program)`` is what ``widgets.draw_graph`` draws for a compiled step and what a
lesson prints: one row per forward, per backward (in the engine's order) and per Python
call replayed. Buffers are named by slot: ``s3`` is the array in slot 3 (an op's output,
an input, a parameter), ``d s3`` the gradient flowing back into it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from minitorch.jit.graph_pass import GraphPassStep
from minitorch.jit.program import BackwardStep, CallStep, OpStep, Program


@dataclass
class Kernel:
    """One row of the listing."""

    index: int
    kind: str  # "forward", "backward" or "call"
    name: str  # "Linear.forward", "ReLU.backward", "Adam.step"
    reads: tuple[str, ...]
    writes: tuple[str, ...]
    line: str = ""  # the learner's line that called the op (forward rows)


def slot_kind(program: Program, slot: int) -> str:
    """ "input", "constant" (a parameter, a buffer, a setting) or "output" (an op's result)."""
    if slot in program.inputs:
        return "input"
    return "constant" if slot in program.constants else "output"


def _arrays(program: Program, slots: tuple[int, ...]) -> tuple[str, ...]:
    # settings (an axis, a shape, a float) are constants without an array: left out of the picture
    return tuple(f"s{s}" for s in slots if s not in program.constants or hasattr(program.constants[s], "shape"))


def kernels(program: Program) -> list[Kernel]:
    """The program's steps as kernels, in the order a replay runs them."""
    rows: list[Kernel] = []
    out_of_node = {s.node: s.out for s in program.steps if type(s) is OpStep}
    function_of = {s.node: s.function for s in program.steps if type(s) is OpStep}
    for step in program.steps:
        if type(step) is GraphPassStep:  # its ops: computed by the pass, backpropagated through later
            out_of_node.update((op.node, op.out) for op in step.ops)
            function_of.update((op.node, op.function) for op in step.ops)
        if type(step) is OpStep:
            name = f"{step.function.__name__}.forward"
            rows.append(Kernel(len(rows), "forward", name, _arrays(program, step.args), (f"s{step.out}",), step.line))
        elif type(step) is BackwardStep:
            for node, destinations in step.order:
                function = function_of[node]
                writes = tuple(_gradient_name(program, where, out_of_node) for where in destinations if where)
                rows.append(
                    Kernel(len(rows), "backward", f"{function.__name__}.backward", (f"d s{out_of_node[node]}",), writes)
                )
        elif type(step) is CallStep:
            label = "p.grad = None" if step.method.__name__ == "_set_grad_none" else step.label
            rows.append(Kernel(len(rows), "call", label, (), ()))
        elif type(step) is GraphPassStep:
            reads = tuple(f"s{spec[1]}" for spec in step.outputs)
            writes = tuple(f"s{slot}" for slot in step.results if slot is not None)
            rows.append(Kernel(len(rows), "call", step.label, reads, writes))
    return rows


def _gradient_name(program: Program, where: Any, out_of_node: dict[int, int]) -> str:
    kind, target = where
    if kind == "node":
        return f"d s{out_of_node[target]}"
    if kind == "arg":
        return f"d s{program.inputs[program.input_tensors.index(target)]}"
    for slot, value in program.constants.items():
        if value is target.data:
            return f"d s{slot} (.grad)"
    return "d leaf (.grad)"


def listing(program: Program) -> str:
    """The kernels as text, one per line: ``3 backward ReLU.backward  d s4 -> d s2``."""
    lines = []
    for k in kernels(program):
        flow = f"{', '.join(k.reads)} -> {', '.join(k.writes)}" if k.reads or k.writes else "(Python, run again)"
        lines.append(f"{k.index:3d} {k.kind:8s} {k.name:28s} {flow}")
    return "\n".join(lines)
