"""``Tensor.register_hook`` functions, run by the backward pass on the gradient of their tensor.

Only when a tensor has hooks does the engine call ``run_tensor_hooks``: a graph without
hooks never enters this module.
"""

from __future__ import annotations

from typing import Any

from minitorch import backends
from minitorch.errors import MiniTorchError
from minitorch.tensor_base import Hook, TensorBase


def run_tensor_hooks(hooks: list[Hook], grad: Any) -> Any:
    """Call ``register_hook`` functions in order; a hook may return a replacement gradient.

    A replacement must be a Tensor shaped like the gradient, of its dtype and device (as
    PyTorch checks): anything else would flow on and break, or silently broadcast, later.
    (Under create_graph the gradient is already a Tensor of the graph, and so is the result.)
    """
    in_graph = isinstance(grad, TensorBase)
    for hook in hooks:
        result = hook(grad if in_graph else TensorBase._make(grad, None, False))
        if result is None:
            continue
        name = getattr(hook, "__name__", type(hook).__name__)
        if not isinstance(result, TensorBase):
            raise TypeError(
                f"hook '{name}' returned a {type(result).__name__}; a hook returns None (keep the "
                f"gradient) or a Tensor of the gradient's shape {tuple(grad.shape)}"
            )
        new = result.data
        old = grad.data if in_graph else grad
        if new.shape != old.shape:
            raise MiniTorchError(
                f"hook '{name}' has changed the size of the gradient: it was {tuple(old.shape)}, "
                f"the hook returned {tuple(new.shape)}"
            )
        if new.dtype != old.dtype or backends.device_of(new) != backends.device_of(old):
            raise MiniTorchError(
                f"hook '{name}' has changed the type of the gradient: it was {old.dtype} on "
                f"{backends.device_of(old)}, the hook returned {new.dtype} on {backends.device_of(new)}"
            )
        grad = result if in_graph else new
    return grad
