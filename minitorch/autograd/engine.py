"""The backward pass: walk the recorded graph from the output back to the leaves.

1. Order the nodes so that each one comes after every node that consumes its output
   (``graph.backward_order``: Kahn's algorithm, iterative, so a 100,000-op chain is fine).
2. Start at the root with ``d root / d root = 1`` (or the given ``gradient``).
3. For each node in that order, its gradient is complete: call its op's ``backward`` and
   add each returned gradient to the matching input's. A leaf's gradients are gathered
   and added into its ``.grad`` at the end, after its hooks.

Buffers an op saved for backward are released as soon as its backward ran, unless
``retain_graph=True``.

With ``create_graph=True`` the walk is the same, but the gradients are Tensors and each op's
backward runs on graph values (``graph_mode.differentiable_backward``), so the backward pass is
recorded as a graph of its own and its results can be differentiated again.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from minitorch import backends
from minitorch.autograd.anomaly import check_gradient
from minitorch.autograd.backward_checks import check_backward_result, raise_count_mismatch
from minitorch.autograd.gradient_hooks import run_tensor_hooks
from minitorch.autograd.graph_mode import differentiable_backward, graph_add, graph_cast, graph_reshape
from minitorch.errors import MiniTorchError
from minitorch.hints import Array, Gradients
from minitorch.switches import SWITCHES
from minitorch.tensor_base import TensorBase
from minitorch.trace_hooks import GO_ON

if TYPE_CHECKING:
    from minitorch.autograd.function import BackwardNode

# ``observer(node, grad_output, grad_inputs)``, called after each backward step.
Observer = Callable[["BackwardNode", Array, Gradients], Any]


class EngineState:
    """The engine's process-wide state, in one place: ``ENGINE.reset()`` starts afresh.

    - ``observers``: functions called as ``observer(node, grad_output, grad_inputs)`` after
      every backward step, in the engine's order (the widgets' recorder listens here);
    - ``callbacks``: functions to call once the backward now running ends (queue_callback);
    - ``running``: how many backward passes are running now (a hook may start another).
    """

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """No observers, no callbacks, no pass running."""
        self.observers: list[Observer] = []
        self.callbacks: list[Callable[[], Any]] = []
        self.running = 0


ENGINE = EngineState()


def set_debug(enabled: bool = True) -> None:
    """Check every backward: one gradient per input, each with its input's shape and dtype."""
    SWITCHES.debug = bool(enabled)


def is_debug_enabled() -> bool:
    """True when the shape-checking debug switch is on."""
    return SWITCHES.debug


def add_backward_observer(observer: Observer) -> None:
    """Call ``observer(node, grad_output, grad_inputs)`` after each backward step."""
    ENGINE.observers.append(observer)


def remove_backward_observer(observer: Observer) -> None:
    """Stop calling an observer added with ``add_backward_observer``."""
    if observer in ENGINE.observers:
        ENGINE.observers.remove(observer)


def backward_observers() -> tuple[Observer, ...]:
    """The observers currently called after each backward step, as a tuple."""
    return tuple(ENGINE.observers)


def queue_callback(callback: Callable[[], Any]) -> None:
    """Call ``callback()`` when the backward pass now running ends, before it returns.

    For code that starts work from gradient hooks (distributed training starts an
    all-reduce per bucket of gradients) and must finish it before ``backward()`` returns.
    """
    if not ENGINE.running:
        raise MiniTorchError("queue_callback: can only be called during a backward pass (from a hook)")
    ENGINE.callbacks.append(callback)


# ---------------------------------------------------------------------- the plan
def backward_plan(root: BackwardNode) -> tuple[list[BackwardNode], dict[TensorBase, int]]:
    """The nodes reachable from ``root`` in the order their backward runs, and for each leaf
    tensor the number of edges into it.

    Kahn's algorithm: a node is ready once every node that consumes its output has run,
    because only then is its gradient complete. Of the ready nodes, the one made ready
    last runs first (a stack), which finishes one branch before starting the next. The leaf
    counts let the engine add a leaf's gradient into ``.grad`` as soon as its last consumer
    has run (so gradient hooks fire during backward, as distributed training needs).
    """
    waiting = consumer_counts(root)  # a node is ready when its count of waiting consumers is 0
    order = []
    leaf_edges: dict[TensorBase, int] = {}
    ready = [root]
    while ready:
        node = ready.pop()
        order.append(node)
        for nxt in node.next_nodes:
            if nxt is None:
                continue
            if isinstance(nxt, TensorBase):
                leaf_edges[nxt] = leaf_edges.get(nxt, 0) + 1
                continue
            waiting[nxt] -= 1
            if waiting[nxt] == 0:
                ready.append(nxt)
    return order, leaf_edges


def consumer_counts(root: BackwardNode) -> dict[BackwardNode, int]:
    """``{node: number of edges into it}`` for every node reachable from ``root`` (root: 0)."""
    counts = {root: 0}
    stack = [root]
    while stack:
        for nxt in stack.pop().next_nodes:
            if nxt is None or isinstance(nxt, TensorBase):
                continue
            if nxt in counts:
                counts[nxt] += 1
            else:
                counts[nxt] = 1
                stack.append(nxt)
    return counts


# ---------------------------------------------------------------------- the pass
def tensor_backward(
    tensor: TensorBase,
    gradient: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    inputs: Any = None,
) -> None:
    """``tensor.backward()``: d tensor / d leaf for every leaf that requires grad, into ``leaf.grad``.

    With no ``gradient`` the tensor must hold one value (a loss): the pass starts from
    d loss / d loss = 1. Otherwise ``gradient`` (shaped like the tensor) is where it starts.
    ``create_graph=True`` records the backward pass too, so ``.grad`` can be differentiated
    again (``retain_graph`` then defaults to True, as in PyTorch).
    """
    tracer = SWITCHES.tracer
    if tracer is not None and tracer.recording:  # minitorch.compile writes the pass down (trace_hooks.py)
        if tracer.record_backward(tensor_backward, tensor, gradient, retain_graph, create_graph, inputs) is not GO_ON:
            return
    if inputs is not None:
        raise MiniTorchError("backward(): inputs= is not supported in MiniTorch; use autograd.grad(output, inputs)")
    if retain_graph is None:
        retain_graph = create_graph
    if not tensor.requires_grad:
        raise MiniTorchError(
            "backward(): this tensor does not require grad and has no grad_fn; did you "
            "create the inputs with requires_grad=True, or compute it under no_grad()?"
        )
    data, node = tensor.data, tensor.grad_fn
    if gradient is None and data.size == 1 and node is not None:  # a loss: d loss / d loss = 1
        seed = node.xp.ones(data.shape, dtype=data.dtype)
    else:
        seed = _given_gradient(tensor, gradient, create_graph)
    if create_graph and not isinstance(seed, TensorBase):
        seed = TensorBase._make(seed, None, False)
    run_backward(tensor, seed, retain_graph, create_graph=create_graph)


def run_backward(
    root: TensorBase,
    gradient: Any,
    retain_graph: bool = False,
    capture: dict[Any, Any] | None = None,
    create_graph: bool = False,
) -> None:
    """Backpropagate ``gradient`` (an array shaped like ``root``) through ``root``'s graph.

    ``capture`` (for ``autograd.grad``): a dict whose keys are leaf tensors and backward
    nodes; their gradients are stored in it, and no leaf's ``.grad`` is touched.
    ``create_graph``: ``gradient`` is a Tensor, and so is every gradient of the pass, each
    connected to the graph (see the module's docstring).
    """
    tracer = SWITCHES.tracer
    if tracer is not None and tracer.recording:  # autograd.grad or autograd.backward, while compile traces
        if tracer.record_pass(run_backward, root, gradient, retain_graph, capture, create_graph) is not GO_ON:
            return
    if root.grad_fn is None:  # backward of a leaf itself
        _backward_of_leaf(root, gradient, capture)
        return
    order, leaf_edges = backward_plan(root.grad_fn)
    grads: dict[Any, Any] = {root.grad_fn: gradient}  # arriving at each node or leaf, summed
    handed_out: set[int] = set()  # ids of arrays stored as some leaf's .grad in this pass
    # The careful path runs each step's hooks-and-checks helpers; autograd.grad needs it only to
    # capture gradients at nodes (inputs that are not leaves); leaves are captured below.
    careful = SWITCHES.debug or SWITCHES.anomaly or bool(ENGINE.observers) or (
        capture is not None and not all(isinstance(key, TensorBase) for key in capture)
    )
    add = graph_add if create_graph else _add  # Tensors are added by an op (recorded), arrays by NumPy
    previous_mode, SWITCHES.grad_enabled = SWITCHES.grad_enabled, create_graph  # record only if asked
    ENGINE.running += 1
    try:
        for node in order:
            grad_output = grads.pop(node, None)  # complete now: every consumer has run
            if grad_output is None:  # no path from the root carried a gradient here
                continue
            if node._versions is not None:  # were saved values changed in place since forward?
                _check_saved_versions(node)
            if node._pre_hooks is not None or careful:
                grad_output = _before_step(node, grad_output, capture)
            if create_graph:  # the op's own backward, on graph values: the step is recorded
                grad_inputs = differentiable_backward(node, grad_output)
            else:
                # the op's own backward, or that of the fast kernel that ran its forward
                op = node.function if node.fast_kernel is None else node.fast_kernel
                grad_inputs = op.backward(node, grad_output)
            if type(grad_inputs) is not tuple or len(grad_inputs) != len(node.next_nodes) or careful:
                grad_inputs = _check_step(node, grad_output, grad_inputs)
            if not retain_graph:  # free what forward saved (inline: this loop is hot)
                node._saved = node._kernel_saved = ()
                node._versions, node._freed = None, True
            for nxt, g in zip(node.next_nodes, grad_inputs):  # accumulate into each input
                if nxt is None or g is None:
                    continue
                if not isinstance(nxt, TensorBase):  # an op's node: add up until it runs
                    previous = grads.get(nxt)
                    grads[nxt] = g if previous is None else add(previous, g)
                    continue
                # A leaf: gather its gradients until its last edge, then add them into .grad.
                if getattr(g, "shape", ()) != nxt.data.shape:
                    g = _fit_leaf_grad(node, g, nxt)
                previous = grads.pop(nxt, None)
                total = g if previous is None else add(previous, g)
                leaf_edges[nxt] -= 1
                if leaf_edges[nxt]:
                    grads[nxt] = total
                elif capture is None:
                    accumulate_leaf(nxt, total, handed_out)  # into .grad, after its hooks
                elif nxt in capture:
                    capture[nxt] = total
        if grads:  # leaves with an edge from a node that got no gradient: not finished above
            for leaf in [k for k in grads if isinstance(k, TensorBase)]:
                _finish_leaf(leaf, grads[leaf], handed_out, capture)
        if ENGINE.callbacks and ENGINE.running == 1:
            _run_callbacks()
    finally:
        ENGINE.running -= 1
        SWITCHES.grad_enabled = previous_mode
        if not ENGINE.running:
            ENGINE.callbacks.clear()


# ---------------------------------------------------------------------- the pass, in detail
def _add(a: Array, b: Array) -> Array:
    """Two gradient arrays added (a new array: neither may be changed, another node may hold it)."""
    return a + b


def _given_gradient(tensor: TensorBase, gradient: Any, create_graph: bool = False) -> Any:
    """``backward(gradient=...)``'s starting gradient, checked, as a new array (ones for a
    one-element leaf without one). With ``create_graph`` a Tensor gradient is kept as it is:
    if it requires grad, the gradients of the pass depend on it (the double-backward trick)."""
    if gradient is None and tensor.data.size == 1:
        return backends.module_of(tensor.data).ones(tensor.data.shape, dtype=tensor.data.dtype)
    if gradient is None:
        raise MiniTorchError(
            f"backward(): grad can be implicitly created only for scalar outputs, but "
            f"this tensor has shape {tuple(tensor.shape)}; reduce it first (e.g. "
            ".sum().backward()) or pass gradient= with that shape"
        )
    if create_graph and isinstance(gradient, TensorBase) and gradient.requires_grad:
        if tuple(gradient.shape) != tuple(tensor.shape):
            raise MiniTorchError(
                f"backward(): gradient has shape {tuple(gradient.shape)} but the tensor has "
                f"shape {tuple(tensor.shape)}; they must match"
            )
        return gradient
    grad = gradient.data if isinstance(gradient, TensorBase) else gradient
    if backends.is_backend_array(grad) and backends.device_of(grad) != tensor.device:
        raise MiniTorchError(
            f"backward(): gradient is on {backends.device_of(grad)} but the tensor is on "
            f"{tensor.device}; move the gradient with .to('{tensor.device}')"
        )
    # A copy: the caller's array must never end up shared with some leaf's .grad.
    grad = backends.module_of(tensor.data).array(grad, dtype=tensor.data.dtype, copy=True)
    if grad.shape != tensor.data.shape:
        raise MiniTorchError(
            f"backward(): gradient has shape {tuple(grad.shape)} but the tensor has "
            f"shape {tuple(tensor.shape)}; they must match"
        )
    return grad


def _backward_of_leaf(leaf: TensorBase, gradient: Array, capture: dict[Any, Array | None] | None) -> None:
    """``leaf.backward(g)`` on a leaf: ``g`` goes straight into its ``.grad`` (or ``capture``)."""
    ENGINE.running += 1
    try:
        _finish_leaf(leaf, gradient, set(), capture)
        if ENGINE.running == 1:
            _run_callbacks()
    finally:
        ENGINE.running -= 1
        if not ENGINE.running:
            ENGINE.callbacks.clear()


def _run_callbacks() -> None:
    """Run what ``queue_callback`` queued during the pass, in order (they may queue more)."""
    while ENGINE.callbacks:
        ENGINE.callbacks.pop(0)()


def _before_step(node: BackwardNode, grad_output: Array, capture: dict[Any, Array | None] | None) -> Array:
    """Before a node's backward: run its output's hooks, capture its gradient."""
    if node._pre_hooks is not None:
        grad_output = run_tensor_hooks(node._pre_hooks, grad_output)
    if capture is not None and node in capture:  # d root / d (this node's output)
        capture[node] = grad_output
    return grad_output


def _check_step(node: BackwardNode, grad_output: Any, grad_inputs: Any) -> Gradients:
    """After a node's backward: a tuple of one gradient per input, then the careful checks
    (on the arrays, also when the gradients are Tensors of a recorded backward)."""
    if type(grad_inputs) is not tuple:
        grad_inputs = tuple(grad_inputs) if isinstance(grad_inputs, list) else (grad_inputs,)
    if SWITCHES.debug or SWITCHES.anomaly or ENGINE.observers:
        arrays = tuple(g.data if isinstance(g, TensorBase) else g for g in grad_inputs)
        output = grad_output.data if isinstance(grad_output, TensorBase) else grad_output
        _watch_step(node, output, arrays, SWITCHES.debug, SWITCHES.anomaly)
    elif len(grad_inputs) != len(node.next_nodes):
        raise_count_mismatch(node, grad_inputs)
    return grad_inputs


def _finish_leaf(leaf: TensorBase, g: Array, handed_out: set[int], capture: dict[Any, Array | None] | None) -> None:
    """A leaf's gradient is complete: into its ``.grad``, or into ``capture`` for autograd.grad."""
    if capture is None:
        accumulate_leaf(leaf, g, handed_out)
    elif leaf in capture:
        capture[leaf] = g


def _watch_step(node: BackwardNode, grad_output: Array, grad_inputs: Gradients, debug: bool, anomaly: bool) -> None:
    """The careful path of one backward step: the debug and anomaly checks, then the observers."""
    if debug:
        check_backward_result(node, grad_inputs)
    elif len(grad_inputs) != len(node.next_nodes):
        raise_count_mismatch(node, grad_inputs)
    if anomaly:
        for i, g in enumerate(grad_inputs):
            if node.next_nodes[i] is not None:
                check_gradient(node, i, g, node.xp)
    for observer in list(ENGINE.observers):
        observer(node, grad_output, grad_inputs)


def accumulate_leaf(leaf: TensorBase, g: Any, handed_out: set[int]) -> None:
    """Add a leaf's gradient into its ``.grad``, after its hooks have had their say.

    ``handed_out``: the ids of the arrays this pass already stored as some leaf's ``.grad``
    (one set per pass: such an array is copied before a second leaf keeps it). Public for
    ``minitorch.compile``'s replay, which hands out gradients by the engine's rules.
    """
    if isinstance(g, TensorBase):  # a recorded backward (create_graph): .grad stays in the graph
        _accumulate_leaf_in_graph(leaf, g)
        return
    data = leaf.data
    if type(g) is not type(data):  # a NumPy scalar from a reduction, say
        g = backends.module_of(data).asarray(g)
    if g.dtype != data.dtype:
        g = g.astype(data.dtype)
    if g.shape != data.shape:  # only from ``backward(gradient=...)`` on a leaf itself
        g = g.reshape(data.shape)
    hooks = leaf._hooks
    if hooks:
        g = run_tensor_hooks(hooks, g)
    grad = leaf._grad  # the field itself: .grad's setter checks what users assign
    if grad is None:
        # ``.grad.zero_()`` and optimizers write into ``.grad``, so it must own its
        # memory. Copy unless g is a fresh array nobody else holds: it may be a view
        # (a read-only broadcast from sum or expand, say), a hook's array, or the very
        # array another leaf got (``a + b``).
        if hooks or g.base is not None or id(g) in handed_out:
            g = g.copy()
        handed_out.add(id(g))
        leaf._grad = TensorBase._make(g, None, False)
    else:
        grad.data = grad.data + g
    post_hooks = leaf.__dict__.get("_post_accumulate_hooks")
    if post_hooks:
        for hook in list(post_hooks):
            hook(leaf)


def _accumulate_leaf_in_graph(leaf: TensorBase, g: TensorBase) -> None:
    """``accumulate_leaf`` for a gradient that is a Tensor of the graph: added out of place, as
    PyTorch does under create_graph (the old ``.grad`` may be part of another graph)."""
    if g.data.dtype != leaf.data.dtype:
        g = graph_cast(g, leaf.data.dtype)
    if leaf._hooks:
        g = run_tensor_hooks(leaf._hooks, g)
    leaf._grad = g if leaf._grad is None else graph_add(leaf._grad, g)
    post_hooks = leaf.__dict__.get("_post_accumulate_hooks")
    if post_hooks:
        for hook in list(post_hooks):
            hook(leaf)


def _fit_leaf_grad(node: BackwardNode, g: Any, leaf: TensorBase) -> Any:
    """A gradient whose shape differs from its leaf's: fine if only size-1 dims differ.

    Anything else is a wrong backward; say which op returned it rather than letting NumPy
    fail (or silently reshape) later.
    """
    g_shape, shape = tuple(getattr(g, "shape", ())), tuple(leaf.data.shape)
    if math.prod(g_shape) == math.prod(shape) and [s for s in g_shape if s != 1] == [s for s in shape if s != 1]:
        if isinstance(g, TensorBase):
            return graph_reshape(g, shape)
        return backends.module_of(leaf.data).asarray(g).reshape(shape)
    op = node.function.__name__
    index = next(i for i, nxt in enumerate(node.next_nodes) if nxt is leaf)  # for the message only
    hint = " (did you reduce the broadcast dimensions?)" if math.prod(g_shape) > math.prod(shape) else ""
    raise MiniTorchError(
        f"{op}.backward returned grad of shape {g_shape} for input {index}, a leaf of shape {shape}{hint}"
    )


def _check_saved_versions(node: BackwardNode) -> None:
    """Refuse to backward through values that were changed in place after forward saved them."""
    for counter, expected, index, position in node._versions or ():
        if counter.value != expected:
            saved = node._saved[position]
            what = "output 0" if index < 0 else f"input {index}"
            raise MiniTorchError(
                f"one of the variables needed for gradient computation has been modified by an inplace "
                f"operation: the {tuple(saved.shape)} {saved.dtype} tensor saved as {what} of "
                f"{node.function.__name__}Backward is at version {counter.value}; expected version "
                f"{expected} instead. Hint: the in-place change (+=, zero_, t[i] = ..., an optimizer "
                "step) came after the forward pass that saved the tensor and before backward(); move "
                "it after backward(), or change a copy (x = x.clone())"
            )



__all__ = [
    "ENGINE",
    "EngineState",
    "accumulate_leaf",
    "add_backward_observer",
    "backward_observers",
    "backward_plan",
    "consumer_counts",
    "is_debug_enabled",
    "remove_backward_observer",
    "run_backward",
    "set_debug",
    "tensor_backward",
]
