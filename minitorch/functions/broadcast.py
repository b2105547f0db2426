"""Broadcasting: the shape two operands broadcast to, and the way back for gradients.

When ``a`` of shape (3, 1) and ``b`` of shape (1, 5) are added, NumPy stretches both to
(3, 5). In backward the gradient arrives with shape (3, 5), but ``a.grad`` must have
``a``'s shape: every copy NumPy made of an element contributed to the output, so their
gradients are summed. ``unbroadcast`` does that summing; every op's backward uses it.
"""

from __future__ import annotations

from minitorch.errors import MiniTorchError
from minitorch.hints import Array, Shape


def broadcast_shape(*shapes: Shape, op: str = "broadcast") -> Shape:
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


def unbroadcast(grad: Array, shape: Shape) -> Array:
    """Sum ``grad`` over the dimensions that broadcasting added or stretched, to ``shape``."""
    if grad.shape == shape:
        return grad
    extra = grad.ndim - len(shape)
    if extra < 0:  # a value with extra leading 1s, written with t[i] = value (PyTorch allows it)
        grad = grad.reshape((1,) * -extra + grad.shape)
        extra = 0
    # Leading dimensions that broadcasting prepended, then the size-1 ones it stretched.
    axes = tuple(range(extra)) + tuple(
        extra + i for i, size in enumerate(shape) if size == 1 and grad.shape[extra + i] != 1
    )
    if axes:
        grad = grad.sum(axis=axes)
    return grad.reshape(shape)
