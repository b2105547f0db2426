"""``minitorch.Size``: the type of ``Tensor.shape`` and ``Tensor.size()``, as ``torch.Size``.

A tuple of ints (it compares, hashes and indexes like one) that prints as
``minitorch.Size([3, 28, 28])``, and whose slices and sums are Sizes too.

Also the forward rule of broadcasting, ``broadcast_shape``: the shape that operands of
shapes (3, 1) and (1, 5) broadcast to, (3, 5), or an error naming the dimension that
does not fit. (The backward rule, ``unbroadcast``, is in ``functions/arithmetic.py``.)
"""

from __future__ import annotations

import math
from typing import Any, SupportsIndex

from minitorch.errors import MiniTorchError


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


def broadcast_shape(*shapes: tuple[int, ...], op: str = "broadcast") -> tuple[int, ...]:
    """The shape NumPy broadcasting gives ``shapes``, or a clear error naming them."""
    ndim = max((len(s) for s in shapes), default=0)
    result = []
    for axis in range(-ndim, 0):
        sizes = {s[axis] for s in shapes if len(s) >= -axis}
        sizes.discard(1)
        if len(sizes) > 1:
            shown = " and ".join(str(tuple(s)) for s in shapes)
            raise MiniTorchError(
                f"{op}: shapes {shown} cannot be broadcast together: at dimension {axis} the "
                f"sizes are {sorted(sizes)} (each must be equal or 1)"
            )
        result.append(sizes.pop() if sizes else 1)
    return tuple(result)
