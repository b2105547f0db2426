"""Lesson 04's checkers: is a topological order valid, and which part of the walk a wrong ``.grad`` points to.

    check_function("topological sort", topological_sort, engine_order, cases, compare=valid_order)
    check_function("backward pass", walk_runs(run_yours), walk_runs(run_engine), cases, compare=walk_hint)

``valid_order`` accepts any order the engine could run (not only the engine's own): the same
nodes, each once, every node after all of its consumers.

``walk_runs`` keeps each leaf's ``.grad`` from before the pass, so the hint can tell a
replaced old gradient from a path's gradient that was overwritten or never arrived.
"""

from collections.abc import Callable
from typing import Any

import numpy as np

from minitorch.tensor import Tensor
from widgets.check.function_checker import same
from widgets.check.outcome import Outcome
from widgets.i18n import _


def valid_order(got: Any, expected: list[Any]) -> tuple[bool, str]:
    """``compare`` for the sort: (ok, hint) for the learner's order ``got`` against the engine's ``expected``."""
    if not isinstance(got, (list, tuple)):
        return False, _("return a list of nodes, got {kind}", kind=type(got).__name__)
    if any(isinstance(n, Tensor) or n is None for n in got):
        return False, _("only backward nodes belong in the order: skip leaf tensors and None")
    if len(set(got)) != len(got):
        return False, _("some node appears more than once: a node with several consumers goes in once, when the "
                        "last of them is done (count each node's consumers first)")
    if set(got) != set(expected):
        return False, _("{got} nodes, but the graph has {expected}", got=len(got), expected=len(expected))
    position = {node: i for i, node in enumerate(got)}
    for node in got:
        for nxt in node.next_nodes:
            if nxt in position and position[nxt] < position[node]:
                return False, _("{node} comes before its consumer {consumer}", node=nxt.name(), consumer=node.name())
    return True, ""


def walk_runs(run: Callable[[Any, list[Any]], list[Any]]) -> Callable[[Any, list[Any]], Outcome]:
    """``run(loss, leaves)`` -> ``Outcome`` whose args are the leaves' ``.grad`` arrays before the pass."""
    def wrapped(loss: Any, leaves: list[Any]) -> Outcome:
        before = [None if t.grad is None else np.array(t.grad.data) for t in leaves]
        return Outcome((before,), run(loss, leaves))
    return wrapped


def walk_hint(got: Outcome, expected: Outcome) -> tuple[bool, str]:
    """``compare``: a leaf without a gradient, an old ``.grad`` replaced, or paths not added up."""
    ok, hint = same(got.value, expected.value)
    if ok or not isinstance(got.value, list) or len(got.value) != len(expected.value):
        return ok, hint
    (before,) = expected.args
    for i, (g, e, old) in enumerate(zip(got.value, expected.value, before)):
        if g is None and e is not None:
            return False, _("leaf {i} got no gradient (.grad is None): the walk never reached it; go through the "
                            "nodes in the sorted order, root first, seeded with a gradient of ones", i=i)
        if g is None or e is None or same(g, e)[0]:
            continue
        g, e = np.asarray(g, dtype=float), np.asarray(e, dtype=float)
        if old is not None and g.shape == e.shape and np.allclose(g, e - old):
            return False, _("leaf {i} had a .grad from before, and it was replaced: add the new gradient to it "
                            "(leaf.grad + g), as backward() accumulates", i=i)
        if old is not None and g.shape == e.shape and np.allclose(g, e + old):
            return False, _("leaf {i}'s old .grad was added twice: add it once, to the sum of this pass's gradients",
                            i=i)
        return False, _("leaf {i}'s gradient differs ({difference}): where an output feeds several consumers, "
                        "their gradients must be added (grads[nxt] + g), never overwritten", i=i,
                        difference=same(g, e)[1])
    return False, hint
