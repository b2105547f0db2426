"""Losses: negative log-likelihood, cross-entropy and mean squared error.

``cross_entropy`` of (N, C) logits runs as one fused op (``fused.SoftmaxCrossEntropy``);
other shapes compose ``log_softmax`` and ``nll_loss``. Class indices are checked to lie
in [0, C): NumPy would silently wrap a negative one.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitorch import backends
from minitorch.autograd.function import BackwardNode, Function
from minitorch.errors import MiniTorchError, MiniTorchIndexError, MiniTorchValueError
from minitorch.functions.autocast_policy import to_float32
from minitorch.functions.bounds import check_on_device
from minitorch.functions.fused import softmax_cross_entropy
from minitorch.functions.softmax import log_softmax
from minitorch.hints import Array, Gradients
from minitorch.switches import SWITCHES
from minitorch.tensor import Tensor


def _check_reduction(op: str, reduction: str) -> None:
    if reduction not in ("mean", "sum", "none"):
        raise MiniTorchValueError(f"{op}: reduction must be 'mean', 'sum' or 'none', got {reduction!r}")


class NLLLoss(Function):
    """-logp[n, target[n]], averaged or summed over n.

    ``logp`` is (N, C) and ``target`` (N,) holds class indices. Backward puts ``-g`` at
    each picked entry and zero everywhere else.
    """

    @staticmethod
    def forward(ctx: BackwardNode, logp: Array, target: Array, reduction: str) -> Array:
        xp = ctx.xp
        rows = xp.arange(logp.shape[0])
        picked = -logp[rows, target]
        ctx.rows, ctx.target, ctx.reduction = rows, target, reduction
        ctx.shape = logp.shape
        if reduction == "mean":
            return picked.mean()
        if reduction == "sum":
            return picked.sum()
        return picked

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        xp = ctx.xp
        n = ctx.shape[0]
        grad_logp = xp.zeros(ctx.shape, dtype=grad.dtype)
        if ctx.reduction == "mean":
            value = -grad / n
        else:  # "sum" sends the same scalar to every row, "none" one value per row
            value = -grad
        grad_logp[ctx.rows, ctx.target] = value
        return grad_logp, None, None


def nll_loss(log_probs: Tensor, target: Tensor | Array, reduction: str = "mean") -> Tensor:
    """Negative log-likelihood of integer class ``target`` under ``log_probs`` (N, C[, ...])."""
    _check_reduction("nll_loss", reduction)
    if SWITCHES.autocast is not None:  # float32 inside autocast
        (log_probs,) = to_float32(log_probs)
    if not isinstance(target, Tensor):
        target = Tensor(target)
    if target.data.dtype.kind not in "iu":
        raise MiniTorchError(
            f"nll_loss/cross_entropy: target must hold integer class indices (int64), got {target.dtype}; "
            "convert with target.long()"
        )
    if log_probs.ndim >= 2 and target.ndim >= 1 and target.shape[0] != log_probs.shape[0]:
        raise MiniTorchValueError(
            f"nll_loss: expected input batch_size ({log_probs.shape[0]}) to match target batch_size "
            f"({target.shape[0]}): input has shape {tuple(log_probs.shape)} so target must have shape "
            f"{(log_probs.shape[0],) + tuple(log_probs.shape[2:])}, got {tuple(target.shape)}"
        )
    if log_probs.ndim == 1:  # one sample: (C,) with a scalar target
        if target.ndim != 0:
            raise MiniTorchError(
                f"nll_loss: input of shape {tuple(log_probs.shape)} is one sample, so target must be "
                f"one class index (shape ()), got shape {tuple(target.shape)}"
            )
        log_probs, target = log_probs.unsqueeze(0), target.reshape(1)
        out = nll_loss(log_probs, target, reduction)
        return out.reshape(()) if reduction == "none" else out
    if log_probs.ndim > 2:
        # (N, C, d1, ...): move the class dim last and treat every position as a sample.
        c = log_probs.shape[1]
        if target.shape != (log_probs.shape[0],) + tuple(log_probs.shape[2:]):
            raise MiniTorchError(
                f"nll_loss: target shape {tuple(target.shape)} does not match input shape "
                f"{tuple(log_probs.shape)} (expected {(log_probs.shape[0],) + tuple(log_probs.shape[2:])})"
            )
        dims = (0,) + tuple(range(2, log_probs.ndim)) + (1,)
        flat = log_probs.permute(*dims).reshape(-1, c)
        out = nll_loss(flat, target.reshape(-1), reduction)
        return out.reshape(target.shape) if reduction == "none" else out
    n, c = log_probs.shape
    if target.shape != (n,):
        hint = "; one class index per sample: use target.reshape(-1)" if target.ndim > 1 else ""
        raise MiniTorchError(
            f"nll_loss: input has shape {(n, c)} so target must have shape ({n},), got "
            f"{tuple(target.shape)} (multi-target not supported){hint}"
        )
    _check_target_range(target.data, c)
    return NLLLoss.apply(log_probs, target.data, reduction)


# The unsigned integer type of each signed one's size (for the one-max() range check).
_UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def _check_target_range(t: Array, c: int) -> None:
    """Class indices must lie in [0, C); NumPy would silently wrap a negative one."""
    # Checking the range at once reads a number back from a GPU (a sync every step), so on
    # cuda the check stays on the device and raises at the next sync point (bounds.py);
    # minitorch.autograd.set_debug(True) checks at once everywhere.
    if not (backends.of(t).is_host or SWITCHES.debug):
        error = MiniTorchIndexError(
            f"nll_loss/cross_entropy: a target value was outside [0, {c - 1}] for {c} classes "
            "(checked on the GPU and reported at this sync point; set_debug(True) names the step)"
        )
        check_on_device(t, c, error)
        return
    # Seen as unsigned, a negative index becomes huge: one max() checks both ends.
    unsigned = t.view(_UNSIGNED[t.dtype.itemsize]) if t.dtype.kind == "i" else t
    if t.size and int(unsigned.max()) >= c:
        raise MiniTorchIndexError(
            f"nll_loss: target values must be in [0, {c - 1}] for {c} classes, got {int(t.min())}..{int(t.max())}"
        )


def cross_entropy(logits: Tensor, target: Tensor, reduction: str = "mean") -> Tensor:
    """Softmax cross-entropy of integer class ``target``: nll_loss(log_softmax(logits, 1)).

    For the usual (N, C) logits it runs as ONE fused op (``fused.SoftmaxCrossEntropy``)
    whose backward is the famous ``(softmax - onehot(target)) / N``: one graph node instead
    of two, and no recomputed exponentials (on a GPU that backward is a single kernel).
    Other shapes use the two-op composition.
    """
    if SWITCHES.autocast is not None:  # float32 inside autocast
        (logits,) = to_float32(logits)
    _check_reduction("cross_entropy", reduction)
    if _is_class_batch(logits, target):
        _check_target_range(target.data, logits.data.shape[1])
        return softmax_cross_entropy(logits, target, reduction)
    dim = 0 if logits.ndim == 1 else 1
    return nll_loss(log_softmax(logits, dim), target, reduction)


def _is_class_batch(logits: Tensor, target: Any) -> bool:
    """(N, C) float logits and (N,) integer targets on the same device."""
    return (
        isinstance(target, Tensor)
        and logits.data.ndim == 2
        and logits.data.dtype.kind == "f"
        and target.data.shape == (logits.data.shape[0],)
        and target.data.dtype.kind in "iu"
        and type(logits.data) is type(target.data)
    )


def mse_loss(input: Tensor, target: Tensor, reduction: str = "mean") -> Tensor:
    """Mean (or sum) of squared differences."""
    _check_reduction("mse_loss", reduction)
    if SWITCHES.autocast is not None:  # float32 inside autocast
        input, target = to_float32(input, target)
    for name, t in (("input", input), ("target", target)):
        if not isinstance(t, Tensor):
            raise TypeError(f"mse_loss(): argument '{name}' must be a Tensor, not {type(t).__name__}")
    if input.data.dtype.kind != "f" and target.data.dtype.kind != "f":
        raise MiniTorchError(
            f"mse_loss: needs floating-point tensors, got {input.dtype} and {target.dtype}; "
            "convert with .float()"
        )
    if tuple(input.shape) != tuple(target.shape):
        raise MiniTorchError(
            f"mse_loss: input shape {tuple(input.shape)} and target shape {tuple(target.shape)} differ; "
            "reshape one so they match (broadcasting here is almost always a bug)"
        )
    diff = input - target
    sq = diff * diff
    if reduction == "mean":
        return sq.mean()
    if reduction == "sum":
        return sq.sum()
    return sq
