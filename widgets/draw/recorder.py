"""Remember the gradients that flowed through each backward node, for drawing them later.

The engine calls every observer as ``observer(node, grad_output, grad_inputs)`` after
each backward step. Importing ``widgets`` registers nothing: the recorder starts the first
time a widget that draws gradients is opened (``draw_graph``, ``BackwardStepper``) or when
``widgets.record_gradients()`` is called, so a training loop that never opened one pays
nothing. From then on every backward is recorded. The recorder only keeps
*references* to the gradient arrays (no copies, no arithmetic), as an attribute of the
node itself: when the graph is dropped (the next training step reassigns ``loss``), the
record goes with it. Norms are computed only when something is drawn.

A graph that is kept alive (``losses.append(loss)`` instead of ``loss.item()``) would keep
its gradients too, so the records are capped: past ``MAX_BYTES`` of recorded gradients
(or ``MAX_RECORDS`` nodes), the oldest records are dropped (those graphs then draw without gradient norms).
"""

import collections
import itertools
import weakref
from typing import Any

from minitorch import autograd
from minitorch.hints import Array, Gradients

MAX_BYTES = 256 * 2**20
MAX_RECORDS = 50_000  # also bounds the bookkeeping itself (about 150 bytes a record)
_ATTR = "_widgets_record"  # (sequence number, grad_output, grad_inputs) on each node


class RecorderState:
    """What the recorder keeps between backward steps, for the whole process."""

    def __init__(self) -> None:
        # Orders the steps of every backward, across runs. Never restarted, not even by
        # reset(): a record made later must always sort after one made earlier.
        self.counter = itertools.count()
        self.reset()

    def reset(self) -> None:
        """Recording on and the cap's bookkeeping emptied (records already on nodes stay there)."""
        self.enabled = True
        # (weak reference to a recorded node, bytes it holds), oldest first
        self.recent: collections.deque[tuple[weakref.ref[Any], int]] = collections.deque()
        self.held_bytes = 0  # bytes of gradients referenced by the records in ``recent``


STATE = RecorderState()


def _observe(node: Any, grad_output: Array, grad_inputs: Gradients) -> None:
    if not STATE.enabled:
        return
    node.__dict__[_ATTR] = (next(STATE.counter), grad_output, grad_inputs)
    size = getattr(grad_output, "nbytes", 0)
    for g in grad_inputs:
        if g is not None:
            size += getattr(g, "nbytes", 0)
    STATE.recent.append((weakref.ref(node), size))
    STATE.held_bytes += size
    while (STATE.held_bytes > MAX_BYTES or len(STATE.recent) > MAX_RECORDS) and len(STATE.recent) > 1:
        ref, old_size = STATE.recent.popleft()
        STATE.held_bytes -= old_size
        old = ref()
        if old is not None:  # still alive: someone kept its graph; let go of its gradients
            old.__dict__.pop(_ATTR, None)


def is_installed() -> bool:
    """True when the engine calls the recorder after each backward step."""
    return _observe in autograd.backward_observers()


def install() -> bool:
    """Register the observer with the engine, once; True when this call registered it."""
    if is_installed():
        return False
    autograd.add_backward_observer(_observe)
    return True


def record_gradients() -> None:
    """Record the gradients of every backward from now on, for ``draw_graph`` and ``BackwardStepper``.

    Those two start recording themselves when first opened; call this before a backward you
    want to draw when no widget has been opened yet.
    """
    install()


def set_recording(enabled: bool = True) -> bool:
    """Pause (False) or resume (True) recording once installed; returns the old setting."""
    previous = STATE.enabled
    STATE.enabled = bool(enabled)
    return previous


def record_of(node: Any) -> tuple[int, Array, Gradients] | None:
    """``(seq, grad_output, grad_inputs)`` from the last backward through ``node``, or None."""
    return getattr(node, "__dict__", {}).get(_ATTR)
