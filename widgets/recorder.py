"""Remember the gradients that flowed through each backward node, for drawing them later.

The engine calls every observer as ``observer(node, grad_output, grad_inputs)`` after
each backward step. ``widgets`` registers one observer on import. It only keeps
*references* to the gradient arrays (no copies, no arithmetic), as an attribute of the
node itself: when the graph is dropped (the next training step reassigns ``loss``), the
record goes with it, at no cost. Norms are computed only when something is drawn.
"""

import itertools

from minitorch import autograd

_COUNTER = itertools.count()  # orders the steps of every backward, across runs
_ENABLED = [True]
_ATTR = "_widgets_record"  # (sequence number, grad_output, grad_inputs) on each node


def _observe(node, grad_output, grad_inputs):
    if _ENABLED[0]:
        node.__dict__[_ATTR] = (next(_COUNTER), grad_output, grad_inputs)


def install():
    """Register the observer with the engine (idempotent)."""
    autograd.remove_backward_observer(_observe)
    autograd.add_backward_observer(_observe)


def set_recording(enabled=True):
    """Turn gradient recording on or off (on once ``widgets`` is imported); returns the old setting."""
    previous = _ENABLED[0]
    _ENABLED[0] = bool(enabled)
    return previous


def record_of(node):
    """``(seq, grad_output, grad_inputs)`` from the last backward through ``node``, or None."""
    return getattr(node, "__dict__", {}).get(_ATTR)
