"""``minitorch.Size``: the type of ``Tensor.shape`` and ``Tensor.size()``, as ``torch.Size``.

A tuple of ints (it compares, hashes and indexes like one) that prints as
``minitorch.Size([3, 28, 28])``, and whose slices and sums are Sizes too.
"""

from __future__ import annotations

import math
from typing import Any, SupportsIndex


class Size(tuple[int, ...]):
    """The sizes of a tensor's dimensions."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"minitorch.Size([{', '.join(str(n) for n in self)}])"

    __str__ = __repr__

    def __getitem__(self, index: Any) -> Any:
        item = tuple.__getitem__(self, index)
        return Size(item) if isinstance(index, slice) else item

    def __add__(self, other: Any) -> Size:
        return Size(tuple.__add__(self, tuple(other)))

    def __radd__(self, other: Any) -> Size:
        return Size(tuple(other) + tuple(self))

    def __mul__(self, times: SupportsIndex) -> Size:
        return Size(tuple.__mul__(self, times))

    def numel(self) -> int:
        """How many elements a tensor of this shape holds (the product of the sizes)."""
        return math.prod(self)

    def __reduce__(self) -> tuple[Any, ...]:
        return (Size, (tuple(self),))
