"""Tensor methods of the engine (``autograd/engine.py``): ``backward``.

``loss.backward()`` is ``engine.tensor_backward(loss)``: the method *is* the engine's function,
so a reader goes from the call straight into the walk over the graph.
"""

from __future__ import annotations

from minitorch.autograd import engine
from minitorch.tensor_base import TensorBase


class AutogradMethods(TensorBase):
    """``Tensor.backward``."""

    __slots__ = ()

    backward = engine.tensor_backward
