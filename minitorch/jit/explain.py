"""``minitorch.explain(fn)``: what a compiled step traced, what it assumed, why it runs eagerly.

    step = minitorch.compile(train_step)
    step(x, y); step(x, y)
    print(minitorch.explain(step))

For each signature traced so far: the program (ops forward, backward steps, Python calls
replayed), its guards, how many replays ran, and the graph breaks that keep it eager,
each with the learner's line, as ``torch._dynamo.explain`` lists its break reasons.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from minitorch.jit import guards
from minitorch.jit.compiled import CompiledFunction
from minitorch.jit.graph_pass import GraphPassStep
from minitorch.jit.program import BackwardStep, CallStep, OpStep, Program


@dataclass
class Explanation:
    """The answer of ``explain``: ``graph_count``, ``graph_break_count``, ``break_reasons`` and the text."""

    graph_count: int  # signatures with a program to replay
    graph_break_count: int
    break_reasons: list[str]
    text: str
    sources: list[str] = field(default_factory=list)  # the generated code of each lowered program

    def __str__(self) -> str:
        return self.text

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:  # IPython shows the text
        printer.text(self.text)


def describe_program(program: Program) -> list[str]:
    """The program in words: one summary line, then the ops in order."""
    ops = [s for s in program.steps if type(s) is OpStep]
    backward = [s for s in program.steps if type(s) is BackwardStep]
    calls = [s for s in program.steps if type(s) is CallStep]
    passes = [s for s in program.steps if type(s) is GraphPassStep]
    kernels = sum(len(b.order) for b in backward)
    lines = [
        f"{len(ops)} op forwards, {len(backward)} backward pass(es) ({kernels} op backwards), "
        f"{len(calls)} Python call(s) replayed; {program.n_slots} slots ({len(program.constants)} constants, "
        f"{len(program.inputs)} inputs); {len(program.live)} tensors read directly (guarded by identity)"
    ]
    counts = Counter(s.function.__name__ for s in ops)
    lines.append("ops: " + ", ".join(f"{name} x{n}" if n > 1 else name for name, n in counts.items()))
    if calls:
        lines.append("calls replayed: " + ", ".join(dict.fromkeys(c.label for c in calls)))
    for p in passes:
        lines.append(
            f"{p.label}: run eagerly inside each replay ({len(p.ops)} ops of the gradient's graph, "
            "numbered as the trace's)"
        )
    if program.random_ops:
        lines.append(f"random numbers drawn inside ops ({len(program.random_ops)} draws): fresh on every replay")
    if program.lowered is not None:
        lowered = program.lowered
        lines.append(
            f"replayed as generated code: {lowered.kernels} ops written out as NumPy calls on "
            f"{lowered.buffers} buffers allocated once (explain(fn).sources holds it)"
        )
        if lowered.called:
            listed = "; ".join(f"{what} x{n}" if n > 1 else what for what, n in Counter(lowered.called).items())
            lines.append(f"ops whose own forward and backward that code calls: {listed}")
    elif program.lowering_refused:
        lines.append(f"replayed op by op (each op's forward and backward), because {program.lowering_refused}")
    if program.capture_refused:
        lines.append(f"GPU: replayed op by op, not as one CUDA graph, because {program.capture_refused}")
    return lines


def explain(fn: Any) -> Explanation:
    """What ``fn`` (a ``minitorch.compile``d function or module) has traced so far."""
    compiled = fn
    if not isinstance(compiled, CompiledFunction):
        compiled = getattr(fn, "_compiled_forward", None)
    if not isinstance(compiled, CompiledFunction):
        raise TypeError(
            f"explain(): {getattr(fn, '__name__', type(fn).__name__)} is not compiled; wrap it first, "
            "step = minitorch.compile(step), and call it once"
        )
    lines = [f"compiled {compiled.__name__}: {len(compiled.entries)} signature(s) traced, {compiled.traces} trace(s)"]
    reasons: list[str] = []
    sources: list[str] = []
    graphs = 0
    for i, entry in enumerate(compiled.entries.values()):
        lines.append(f"\nsignature {i}:")
        lines += ["  guard: " + g for g in guards.explain_key(entry.key)]
        if entry.program is not None:
            graphs += 1
            lines += ["  " + line for line in describe_program(entry.program)]
            if entry.program.lowered is not None:
                sources.append(entry.program.lowered.source)
            lines.append(f"  replayed {entry.replays} time(s)")
        else:
            lines.append(f"  runs eagerly ({len(entry.breaks)} graph break(s)):")
        for reason, file, line, source in entry.breaks:
            where = f" at {file}:{line}: {source}" if line else ""
            lines.append(f"  - {reason}{where}")
            reasons.append(reason)
    for reason in compiled.eager_reasons:
        lines.append(f"\nruns eagerly: {reason}")
        reasons.append(reason)
    if not compiled.entries:
        lines.append("nothing traced yet: call it once")
    return Explanation(graphs, len(reasons), reasons, "\n".join(lines), sources)
