"""Automatic differentiation: the Function mechanism, the backward engine and its tools.

- ``Function`` (``function.py``): write an op as ``forward(ctx, ...)`` / ``backward(ctx, grad)``
  on arrays; ``apply`` records the graph.
- ``graph``: the one walk over the recorded graph (engine order, nodes, leaves).
- ``engine.py``: ``run_backward``, the walk that computes gradients.
- ``grad`` / ``backward`` (``gradients.py``): PyTorch's functional forms; ``grad`` returns
  the gradients of chosen tensors instead of adding into ``.grad``.
- ``no_grad``, ``enable_grad``, ``set_grad_enabled``: turn recording off and on.
- ``gradcheck``: analytic vs finite-difference gradients; ``gradgradcheck`` for the second.
- ``graph_mode``: ``create_graph=True``, each op's backward run on values that record a graph.
- ``functional``: ``jacobian``, ``hessian``, ``vjp``, ``jvp``, ``hvp``, ``vhp``.
- ``detect_anomaly``: name the op whose backward produced NaN/Inf.
- ``set_debug``: check every gradient's count, shape and dtype.
- ``REGISTRY``, ``override_backward`` / ``restore_backward`` (``registry.py``): the built-in
  ops by name, and plugging a learner's backward into one.
"""

from __future__ import annotations

from typing import Literal

from minitorch.autograd import functional, graph
from minitorch.autograd.anomaly import detect_anomaly, is_anomaly_enabled
from minitorch.autograd.engine import (
    add_backward_observer,
    backward_observers,
    is_debug_enabled,
    queue_callback,
    remove_backward_observer,
    set_debug,
)
from minitorch.autograd.function import BackwardNode, Function
from minitorch.autograd.grad_mode import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from minitorch.autograd.gradcheck import GradcheckError, gradcheck, gradgradcheck
from minitorch.autograd.gradients import backward, grad
from minitorch.autograd.graph_arrays import DoubleBackwardError
from minitorch.autograd.registry import REGISTRY, overridden_functions, override_backward, restore_backward


class debug_mode:
    """``with debug_mode():`` turns the shape-checking debug switch on for a block."""

    def __enter__(self) -> debug_mode:
        self.prev = is_debug_enabled()
        set_debug(True)
        return self

    def __exit__(self, *exc: object) -> Literal[False]:
        set_debug(self.prev)
        return False


__all__ = [
    "REGISTRY",
    "BackwardNode",
    "DoubleBackwardError",
    "Function",
    "GradcheckError",
    "add_backward_observer",
    "backward",
    "backward_observers",
    "debug_mode",
    "detect_anomaly",
    "enable_grad",
    "functional",
    "inference_mode",
    "grad",
    "gradcheck",
    "gradgradcheck",
    "graph",
    "is_anomaly_enabled",
    "is_debug_enabled",
    "is_grad_enabled",
    "no_grad",
    "overridden_functions",
    "queue_callback",
    "override_backward",
    "remove_backward_observer",
    "restore_backward",
    "set_debug",
    "set_grad_enabled",
]
