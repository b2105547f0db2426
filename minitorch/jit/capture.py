"""On a GPU, the replayed program is what ``cuda.graphs.capture_step`` captures: one launch per step.

A replay still runs Python per op (op by op: one call per forward and backward; lowered,
on the CPU: one line per NumPy call, ``lowering.py``). On a GPU each of those calls is a
kernel launch, and the launches decide a small model's speed. So the second call of a compiled GPU step captures
the replay into a CUDA graph (``capture_step``), and every later call copies its inputs
into the captured input arrays and launches the graph once.

A graph replays the kernels with the arguments of the capture, Python numbers included,
and no Python runs. That rules out programs whose numbers change per step:

- an optimizer other than SGD (Adam's bias correction uses its step count; RMSprop,
  Adagrad... keep Python state) and any learning-rate scheduler (it changes ``lr``);
- random ops (the generator's position would be captured with the kernels);
- a backward that adds into gradients kept from the step before (no zero_grad in the
  step: the graph would add into the arrays of the capture).

Such a program is replayed without capture, and ``explain`` says why (``capture_refused``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitorch.cuda.graphs import capture_step
from minitorch.jit.graph_pass import GraphPassStep
from minitorch.jit.program import BackwardStep, CallStep, Program
from minitorch.tensor_base import TensorBase

CAPTURE_SAFE_CALLS = ("SGD.step", "SGD.zero_grad", "Tensor.grad = None")


def _label(step: CallStep) -> str:
    if step.method.__name__ == "_set_grad_none":
        return "Tensor.grad = None"
    return step.label


def why_not_capture(program: Program) -> str | None:
    """None if the program can be captured into one CUDA graph, else the reason."""
    if program.random_ops:
        return "it draws random numbers (dropout): a graph would replay the same ones"
    if any(type(step) is GraphPassStep for step in program.steps):
        return "its autograd.grad(create_graph=True) runs eagerly inside the replay"
    zeroed = False
    for step in program.steps:
        if type(step) is CallStep:
            label = _label(step)
            if label not in CAPTURE_SAFE_CALLS and not label.endswith(".zero_grad"):
                return f"{label} keeps Python numbers that change every step (capture would freeze them)"
            if label.endswith("zero_grad") and step.kwargs.get("set_to_none", True) is False:
                return "zero_grad(set_to_none=False) writes into the gradients of the capture"
            zeroed = True
        elif type(step) is BackwardStep and not zeroed:
            return "backward() adds into gradients from before the step (call zero_grad() in the step)"
    return None


def maybe_capture(compiled: Any, program: Program, flat: list[Any]) -> GraphedProgram | None:
    """A GraphedProgram for a GPU program that allows capture (and ``capture`` not False), else None."""
    on_gpu = [k for k in program.input_tensors if type(flat[k].data) is not np.ndarray]
    if compiled.capture is False or not on_gpu:
        program.capture_refused = None if not on_gpu else "capture=False"
        return None
    reason = why_not_capture(program)
    program.capture_refused = reason
    if reason is not None:
        return None
    return GraphedProgram(program, flat)


class GraphedProgram:
    """A program replayed through one CUDA graph: captured at its first call, launched after."""

    def __init__(self, program: Program, flat: list[Any]) -> None:
        self.program = program
        # The captured input arrays: each call copies its inputs into these.
        self.static = [
            TensorBase._make(a.data.copy(), None, a.requires_grad) if isinstance(a, TensorBase) else a for a in flat
        ]
        self.step: Any = None  # the CapturedStep, after the first call
        self.launches = 0
        self.captures = 0
        # The optimizers' settings (lr, momentum...) are numbers inside the captured kernels:
        # a change (opt.param_groups[0]["lr"] = ...) must capture again, not replay the old one.
        owners = {
            id(s.owner): s.owner for s in program.steps if type(s) is CallStep and hasattr(s.owner, "param_groups")
        }
        self.optimizers = list(owners.values())
        self.settings = self._settings()

    def _settings(self) -> tuple[Any, ...]:
        return tuple(
            (k, v) for opt in self.optimizers for group in opt.param_groups for k, v in group.items() if k != "params"
        )

    def __call__(self, flat: list[Any]) -> Any:
        for k in self.program.input_tensors:
            self.static[k].data[...] = flat[k].data  # into the addresses the graph reads
        settings = self._settings()
        if settings != self.settings:
            self.step, self.settings = None, settings
        if self.step is None:

            # The trace already ran the step once (kernels compiled, optimizer state made),
            # so no warm-up: a warm-up step would be a training step too many.
            self.step = capture_step(lambda: self.program.run(self.static), warmup=0)
            self.captures += 1
        self.launches += 1
        return self.step()
