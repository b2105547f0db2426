"""Walking the recorded graph: the one walk the engine, ``draw_graph`` and the stepper share.

The graph is made of ``BackwardNode``s. ``node.next_nodes[i]`` says where the gradient
for input ``i`` of the node's op goes: another node, a leaf Tensor (its gradient ends in
``.grad``), or None (no gradient needed). Every walk here is iterative, so a chain of
100,000 ops is fine, and deterministic: it follows ``next_nodes`` in order.

- ``consumer_counts(root)``: every reachable node with the number of edges into it.
- ``backward_order(root)``: the nodes in the order the engine runs their backward.
- ``nodes(root)`` / ``leaves(root)``: reachable nodes and leaf tensors, breadth-first.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING

from minitorch.tensor import Tensor

if TYPE_CHECKING:
    from minitorch.autograd.function import BackwardNode


def consumer_counts(root: BackwardNode) -> dict[BackwardNode, int]:
    """``{node: number of edges into it}`` for every node reachable from ``root`` (root: 0)."""
    counts = {root: 0}
    stack = [root]
    while stack:
        for nxt in stack.pop().next_nodes:
            if nxt is None or isinstance(nxt, Tensor):
                continue
            if nxt in counts:
                counts[nxt] += 1
            else:
                counts[nxt] = 1
                stack.append(nxt)
    return counts


def backward_order(root: BackwardNode) -> list[BackwardNode]:
    """The nodes reachable from ``root`` in the order the engine calls their backward.

    Kahn's algorithm: a node is ready once every node that consumes its output has run,
    because only then is its gradient complete. Of the ready nodes, the one made ready
    last runs first (a stack), which finishes one branch before starting the next.
    """
    return backward_plan(root)[0]


def backward_plan(root: BackwardNode) -> tuple[list[BackwardNode], dict[Tensor, int]]:
    """``backward_order(root)``, and for each leaf tensor the number of edges into it.

    The engine uses the counts to add a leaf's gradient into ``.grad`` as soon as its last
    consumer has run (so gradient hooks fire during backward, as distributed training needs).
    """
    waiting = consumer_counts(root)
    order = []
    leaf_edges: dict[Tensor, int] = {}
    ready = [root]
    while ready:
        node = ready.pop()
        order.append(node)
        for nxt in node.next_nodes:
            if nxt is None:
                continue
            if isinstance(nxt, Tensor):
                leaf_edges[nxt] = leaf_edges.get(nxt, 0) + 1
                continue
            waiting[nxt] -= 1
            if waiting[nxt] == 0:
                ready.append(nxt)
    return order, leaf_edges


def nodes(root: BackwardNode) -> list[BackwardNode]:
    """Every node reachable from ``root``, breadth-first (nearest the output first)."""
    found = [root]
    seen = {root}
    queue = deque(found)
    while queue:
        for nxt in queue.popleft().next_nodes:
            if nxt is not None and not isinstance(nxt, Tensor) and nxt not in seen:
                seen.add(nxt)
                found.append(nxt)
                queue.append(nxt)
    return found


def leaves(root: BackwardNode) -> list[Tensor]:
    """The leaf tensors whose ``.grad`` a backward from ``root`` fills, each once."""
    found: dict[int, Tensor] = {}
    for node in nodes(root):
        for nxt in node.next_nodes:
            if isinstance(nxt, Tensor):
                found.setdefault(id(nxt), nxt)
    return list(found.values())


__all__ = ["backward_order", "backward_plan", "consumer_counts", "leaves", "nodes"]
