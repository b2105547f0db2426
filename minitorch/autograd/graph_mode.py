"""Gradients of gradients: running an op's own backward on arrays that record a graph.

An op's backward is a small program on arrays: ``Exp.backward`` returns ``grad * out``. With
``create_graph=True`` the engine runs *the same lines* with each array replaced by a
``GraphArray``: a Tensor dressed as a NumPy array. Every ``*``, ``xp.exp``, ``.sum(axis=0)``
or ``np.where`` on it calls the matching differentiable op (``NUMPY_FUNCTIONS``), so the
gradient comes out as a Tensor with a ``grad_fn``: the backward pass itself was recorded,
and can be differentiated again. No op has a second backward formula.

What the backward reads changes with it (``GraphCtx``):

- ``ctx.saved_tensors``: an input's array becomes that input again, connected to the graph
  (a leaf itself, or a Tensor whose ``grad_fn`` is the node that made it); the output's array
  becomes the output, whose ``grad_fn`` is this very node (d out / d input then runs this
  op's backward once more, as for exp), and so does the output saved in another shape (a
  reduction's, with its reduced axes kept: the output, reshaped); masks, indices, arrays
  handed to the op as they are (constants: batch norm's running statistics) and other values
  without a gradient stay what they are. An op that saved any other floating-point
  array cannot be differentiated twice: its dependence on the inputs is unknown, and the
  engine says so rather than treating it as a constant.
- ``ctx.xp``: ``GraphNamespace``, NumPy's names (``xp.exp``, ``xp.where`` ...) for the
  differentiable ops; a name without one is fine on values without a gradient, and a clear
  error on a value with one.

Turning a value that carries a gradient into a plain array (``np.asarray``, ``float``,
``.item()``) is refused: its gradient would silently stop there.

The values and the namespace are in ``graph_arrays.py``; the table of NumPy names is filled
by ``minitorch/functions/array_api.py`` (the ops live above this layer).
"""

from __future__ import annotations

from typing import Any

from minitorch import backends
from minitorch.autograd.graph_arrays import (
    CURRENT,
    NUMPY_FUNCTIONS,
    DoubleBackwardError,
    GraphArray,
    namespace_for,
    wrap,
)
from minitorch.tensor_base import TensorBase

# Types of ctx attributes that are settings, never arrays: read without the array check.
_SETTINGS = frozenset({tuple, bool, int, str, type(None)})


class GraphCtx:
    """The ``ctx`` an op's backward sees in graph mode: the node's settings as they are, its
    saved values as graph values, and ``xp`` the GraphNamespace."""

    __slots__ = ("node", "xp", "saved_tensors")

    def __init__(self, node: Any) -> None:
        self.node = node
        self.xp = namespace_for(node.xp)
        self.saved_tensors = saved_as_graph_values(node)

    def __getattr__(self, name: str) -> Any:  # needs_input_grad, out_shape, the op's own settings
        value = getattr(self.node, name)
        if type(value) in _SETTINGS:  # needs_input_grad, next_nodes, a reduction's name ...: as they are
            return value
        if backends.is_backend_array(value) and value.dtype.kind in ("f", "c"):
            raise DoubleBackwardError(
                f"derivative for {self.node.function.__name__}Backward is not implemented: its backward reads "
                f"ctx.{name}, a floating-point array kept on ctx rather than saved with save_for_backward, so under "
                "create_graph=True its dependence on the inputs is unknown. Save the inputs (or the output) with "
                "ctx.save_for_backward and compute it from them in backward"
            )
        return value


def saved_as_graph_values(node: Any) -> tuple[Any, ...]:
    """What ``node``'s forward saved, each value as it takes part in the graph (module doc)."""
    saved = node.saved_tensors  # raises if a first backward freed them
    roles = node._saved_roles
    values = []
    for position, value in enumerate(saved):
        role = roles[position] if position < len(roles) else None
        if role == -1:  # the output: its grad_fn is this node
            values.append(GraphArray(TensorBase._make(value, node, True)))
        elif role == -2:  # the output in the shape it was saved in (a reduction's, axes kept): reshaped
            output = TensorBase._make(value.reshape(node.out_shape), node, True)
            values.append(GraphArray(graph_reshape(output, tuple(value.shape))))
        elif role is not None:  # input ``role``: a leaf itself, or a tensor made by the node before
            source = node.next_nodes[role]
            if source is None:  # an input that needs no gradient: a constant
                values.append(value)
            elif isinstance(source, TensorBase):
                values.append(GraphArray(source))
            else:
                values.append(GraphArray(TensorBase._make(value, source, True)))
        elif getattr(getattr(value, "dtype", None), "kind", None) in ("f", "c"):
            raise DoubleBackwardError(
                f"derivative for {node.function.__name__}Backward is not implemented: its forward saved a "
                f"floating-point value (saved value {position}, shape {tuple(value.shape)}) that is neither "
                "an input nor the output, so under create_graph=True its dependence on the inputs is unknown. "
                "Save the inputs (and the output) and recompute that value in backward"
            )
        else:  # a mask, indices, a shape, None: no gradient goes through it
            values.append(value)
    return tuple(values)


def differentiable_backward(node: Any, grad_output: TensorBase) -> tuple[TensorBase | None, ...]:
    """Run ``node``'s op's own backward on graph values: each gradient a Tensor in the graph."""
    op = node.function
    previous, CURRENT.op = CURRENT.op, f"{op.__name__}.backward"  # for the errors above
    try:
        result = op.backward(GraphCtx(node), wrap(grad_output) if grad_output.requires_grad else grad_output.data)
    finally:
        CURRENT.op = previous
    if not isinstance(result, (tuple, list)):
        result = (result,)
    gradients: list[TensorBase | None] = []
    for g in result:
        if g is None:
            gradients.append(None)
        elif isinstance(g, GraphArray):
            gradients.append(g.tensor)
        else:  # computed from constants only: carries no gradient
            gradients.append(TensorBase._make(node.xp.asarray(g), None, False))
    return tuple(gradients)


def graph_add(a: TensorBase, b: TensorBase) -> TensorBase:
    """``a + b`` for two gradients that are Tensors of the graph (the engine sums with this)."""
    return NUMPY_FUNCTIONS["add"](a, b)


def graph_cast(t: TensorBase, dtype: Any) -> TensorBase:
    """``t`` in another dtype, recorded."""
    return NUMPY_FUNCTIONS["astype"](t, dtype)


def graph_broadcast(t: TensorBase, shape: tuple[int, ...]) -> TensorBase:
    """``t`` broadcast to ``shape``, recorded."""
    return NUMPY_FUNCTIONS["broadcast_to"](t, shape)


def graph_reshape(t: TensorBase, shape: tuple[int, ...]) -> TensorBase:
    """``t`` reshaped, recorded."""
    return NUMPY_FUNCTIONS["reshape"](t, shape)


__all__ = [
    "GraphCtx",
    "differentiable_backward",
    "graph_add",
    "graph_broadcast",
    "graph_cast",
    "graph_reshape",
    "saved_as_graph_values",
]
