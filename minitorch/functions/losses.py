"""Losses: negative log-likelihood, cross-entropy and mean squared error.

``nll_loss`` and ``cross_entropy`` (with PyTorch's ``weight``, ``ignore_index``,
``label_smoothing`` and class-probability targets) live in ``class_losses.py``;
``cross_entropy`` of (N, C) logits runs as one fused op (``fused.SoftmaxCrossEntropy``).
"""

from __future__ import annotations

from minitorch.errors import MiniTorchError
from minitorch.functions import reductions
from minitorch.functions.arithmetic import mul, sub
from minitorch.functions.autocast_policy import autocast_inputs
from minitorch.functions.class_losses import NLLLoss, _check_reduction, cross_entropy, nll_loss
from minitorch.functions.pointwise_losses import broadcast_pair, weighted_reduce
from minitorch.switches import SWITCHES
from minitorch.tensor_base import T

__all__ = ["NLLLoss", "cross_entropy", "mse_loss", "nll_loss"]


def mse_loss(
    input: T, target: T, reduction: str = "mean", *, weight: T | None = None
) -> T:
    """Mean (or sum) of squared differences; ``weight`` (input's shape) rescales each one, as PyTorch's.

    With a weight, ``'mean'`` is the weighted mean ``sum(w * d**2) / sum(w)``.
    """
    _check_reduction("mse_loss", reduction)
    input, target = broadcast_pair("mse_loss", input, target)  # another shape: a warning, as PyTorch
    if SWITCHES.autocast is not None:  # PyTorch's autocast list for the device decides
        input, target = autocast_inputs("mse_loss", input, target)
    if input.data.dtype.kind != "f" and target.data.dtype.kind != "f":
        raise MiniTorchError(
            f"mse_loss: needs floating-point tensors, got {input.dtype} and {target.dtype}; convert with .float()"
        )
    diff = sub(input, target)
    sq = mul(diff, diff)
    if weight is not None:
        return weighted_reduce("mse_loss", sq, weight, reduction, mean_by_weight=True)
    if reduction == "mean":
        return reductions.mean(sq)
    if reduction == "sum":
        return reductions.sum(sq)
    return sq
