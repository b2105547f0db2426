"""``torch.nn.modules.loss``'s path to the loss modules and their base class _Loss."""

from minitorch.nn.layers import CrossEntropyLoss, MSELoss, NLLLoss
from minitorch.nn.losses import BCELoss, BCEWithLogitsLoss, HuberLoss, L1Loss, SmoothL1Loss, _Loss

__all__ = [
    "BCELoss",
    "BCEWithLogitsLoss",
    "CrossEntropyLoss",
    "HuberLoss",
    "L1Loss",
    "MSELoss",
    "NLLLoss",
    "SmoothL1Loss",
    "_Loss",
]
