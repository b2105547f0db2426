"""An op without a replay kernel, written into the generated step as a call of the op itself.

Most of a step's ops have no kernel in ``kernels.py`` (a convolution, an LSTM layer, an
embedding, attention...). They need none to be lowered: the generated step calls their
``forward`` on a fresh ctx and later their ``backward``, exactly as the op-by-op replay
does (``program.forward_on_fresh_ctx``), while the ops around them run as written-out
kernels on buffers, the backward walk is resolved in advance and the optimizer's update is
called directly:

    v7, ctx7 = op7(v5, c6)                 # Conv2d.forward on a new ctx
    ...
    d3, _ = back7(ctx7, g7)                # Conv2d.backward: the gradient of input 0

What such an op returns is not known to be fresh: it may be a view of its input (a
reshape), which may be a buffer the next replay overwrites. So what leaves the step from
it is copied where it shares a buffer's memory (``leaves_safely``), and its gradients reach
a leaf's ``.grad`` through the engine's own ``_accumulate_leaf`` (``give_any``), which
reshapes and copies as the eager engine would.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitorch.autograd import engine
from minitorch.jit.program import OpStep, backward_of, forward_on_fresh_ctx


class OpCall:
    """``op(*arrays)`` -> (output, ctx): one op's forward on a fresh ctx, for the generated code."""

    def __init__(self, step: OpStep) -> None:
        self.step = step

    def __call__(self, *arrays: Any) -> tuple[Any, Any]:
        return forward_on_fresh_ctx(self.step, *arrays)

    def __repr__(self) -> str:
        return f"<{self.step.function.__name__}.forward>"


class GradientPatternChanged(RuntimeError):
    """An op's backward gave None where it gave a gradient on the first replay, or the reverse."""


def backward_call(name: str, wanted: tuple[bool, ...], none: tuple[int, ...]) -> Any:
    """``back(ctx, grad)``: the op's input gradients, checked against what the generated code expects.

    ``wanted[i]``: the code uses gradient ``i``; ``none``: the inputs whose gradient was None on
    the first replay (the engine skips those edges; so does the code). Should an op's
    backward change its mind, the step stops with an error instead of dropping a gradient.
    """

    def back(ctx: Any, grad: Any) -> tuple[Any, ...]:
        grads = backward_of(ctx, grad)
        given = [i < len(grads) and grads[i] is not None for i in range(len(wanted))]
        if any(w and not g for w, g in zip(wanted, given)) or any(given[i] for i in none):
            raise GradientPatternChanged(
                f"minitorch.compile: {name}.backward returned None for other inputs on this replay than on the "
                f"first one (inputs with a gradient now: {[i for i, g in enumerate(given) if g]}); the compiled "
                f"step cannot follow a backward whose None gradients change from call to call: run it eagerly"
            )
        return grads

    back.__qualname__ = f"{name}.backward"
    return back


def op_call(step: OpStep, op: Any, code: Any) -> Any:
    """The kernel-shaped writer of an op without a kernel: its forward line, and its backward writer."""
    call = code.value(OpCall(step), "op")
    ctx = f"ctx{step.node}"
    if step.needs_input_grad is None:
        code.line(f"{op.out} = {call}({', '.join(op.args)})[0]")
    else:
        code.line(f"{op.out}, {ctx} = {call}({', '.join(op.args)})")
    code.passed_through(op.out, op.args)  # it may be a view of an input buffer
    code.free_after_use(op.out, ctx)
    if step.needs_input_grad is None:
        return None
    name = step.function.__name__

    def backward(grad: str, targets: list[Any]) -> None:
        wanted = tuple(t is not None for t in targets)
        none = tuple(i for i in range(len(targets)) if (step.node, i) in code.missing)
        back = code.value(backward_call(name, wanted, none), "back")
        names = [t if t is not None else "_" for t in targets]
        code.line(f"{', '.join(names)}, = {back}({ctx}, {grad})")
        code.unproven(t for t in targets if t is not None)
        code.free_after_use(*(t for t in targets if t is not None))

    return backward


def shares_a_buffer(array: Any, buffers: frozenset[int]) -> bool:
    """Whether ``array`` is one of the step's buffers or a view of one (a view's ``base`` owns the memory)."""
    return id(array) in buffers or (getattr(array, "base", None) is not None and id(array.base) in buffers)


def leaves_safely(array: Any, buffers: frozenset[int]) -> Any:
    """``array``, copied if it lives in a buffer the next replay overwrites."""
    return array.copy() if shares_a_buffer(array, buffers) else array


def give_any(leaf: Any, g: Any, handed_out: set[int], buffers: frozenset[int]) -> None:
    """A gradient of unknown origin into a leaf: the engine's rules (shape, dtype, sums), never a buffer kept."""
    if shares_a_buffer(g, buffers):
        g = g.copy()
    if getattr(g, "shape", ()) != leaf.data.shape:
        g = np.reshape(g, leaf.data.shape)  # the trace proved only size-1 dims differ
    engine.accumulate_leaf(leaf, g, handed_out)
