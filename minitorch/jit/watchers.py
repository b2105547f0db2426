"""What a trace watches for besides the ops: everything that would make a replay wrong.

The tracer (``tracer.py``) is the ``SWITCHES.tracer`` of ``minitorch/trace_hooks.py``: the
ops, the engine, ``TensorBase`` and ``minitorch.random`` tell it what the step does. The
methods here take the tells that are not ops, backward passes or replayed calls:

- a tensor made outside an op (``tensor_made``): from Python values or shapes only (a
  constant the replay may keep), or from values (a comparison, ``argmax``, a ``.grad``),
  which no recorded op computes: used by an op later, that is a graph break;
- a value handed to Python (``item``, ``bool``, ``tolist``, printing...), an in-place change
  outside an op, ``.grad`` read in the step's own code, random numbers drawn outside an op:
  each is a **graph break**, a reason why the recording would not be the step;
- ``p.grad = None``: a Python call the replay makes again;
- random numbers drawn *inside* an op are fine (the op draws afresh on every replay), but
  noted: a GPU program that draws them is not captured into one CUDA graph (``capture.py``).

Inside a recorded op (``in_op``) or replayed call (``in_call``: an optimizer step, the
engine's backward) they pass: that whole op or call runs again on replay.
"""

from __future__ import annotations

import sys
from typing import Any

from minitorch.jit.program import CallStep
from minitorch.tensor_base import TensorBase

# Where minitorch makes a tensor outside an op from Python values or shapes only (a constant
# the replay may keep): (file inside minitorch/, function or None for any). Everything else
# made outside an op (comparisons, argmax's indices, nonzero, a .grad) depends on values.
CONSTANT_MAKERS = (
    ("factories.py", None),
    ("functions/arithmetic.py", "as_operand"),
    ("functions/arithmetic.py", "where"),
    ("functions/clamping.py", None),
    ("functions/attention.py", None),
    ("functions/rearranging.py", "repeat_interleave"),
)

VALUE_READS = {  # how the break names each way a value leaves for Python
    "__bool__": "bool(tensor)",
    "item": ".item() (or float(t), int(t), f'{t:.3f}')",
    "__index__": "using a tensor as an index",
    "__repr__": "printing a tensor",
    "__array__": "NumPy reading a tensor",
}


def _makes_constants(code: Any) -> bool:
    path = code.co_filename.replace("\\", "/")
    return any(path.endswith("minitorch/" + file) and name in (None, code.co_name) for file, name in CONSTANT_MAKERS)


def _set_grad_none(tensor: TensorBase) -> None:
    """``tensor.grad = None`` (what a replay runs for it)."""
    tensor._grad = None


class Watchers:
    """The tracer's methods for what is not an op, a backward or a replayed call (module doc)."""

    # Set by the Tracer (tracer.py), which inherits these methods.
    recording: bool
    in_op: int
    in_call: int
    slot_of: dict[int, int]
    made: dict[int, Any]
    foreign: dict[int, str]
    keep: list[Any]
    program: Any
    graph_pass: Any

    def graph_break(self, reason: str) -> None:  # (the Tracer's)
        raise NotImplementedError

    def record_step(self, step: Any) -> None:  # (the Tracer's)
        raise NotImplementedError

    def tensor_made(self, tensor: TensorBase, from_python: bool) -> None:
        """A tensor made outside an op: a constant (from Python data, a shape) or a foreign value."""
        if self.in_op:
            return
        if from_python:  # minitorch.tensor(...) and the factories: a leaf the step creates
            if not self.in_call:
                self.made[id(tensor)] = tensor
            return
        if id(tensor.data) in self.slot_of:
            return
        caller = sys._getframe(2).f_code  # 0: here, 1: TensorBase._make, 2: who made it
        # (inside a create_graph pass a "constant" may be made from a mask of the values: none is trusted)
        if _makes_constants(caller) and self.graph_pass is None:
            self.made[id(tensor)] = tensor  # a constant, but not a leaf a gradient may flow into
        else:
            where = caller.co_filename.replace("\\", "/").rsplit("minitorch/", 1)[-1]
            self.foreign[id(tensor)] = f"made by {caller.co_name} in {where}"
            self.keep.append(tensor)

    def value_read(self, what: str) -> None:
        """A value handed to Python: a replay would freeze the value of the trace."""
        if self.recording:
            self.graph_break(
                f"{VALUE_READS.get(what, f'.{what}()')} reads a value during the step: a replay would freeze "
                "the value of the trace, so this step runs eagerly"
            )

    def in_place(self, tensor: TensorBase) -> None:
        """An in-place change outside an op is not in the recording."""
        if self.recording:
            self.graph_break("an in-place change of a tensor outside an op (+=, add_, t[i] = v ...) is not traced")

    def grad_read(self, tensor: TensorBase) -> None:
        """Reading ``.grad`` in the step's own code: what it does with the array would not be recorded."""
        if self.recording:
            self.graph_break("reading .grad inside the step: what is done with it is not traced")

    def grad_set(self, tensor: TensorBase, value: Any) -> None:
        """``p.grad = None`` is a call the replay makes again; another value breaks."""
        if not self.recording:
            return
        if value is None:
            self.record_step(CallStep(_set_grad_none, tensor, (), {}, f"{type(tensor).__name__}._set_grad_none"))
        else:
            self.graph_break("assigning .grad a tensor inside the step is not traced")

    def random_draw(self, what: str) -> None:
        """Random numbers: drawn afresh by a replayed op, frozen anywhere else."""
        if self.in_op:
            self.program.random_ops.append(what)
        elif not self.in_call:
            self.graph_break(f"random numbers drawn outside an op ({what}) would be frozen by a replay")
