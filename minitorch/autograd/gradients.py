"""``autograd.grad`` and ``autograd.backward``: PyTorch's functional forms of ``backward()``.

``loss.backward()`` adds d loss / d leaf into every leaf's ``.grad``. ``autograd.grad(loss,
[w, h])`` instead *returns* d loss / d w and d loss / d h, for any tensors of the graph
(leaves or intermediate results), and leaves every ``.grad`` alone::

    (dw,) = minitorch.autograd.grad(loss, [w])

Both run the same engine (``engine.run_backward``); ``grad`` asks it to store the
gradients of the chosen tensors instead of accumulating leaf gradients. With
``create_graph=True`` the backward pass is recorded too (``graph_mode.py``): the gradients
are Tensors with a ``grad_fn``, and can be differentiated again::

    (g,) = minitorch.autograd.grad(y, [x], create_graph=True)   # dy/dx, in the graph
    (h,) = minitorch.autograd.grad(g.sum(), [x])                # d2y/dx2 (summed)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from minitorch import backends
from minitorch.autograd.engine import run_backward
from minitorch.autograd.graph_mode import graph_add, graph_broadcast, graph_cast
from minitorch.errors import MiniTorchError
from minitorch.hints import Array
from minitorch.switches import SWITCHES
from minitorch.tensor_base import T, TensorBase
from minitorch.trace_hooks import GO_ON


def _as_tuple(name: str, value: Any) -> tuple[Any, ...]:
    """A Tensor or a sequence of them, as a tuple.

    Any iterable is read once, as PyTorch does: ``autograd.grad(loss, model.parameters())``
    passes a generator. An array is not a sequence of tensors: it is refused.
    """
    if isinstance(value, TensorBase):
        return (value,)
    if isinstance(value, Sequence) or (isinstance(value, Iterable) and not hasattr(value, "__array__")):
        return tuple(value)
    raise TypeError(f"autograd: {name} must be a Tensor or a sequence of Tensors, got {type(value).__name__}")


def _add(a: Array, b: Array) -> Array:
    return a + b


def _graph_results(
    op: str, inputs: tuple[Any, ...], totals: dict[int, Any], allow_unused: bool | None, materialize_grads: bool
) -> tuple[Any, ...]:
    """``grad``'s results under create_graph: the gradient Tensors themselves, in the graph."""
    results: list[Any] = []
    for i, t in enumerate(inputs):
        if i in totals:
            g = totals[i]
            if g.data.dtype != t.data.dtype:
                g = graph_cast(g, t.data.dtype)
            if tuple(g.shape) != tuple(t.shape):
                g = graph_broadcast(g, tuple(t.shape))
            results.append(g)
        elif materialize_grads:
            results.append(TensorBase._make(backends.module_of(t.data).zeros_like(t.data), None, False))
        elif allow_unused:
            results.append(None)
        else:
            raise MiniTorchError(
                f"{op}: input {i} (shape {tuple(t.shape)}) appears to not have been used in the graph. "
                "Set allow_unused=True if this is the desired behavior."
            )
    return tuple(results)


def _seed(op: str, output: TensorBase, grad_output: Any, create_graph: bool = False) -> Any:
    """The gradient that starts backward from ``output``: ones for a scalar, else the one given.

    Under ``create_graph`` it is a Tensor, and a given one that requires grad is kept as it is,
    so the gradients depend on it (``jvp`` from two ``vjp``s relies on this)."""
    if create_graph and isinstance(grad_output, TensorBase) and grad_output.requires_grad:
        _seed(op, output, grad_output.data)  # the checks, and their errors (an output in the graph, the shape)
        return grad_output
    if create_graph:
        return TensorBase._make(_seed(op, output, grad_output), None, False)
    if not isinstance(output, TensorBase) or not output.requires_grad:
        raise MiniTorchError(
            f"{op}: element of the outputs does not require grad and does not have a grad_fn "
            "(was it computed under no_grad(), or from tensors without requires_grad=True?)"
        )
    xp = backends.module_of(output.data)
    if grad_output is None:
        if output.data.size != 1:
            raise MiniTorchError(
                f"{op}: grad can be implicitly created only for scalar outputs, but an output has shape "
                f"{tuple(output.shape)}; pass grad_outputs with that shape"
            )
        return xp.ones(output.data.shape, dtype=output.data.dtype)
    array = grad_output.data if isinstance(grad_output, TensorBase) else xp.asarray(grad_output)
    if tuple(array.shape) != tuple(output.shape):
        raise MiniTorchError(
            f"{op}: a grad_output has shape {tuple(array.shape)} but its output has shape {tuple(output.shape)}"
        )
    return xp.array(array, dtype=output.data.dtype, copy=True)  # the caller's array stays theirs


def grad(
    outputs: Any,
    inputs: T | Iterable[T],  # a tensor, or any iterable of them (model.parameters())
    grad_outputs: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    allow_unused: bool | None = None,
    is_grads_batched: bool = False,
    materialize_grads: bool = False,
) -> tuple[T, ...]:  # PyTorch's annotation too: None only with allow_unused=True
    """The gradients of the sum of ``outputs`` (weighted by ``grad_outputs``) w.r.t. each of ``inputs``.

    Returns one Tensor per input (None for an input the outputs do not depend on, which
    needs ``allow_unused=True`` or ``materialize_grads=True``, the latter giving zeros).
    No ``.grad`` is changed. The graph is freed afterwards unless ``retain_graph=True``
    (which defaults to ``create_graph``). With ``create_graph=True`` the gradients are in
    the graph (``requires_grad``, a ``grad_fn``) and a ``grad_outputs`` tensor that requires
    grad takes part in it.
    """
    tracer = SWITCHES.tracer
    if tracer is not None and tracer.recording:  # minitorch.compile records the call (trace_hooks.py)
        settings = {"retain_graph": retain_graph, "create_graph": create_graph, "allow_unused": allow_unused,
                    "is_grads_batched": is_grads_batched, "materialize_grads": materialize_grads}  # fmt: skip
        recorded = tracer.record_grad(grad, outputs, inputs, grad_outputs, settings)
        if recorded is not GO_ON:
            return recorded
    if retain_graph is None:
        retain_graph = create_graph
    if is_grads_batched:
        raise MiniTorchError("autograd.grad: is_grads_batched=True is not supported in MiniTorch")
    outputs, inputs = _as_tuple("outputs", outputs), _as_tuple("inputs", inputs)
    seeds = (None,) * len(outputs) if grad_outputs is None else _as_tuple("grad_outputs", grad_outputs)
    if len(seeds) != len(outputs):
        raise MiniTorchError(
            f"autograd.grad: grad_outputs has {len(seeds)} entries but there are {len(outputs)} outputs"
        )
    for i, t in enumerate(inputs):
        if not isinstance(t, TensorBase) or not t.requires_grad:
            raise MiniTorchError(f"autograd.grad: input {i} does not require grad (give tensors that are in the graph)")
    # Where each input's gradient arrives: its own node for a computed tensor, itself for a leaf.
    slots = [t if t.grad_fn is None else t.grad_fn for t in inputs]
    totals: dict[int, Any] = {}
    add = graph_add if create_graph else _add
    for k, (output, seed) in enumerate(zip(outputs, seeds)):
        capture: dict[Any, Any] = dict.fromkeys(slots)
        keep = bool(retain_graph) or k < len(outputs) - 1  # later outputs may share the graph
        start = _seed("autograd.grad", output, seed, create_graph)
        run_backward(output, start, retain_graph=keep, capture=capture, create_graph=create_graph)
        for i, slot in enumerate(slots):
            g = capture[slot]
            if g is not None:
                totals[i] = g if i not in totals else add(totals[i], g)
    if create_graph:
        return _graph_results("autograd.grad", inputs, totals, allow_unused, materialize_grads)
    results: list[Any] = []  # tensors (None for an unused input with allow_unused=True)
    for i, t in enumerate(inputs):
        if i in totals:
            g = totals[i]
            if tuple(g.shape) != tuple(t.shape):  # a broadcast scalar gradient, say
                g = backends.module_of(t.data).broadcast_to(g, t.data.shape)
            results.append(TensorBase._make(g.astype(t.data.dtype, copy=True), None, False))  # memory of its own
        elif materialize_grads:
            results.append(TensorBase._make(backends.module_of(t.data).zeros_like(t.data), None, False))
        elif allow_unused:
            results.append(None)
        else:
            raise MiniTorchError(
                f"autograd.grad: input {i} (shape {tuple(t.shape)}) appears to not have been used in the graph. "
                "Set allow_unused=True if this is the desired behavior."
            )
    return tuple(results)


def backward(
    tensors: Any, grad_tensors: Any = None, retain_graph: bool | None = None, create_graph: bool = False
) -> None:
    """``tensors[i].backward(grad_tensors[i])`` for each output: gradients add into the leaves' ``.grad``."""
    if retain_graph is None:
        retain_graph = create_graph
    tensors = _as_tuple("tensors", tensors)
    seeds = (None,) * len(tensors) if grad_tensors is None else _as_tuple("grad_tensors", grad_tensors)
    if len(seeds) != len(tensors):
        raise MiniTorchError(
            f"autograd.backward: grad_tensors has {len(seeds)} entries but there are {len(tensors)} tensors"
        )
    for k, (t, seed) in enumerate(zip(tensors, seeds)):
        keep = bool(retain_graph) or k < len(tensors) - 1
        start = _seed("autograd.backward", t, seed, create_graph)
        run_backward(t, start, retain_graph=keep, create_graph=create_graph)
