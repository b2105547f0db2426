"""``minitorch.Tensor``: the tensor users meet, with a method for every op.

``Tensor`` is ``TensorBase`` (``minitorch/tensor_base.py``: the data, ``.grad``,
``.grad_fn``, hooks, versions, conversions) plus one mixin of methods per family of ops.
The method modules mirror ``minitorch/functions/`` one to one: the op ``sum`` is defined in
``functions/reductions.py`` and its method line, ``sum = reductions.sum``, is in
``tensor/reductions.py``. Most method lines *are* the function (``x.sum(1)`` calls
``functions.reductions.sum(x, 1)`` with nothing in between); a method is a ``def`` only where
its arguments differ from the function's. Two modules have no op file of their own:
``inplace.py`` (every in-place method, ``add_`` ... ``t[i] = v``, since they share one
mechanism) and ``autograd.py`` (``backward``, which is the engine's ``tensor_backward``).

``face=True`` registers this class with ``TensorBase``: the ops create their results with
``TensorBase._make``, which makes Tensors, so the ops never import this package, and the
imports of ``minitorch`` have no cycle.
"""

from typing import Any

from minitorch.tensor.activations import ActivationMethods
from minitorch.tensor.arithmetic import ArithmeticMethods
from minitorch.tensor.autograd import AutogradMethods
from minitorch.tensor.binary_math import BinaryMathMethods
from minitorch.tensor.clamping import ClampingMethods
from minitorch.tensor.constructor import constructor_array
from minitorch.tensor.conversion import ConversionMethods
from minitorch.tensor.creation import CreationMethods
from minitorch.tensor.cumulative import CumulativeMethods
from minitorch.tensor.elementwise_logic import LogicMethods
from minitorch.tensor.indexing import IndexingMethods
from minitorch.tensor.inplace import InPlaceMethods
from minitorch.tensor.linalg import LinalgMethods
from minitorch.tensor.masking import MaskingMethods
from minitorch.tensor.ordering import OrderingMethods
from minitorch.tensor.rearranging import RearrangingMethods
from minitorch.tensor.reductions import ReductionMethods
from minitorch.tensor.rounding import RoundingMethods
from minitorch.tensor.sampling import SamplingMethods
from minitorch.tensor.selection import SelectionMethods
from minitorch.tensor.shape import ShapeMethods
from minitorch.tensor.special import SpecialMethods
from minitorch.tensor.unary import UnaryMethods
from minitorch.tensor_base import Hook, TensorBase, VersionCounter


class Tensor(
    ArithmeticMethods,
    UnaryMethods,
    RoundingMethods,
    BinaryMathMethods,
    LogicMethods,
    ReductionMethods,
    ShapeMethods,
    RearrangingMethods,
    OrderingMethods,
    CumulativeMethods,
    SelectionMethods,
    IndexingMethods,
    MaskingMethods,
    ClampingMethods,
    LinalgMethods,
    ActivationMethods,
    SpecialMethods,
    SamplingMethods,
    ConversionMethods,
    CreationMethods,
    InPlaceMethods,
    AutogradMethods,
    TensorBase,
    face=True,
):
    """An n-dimensional array that can record the operations applied to it."""

    __slots__ = ()

    def __init__(self, *args: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> None:
        """``Tensor(data)``, ``Tensor(2, 3)`` (a shape) or ``Tensor()``, as ``torch.Tensor``.

        Python numbers give the default float dtype, as PyTorch's ``torch.Tensor([0])`` does;
        prefer ``minitorch.tensor(data)``. See ``minitorch/tensor/constructor.py``.
        """
        self._init_leaf(constructor_array(args, dtype, device), requires_grad)


__all__ = ["Hook", "Tensor", "TensorBase", "VersionCounter"]
