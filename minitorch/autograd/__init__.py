"""Automatic differentiation: the Function mechanism, the backward engine and its tools.

- ``Function``: write an op as ``forward(ctx, ...)`` / ``backward(ctx, grad)`` on arrays.
- ``backward`` (``engine.py``): reverse topological walk of the recorded graph.
- ``no_grad``, ``enable_grad``, ``set_grad_enabled``: turn recording off and on.
- ``gradcheck``: analytic vs finite-difference gradients.
- ``detect_anomaly``: name the op whose backward produced NaN/Inf.
- ``set_debug``: check every gradient's count, shape and dtype.
- ``override_backward`` / ``restore_backward``: plug a learner's backward into a built-in op.
"""

from minitorch.autograd.anomaly import detect_anomaly, is_anomaly_enabled
from minitorch.autograd.engine import (
    add_backward_observer,
    is_debug_enabled,
    remove_backward_observer,
    set_debug,
    topological_order,
)
from minitorch.autograd.function import (
    REGISTRY,
    BackwardNode,
    Function,
    override_backward,
    restore_backward,
)
from minitorch.autograd.grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from minitorch.autograd.gradcheck import GradcheckError, gradcheck


class debug_mode:
    """``with debug_mode():`` turns the shape-checking debug switch on for a block."""

    def __enter__(self):
        self.prev = is_debug_enabled()
        set_debug(True)
        return self

    def __exit__(self, *exc):
        set_debug(self.prev)
        return False


__all__ = [
    "REGISTRY",
    "BackwardNode",
    "Function",
    "GradcheckError",
    "add_backward_observer",
    "debug_mode",
    "detect_anomaly",
    "enable_grad",
    "gradcheck",
    "is_anomaly_enabled",
    "is_debug_enabled",
    "is_grad_enabled",
    "no_grad",
    "override_backward",
    "remove_backward_observer",
    "restore_backward",
    "set_debug",
    "set_grad_enabled",
    "topological_order",
]
