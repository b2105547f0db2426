"""``autograd.grad`` and ``autograd.backward``: PyTorch's functional forms of ``backward()``.

``loss.backward()`` adds d loss / d leaf into every leaf's ``.grad``. ``autograd.grad(loss,
[w, h])`` instead *returns* d loss / d w and d loss / d h, for any tensors of the graph
(leaves or intermediate results), and leaves every ``.grad`` alone::

    (dw,) = minitorch.autograd.grad(loss, [w])

Both run the same engine (``engine.run_backward``); ``grad`` asks it to store the
gradients of the chosen tensors instead of accumulating leaf gradients. MiniTorch records
no graph during backward, so there are no higher-order gradients: ``create_graph=True``
is refused.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from minitorch import backends
from minitorch.autograd.engine import run_backward
from minitorch.errors import MiniTorchError
from minitorch.hints import Array
from minitorch.tensor_base import TensorBase

if TYPE_CHECKING:  # the face, for annotations only: never imported at run time (no cycle)
    from minitorch.tensor import Tensor


def _as_tuple(name: str, value: Any) -> tuple[Any, ...]:
    """A Tensor or a sequence of them, as a tuple."""
    if isinstance(value, TensorBase):
        return (value,)
    if isinstance(value, Sequence):
        return tuple(value)
    raise TypeError(f"autograd: {name} must be a Tensor or a sequence of Tensors, got {type(value).__name__}")


def _seed(op: str, output: TensorBase, grad_output: Any) -> Array:
    """The gradient that starts backward from ``output``: ones for a scalar, else the one given."""
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
    inputs: Any,
    grad_outputs: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    allow_unused: bool | None = None,
    is_grads_batched: bool = False,
    materialize_grads: bool = False,
) -> tuple[Tensor | None, ...]:
    """The gradients of the sum of ``outputs`` (weighted by ``grad_outputs``) w.r.t. each of ``inputs``.

    Returns one Tensor per input (None for an input the outputs do not depend on, which
    needs ``allow_unused=True`` or ``materialize_grads=True``, the latter giving zeros).
    No ``.grad`` is changed. The graph is freed afterwards unless ``retain_graph=True``.
    """
    if create_graph:
        raise MiniTorchError(
            "autograd.grad: create_graph=True (gradients of gradients) is not supported: MiniTorch's "
            "backward records no graph"
        )
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
    totals: dict[int, Array] = {}
    for k, (output, seed) in enumerate(zip(outputs, seeds)):
        capture: dict[Any, Array | None] = dict.fromkeys(slots)
        keep = bool(retain_graph) or k < len(outputs) - 1  # later outputs may share the graph
        run_backward(output, _seed("autograd.grad", output, seed), retain_graph=keep, capture=capture)
        for i, slot in enumerate(slots):
            g = capture[slot]
            if g is not None:
                totals[i] = g if i not in totals else totals[i] + g
    results: list[TensorBase | None] = []
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
    if create_graph:
        raise MiniTorchError(
            "autograd.backward: create_graph=True is not supported: MiniTorch's backward records no graph"
        )
    tensors = _as_tuple("tensors", tensors)
    seeds = (None,) * len(tensors) if grad_tensors is None else _as_tuple("grad_tensors", grad_tensors)
    if len(seeds) != len(tensors):
        raise MiniTorchError(
            f"autograd.backward: grad_tensors has {len(seeds)} entries but there are {len(tensors)} tensors"
        )
    for k, (t, seed) in enumerate(zip(tensors, seeds)):
        keep = bool(retain_graph) or k < len(tensors) - 1
        run_backward(t, _seed("autograd.backward", t, seed), retain_graph=keep)
