"""Walking the recorded graph: the one walk the engine, ``draw_graph`` and the stepper share.

The graph is made of ``BackwardNode``s. ``node.next_nodes[i]`` says where the gradient
for input ``i`` of the node's op goes: another node, a leaf Tensor (its gradient ends in
``.grad``), or None (no gradient needed). Every walk here is iterative, so a chain of
100,000 ops is fine, and deterministic: it follows ``next_nodes`` in order.

- ``consumer_counts(root)``: every reachable node with the number of edges into it, and
  ``backward_plan(root)``: the engine's order and leaf counts (both in ``engine.py``, whose
  loop they feed; here for the drawer and the stepper).
- ``backward_order(root)``: the nodes in the order the engine runs their backward.
- ``nodes(root)`` / ``leaves(root)``: reachable nodes and leaf tensors, breadth-first.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING

from minitorch.autograd.engine import backward_plan, consumer_counts
from minitorch.tensor_base import TensorBase

if TYPE_CHECKING:
    from minitorch.autograd.function import BackwardNode


def backward_order(root: BackwardNode) -> list[BackwardNode]:
    """The nodes reachable from ``root`` in the order the engine calls their backward."""
    return backward_plan(root)[0]


def nodes(root: BackwardNode) -> list[BackwardNode]:
    """Every node reachable from ``root``, breadth-first (nearest the output first)."""
    found = [root]
    seen = {root}
    queue = deque(found)
    while queue:
        for nxt in queue.popleft().next_nodes:
            if nxt is not None and not isinstance(nxt, TensorBase) and nxt not in seen:
                seen.add(nxt)
                found.append(nxt)
                queue.append(nxt)
    return found


def leaves(root: BackwardNode) -> list[TensorBase]:
    """The leaf tensors whose ``.grad`` a backward from ``root`` fills, each once."""
    found: dict[int, TensorBase] = {}
    for node in nodes(root):
        for nxt in node.next_nodes:
            if isinstance(nxt, TensorBase):
                found.setdefault(id(nxt), nxt)
    return list(found.values())


__all__ = ["backward_order", "backward_plan", "consumer_counts", "leaves", "nodes"]
