"""``F.one_hot``: class indices as rows of zeros with a single 1 (int64), as in PyTorch.

Karpathy's bigram lecture feeds ``F.one_hot(xs, num_classes=27).float()`` to a matrix
product. It is a comparison of each index with ``arange(num_classes)``, so no op of its
own is needed (its result is an integer tensor: no gradient flows through it).
"""

from __future__ import annotations

from minitorch import factories
from minitorch.dtypes import int64
from minitorch.errors import MiniTorchError
from minitorch.tensor import Tensor


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """(*, num_classes) int64: 1 at each index of ``tensor``, 0 elsewhere; -1 means max + 1 classes."""
    if not isinstance(tensor, Tensor) or tensor.dtype is not int64:
        kind = tensor.dtype if isinstance(tensor, Tensor) else type(tensor).__name__
        raise MiniTorchError(f"one_hot is only applicable to index tensor of type LongTensor (int64), got {kind}")
    smallest = int(tensor.data.min()) if tensor.numel() else 0
    largest = int(tensor.data.max()) if tensor.numel() else -1
    if smallest < 0:
        raise MiniTorchError(f"one_hot: Class values must be non-negative, got {smallest}")
    if num_classes == -1:
        if not tensor.numel():
            raise MiniTorchError("one_hot: Can not infer total number of classes from empty tensor")
        num_classes = largest + 1
    elif largest >= num_classes:
        raise MiniTorchError(f"one_hot: Class values must be smaller than num_classes ({num_classes}), got {largest}")
    classes = factories.arange(num_classes, device=tensor.device)
    return (tensor.unsqueeze(-1) == classes).long()
