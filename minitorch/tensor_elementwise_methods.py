"""The Tensor methods of the extra elementwise ops: rounding, reciprocals and logarithms,
comparisons as methods, NaN/inf tests and the logical ops

``Tensor`` (``tensor.py``) inherits these methods, as it does ``TensorMethods``
(``tensor_methods.py``, the core ops): each is one line that hands the work to an op in
``minitorch/functions/elementwise_more.py`` or ``elementwise_logic.py``. The ops import
``Tensor``, so they are bound by ``_link_ops()``, which ``tensor.py`` calls once
``Tensor`` exists.
"""

from __future__ import annotations

import builtins  # ``bool`` and ``float`` name dtypes here: annotations say ``builtins.bool``
from typing import TYPE_CHECKING, Any

_ops: Any = None  # the minitorch.functions package, bound by _link_ops()

if TYPE_CHECKING:  # for the annotations only
    from minitorch.tensor import Tensor
else:
    Tensor = None  # bound by _link_ops() too


class ElementwiseMethods:
    """Methods of the extra elementwise ops and tests (a mixin: it holds no state of its own)."""

    __slots__ = ()

    if TYPE_CHECKING:  # the Tensor state these methods read; tensor.py defines it
        data: Any  # the backend array (NumPy or CuPy)

        @property
        def dtype(self) -> Any: ...
        @property
        def device(self) -> Any: ...

    def round(self, *, decimals: int = 0) -> Tensor:
        """Round to ``decimals`` places, halves to even."""
        return _ops.round(self, decimals=decimals)

    def floor(self) -> Tensor:
        """The largest integer <= each element."""
        return _ops.floor(self)

    def ceil(self) -> Tensor:
        """The smallest integer >= each element."""
        return _ops.ceil(self)

    def trunc(self) -> Tensor:
        """Each element rounded toward zero."""
        return _ops.trunc(self)

    def sign(self) -> Tensor:
        """-1, 0 or 1 by the sign of each element."""
        return _ops.sign(self)

    def reciprocal(self) -> Tensor:
        """1 / self, elementwise."""
        return _ops.reciprocal(self)

    def square(self) -> Tensor:
        """self * self, elementwise."""
        return _ops.square(self)

    def rsqrt(self) -> Tensor:
        """1 / sqrt(self), elementwise."""
        return _ops.rsqrt(self)

    def log2(self) -> Tensor:
        """Base-2 logarithm, elementwise."""
        return _ops.log2(self)

    def log10(self) -> Tensor:
        """Base-10 logarithm, elementwise."""
        return _ops.log10(self)

    def expm1(self) -> Tensor:
        """exp(self) - 1, elementwise, accurate for tiny values."""
        return _ops.expm1(self)

    def exp2(self) -> Tensor:
        """2 ** self, elementwise."""
        return _ops.exp2(self)

    def tan(self) -> Tensor:
        """Tangent, elementwise."""
        return _ops.tan(self)

    def atan2(self, other: Any) -> Tensor:
        """The angle of the point (other, self), elementwise."""
        return _ops.atan2(self, other)

    def clamp_min(self, min: Any) -> Tensor:
        """``clamp(min=min)``."""
        return _ops.clamp_min(self, min)

    def clamp_max(self, max: Any) -> Tensor:
        """``clamp(max=max)``."""
        return _ops.clamp_max(self, max)

    def lerp(self, end: Any, weight: Any) -> Tensor:
        """``self + weight * (end - self)``."""
        return _ops.lerp(self, end, weight)

    def fmod(self, other: Any) -> Tensor:
        """Remainder of self / other with the sign of self."""
        return _ops.fmod(self, other)

    def true_divide(self, other: Any) -> Tensor:
        """``self / other`` (as ``div``)."""
        return _ops.true_divide(self, other)

    def isnan(self) -> Tensor:
        """True where an element is NaN."""
        return _ops.isnan(self)

    def isinf(self) -> Tensor:
        """True where an element is infinite."""
        return _ops.isinf(self)

    def isfinite(self) -> Tensor:
        """True where an element is neither NaN nor infinite."""
        return _ops.isfinite(self)

    def logical_not(self) -> Tensor:
        """True where an element is zero."""
        return _ops.logical_not(self)

    def logical_and(self, other: Any) -> Tensor:
        """True where both elements are nonzero."""
        return _ops.logical_and(self, other)

    def logical_or(self, other: Any) -> Tensor:
        """True where either element is nonzero."""
        return _ops.logical_or(self, other)

    def logical_xor(self, other: Any) -> Tensor:
        """True where exactly one element is nonzero."""
        return _ops.logical_xor(self, other)

    def isclose(
        self, other: Any, rtol: builtins.float = 1e-05, atol: builtins.float = 1e-08, equal_nan: builtins.bool = False
    ) -> Tensor:
        """True where ``|self - other| <= atol + rtol * |other|``."""
        return _ops.isclose(self, other, rtol, atol, equal_nan)

    def allclose(
        self, other: Any, rtol: builtins.float = 1e-05, atol: builtins.float = 1e-08, equal_nan: builtins.bool = False
    ) -> builtins.bool:
        """True when every element is close to ``other``'s (a Python bool)."""
        return _ops.allclose(self, other, rtol, atol, equal_nan)

    def equal(self, other: Any) -> builtins.bool:
        """True when shapes and values are the same (a Python bool)."""
        return _ops.equal(self, other)


def _link_ops() -> None:
    """Import what the methods above call; run by ``tensor.py`` right after ``Tensor`` exists."""
    global _ops, Tensor
    from minitorch import functions as _ops
    from minitorch.tensor import Tensor
