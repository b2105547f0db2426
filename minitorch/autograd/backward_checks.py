"""The checks of a backward step's result, with errors a learner can act on.

- ``check_backward_result``: the debug switch's check (``set_debug(True)``): one gradient
  per input, each with its input's shape and dtype, naming the op that got it wrong.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, NoReturn

from minitorch.hints import Gradients, Shape
from minitorch.tensor_base import TensorBase

if TYPE_CHECKING:
    from minitorch.autograd.function import BackwardNode


def _input_meta(nxt: BackwardNode | TensorBase) -> tuple[Shape, Any]:
    """Shape and dtype that the gradient flowing into ``nxt`` must have."""
    if isinstance(nxt, TensorBase):
        return tuple(nxt.data.shape), nxt.data.dtype
    return tuple(nxt.out_shape), nxt.out_dtype


def check_backward_result(node: BackwardNode, grad_inputs: Gradients) -> None:
    """The debug switch's check: count, shape and dtype of every gradient ``node`` returned."""
    if len(grad_inputs) != len(node.next_nodes):
        raise_count_mismatch(node, grad_inputs)
    op = node.function.__name__
    for i, (nxt, g) in enumerate(zip(node.next_nodes, grad_inputs)):
        if nxt is None or g is None:
            continue
        shape, dtype = _input_meta(nxt)
        g_shape = tuple(getattr(g, "shape", ()))
        if g_shape != shape:
            raise RuntimeError(
                f"{op}.backward returned grad of shape {g_shape} for input {i} of shape {shape}"
                + (" (did you reduce the broadcast dimensions?)" if math.prod(g_shape) > math.prod(shape) else "")
            )
        g_dtype = getattr(g, "dtype", None)
        if g_dtype is not None and g_dtype != dtype:
            raise RuntimeError(f"{op}.backward returned grad of dtype {g_dtype} for input {i} of dtype {dtype}")


def raise_count_mismatch(node: BackwardNode, grad_inputs: Gradients) -> NoReturn:
    """A backward returned another number of gradients than its forward had inputs."""
    op = node.function.__name__
    raise RuntimeError(
        f"{op}.backward returned {len(grad_inputs)} gradient(s) but forward had "
        f"{len(node.next_nodes)} input(s): return one per input (None for inputs that "
        "need no gradient)"
    )
