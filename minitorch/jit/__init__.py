"""``minitorch.compile``: trace a training step once, replay it fast (opt-in, as ``torch.compile``).

The eager engine stays what the lessons build. This package sits beside it: its tracer
watches one eager call of a step (``tracer.py``, ``watchers.py``) and writes down a
``Program`` (``program.py``): each op's forward, the backward pass in the engine's order,
the optimizer's update. Later calls with the same signature (``guards.py``) replay that
program on the new input arrays: the same NumPy calls in the same order, so the same bits,
without Tensors, graph building or checks. Where every op has a replay kernel
(``kernels.py``), the program is lowered (``lowering.py``): written out as one generated
function of those NumPy calls on buffers allocated once, the optimizer's flat update called
directly (``optimizer_kernels.py``). On a GPU the replay is captured into one CUDA graph
(``capture.py``). ``explain(fn)`` says what was traced (``explain.py``).
"""

from minitorch.jit.compiled import CompiledFunction, compile
from minitorch.jit.errors import GraphBreakError, GraphBreakWarning
from minitorch.jit.explain import Explanation, explain

__all__ = ["CompiledFunction", "Explanation", "GraphBreakError", "GraphBreakWarning", "compile", "explain"]
