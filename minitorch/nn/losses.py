"""Loss modules for binary targets and regression: each stores its settings and calls one ``F`` loss.

``BCELoss``, ``BCEWithLogitsLoss``, ``L1Loss``, ``SmoothL1Loss`` and ``HuberLoss``, with
PyTorch's arguments. ``weight`` and ``pos_weight`` are buffers, as in PyTorch: they are in
``state_dict`` and move with ``.to(device)``. (``CrossEntropyLoss``, ``NLLLoss`` and
``MSELoss`` are in ``layers.py``.)
"""

from __future__ import annotations

from minitorch.nn import functional as F
from minitorch.nn.module import Module
from minitorch.tensor import Tensor


class _Loss(Module):
    """A loss module: a ``reduction`` ('mean', 'sum' or 'none'), checked when the loss is computed."""

    _tensor_input = True

    def __init__(self, reduction: str = "mean") -> None:
        super().__init__()
        self.reduction = reduction


class BCELoss(_Loss):
    """Binary cross-entropy of probabilities (after a sigmoid) against targets in [0, 1]."""

    weight: Tensor | None  # a buffer (set by register_buffer)

    def __init__(self, weight: Tensor | None = None, reduction: str = "mean") -> None:
        super().__init__(reduction)
        self.register_buffer("weight", weight)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        """The loss of ``input`` probabilities against ``target``."""
        return F.binary_cross_entropy(input, target, weight=self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """Sigmoid and binary cross-entropy in one stable op: give it raw scores (logits)."""

    weight: Tensor | None  # buffers (set by register_buffer)
    pos_weight: Tensor | None

    def __init__(
        self, weight: Tensor | None = None, reduction: str = "mean", pos_weight: Tensor | None = None
    ) -> None:
        super().__init__(reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        """The loss of ``input`` logits against ``target``."""
        return F.binary_cross_entropy_with_logits(
            input, target, weight=self.weight, reduction=self.reduction, pos_weight=self.pos_weight
        )


class L1Loss(_Loss):
    """Mean absolute error."""

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        """``|input - target|``, reduced."""
        return F.l1_loss(input, target, reduction=self.reduction)


class SmoothL1Loss(_Loss):
    """Squared error below ``beta``, absolute error beyond (less sensitive to outliers than MSE)."""

    def __init__(self, reduction: str = "mean", beta: float = 1.0) -> None:
        super().__init__(reduction)
        self.beta = beta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        """The smooth L1 loss of ``input`` against ``target``."""
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    """Huber loss: ``0.5 d**2`` below ``delta``, ``delta (|d| - delta / 2)`` beyond."""

    def __init__(self, reduction: str = "mean", delta: float = 1.0) -> None:
        super().__init__(reduction)
        self.delta = delta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        """The Huber loss of ``input`` against ``target``."""
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)
