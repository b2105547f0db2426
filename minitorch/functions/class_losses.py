"""Classification losses: ``nll_loss`` and ``cross_entropy``, with PyTorch's arguments.

``weight`` (one value per class), ``ignore_index`` (-100 by default: such targets count
for nothing), ``label_smoothing`` and class-probability targets (cross_entropy only), on
(N, C), (C,) and (N, C, d1, ...) inputs, with PyTorch's formulas.

The common case, ``cross_entropy(logits, target)`` of (N, C) logits, runs as ONE fused op
(``fused.SoftmaxCrossEntropy``). Its labels are range-checked with one ``max()`` (seen as
unsigned, a negative label is huge); only when that check fails does the code look for
``ignore_index`` labels and take the masked path. Every other case is ``log_softmax``
followed by ``NLLLoss``, whose node takes a per-row weight (class weight times "not
ignored"), plus, for label smoothing and probability targets, ordinary differentiable ops.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from minitorch import backends
from minitorch.autograd.function import BackwardNode, Function
from minitorch.errors import MiniTorchError, MiniTorchValueError, check_int
from minitorch.functions import reductions
from minitorch.functions.activations import log_softmax
from minitorch.functions.arithmetic import add, div, mul, neg
from minitorch.functions.autocast_policy import autocast_inputs
from minitorch.functions.bounds import label_rows
from minitorch.functions.fused import SoftmaxCrossEntropy
from minitorch.functions.indexing import scatter_into_zeros
from minitorch.functions.shape import permute, reshape, unsqueeze
from minitorch.hints import Array, Gradients
from minitorch.switches import SWITCHES
from minitorch.tensor_base import T, TensorBase


def _check_reduction(op: str, reduction: str) -> None:
    if reduction not in ("mean", "sum", "none"):
        raise MiniTorchValueError(f"{op}: reduction must be 'mean', 'sum' or 'none', got {reduction!r}")


class NLLLoss(Function):
    """-logp[n, target[n]] (times ``row_weight[n]``), averaged or summed over n.

    ``logp`` is (N, C) and ``target`` (N,) holds class indices. ``row_weight`` (N,), when
    given, is each row's class weight, 0 for an ignored row; 'mean' then divides by its sum
    (PyTorch's weighted mean: nan when every row is ignored). Backward puts
    ``-g * row_weight`` at each picked entry (over the sum for 'mean') and zero elsewhere.

    ``row_weight`` comes in as a Tensor without a gradient and is saved as that input, so a
    backward run under create_graph=True knows it for a constant (a float array kept on
    ``ctx`` it would have to refuse); the scatter is ``scatter_into_zeros``, the in-place
    write on arrays and the differentiable IndexPut on graph values.
    """

    @staticmethod
    def forward(
        ctx: BackwardNode, logp: Array, target: Array, reduction: str, row_weight: Array | None = None
    ) -> Array:
        xp = ctx.xp
        rows = xp.arange(logp.shape[0])
        picked = -logp[rows, target]
        ctx.rows, ctx.target, ctx.reduction = rows, target, reduction
        ctx.shape = logp.shape
        if row_weight is not None:
            ctx.save_for_backward(row_weight)
            picked = picked * row_weight
            if reduction == "mean":
                with np.errstate(invalid="ignore", divide="ignore"):  # all ignored: 0/0 = nan, as PyTorch
                    return picked.sum() / row_weight.sum()
        if reduction == "mean":
            return picked.mean()
        if reduction == "sum":
            return picked.sum()
        return picked

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        xp = ctx.xp
        n = ctx.shape[0]
        weighted = len(ctx.next_nodes) == 4  # a row_weight input was given (and saved)
        weight = ctx.saved_tensors[0] if weighted else None
        if ctx.reduction == "mean":
            if weight is None:
                value = -grad / n
            else:  # every row ignored: no row gets a gradient (PyTorch's zeros, not 0 * nan)
                total = weight.sum()  # again: a float kept on ctx would be refused under create_graph=True
                value = -grad / xp.where(total == 0, 1, total)
        else:  # "sum" sends the same scalar to every row, "none" one value per row
            value = -grad
        if weight is not None:
            value = value * weight
        grad_logp = scatter_into_zeros(xp, ctx.shape, grad.dtype, (ctx.rows, ctx.target), value)
        return (grad_logp,) + (None,) * (len(ctx.next_nodes) - 1)


def nll_loss(
    input: T,
    target: T | Array,
    weight: T | None = None,
    *,
    ignore_index: int = -100,
    reduction: str = "mean",
) -> T:
    """Negative log-likelihood of integer class ``target`` under log-probabilities ``input`` (N, C[, ...]).

    ``weight`` (C,) weighs each class ('mean' divides by the summed weights of the targets
    that count); targets equal to ``ignore_index`` contribute nothing and are not counted.
    """
    _check_reduction("nll_loss", reduction)
    _check_positional("nll_loss", weight, reduction)
    if SWITCHES.autocast is not None:  # PyTorch's autocast list for the device decides
        (input,) = autocast_inputs("nll_loss", input)
    log_probs = input
    if not isinstance(target, TensorBase):
        target = TensorBase._from_data(target)
    if target.data.dtype.kind not in "iu":
        raise MiniTorchError(
            f"nll_loss/cross_entropy: target must hold integer class indices (int64), got {target.dtype}; "
            "convert with target.long()"
        )
    check_int("nll_loss", "ignore_index", ignore_index)
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
        out = nll_loss(
            unsqueeze(log_probs, 0), reshape(target, 1), weight, ignore_index=ignore_index, reduction=reduction
        )
        return reshape(out, ()) if reduction == "none" else out
    if log_probs.ndim > 2:
        # (N, C, d1, ...): move the class dim last and treat every position as a sample.
        c = log_probs.shape[1]
        if target.shape != (log_probs.shape[0],) + tuple(log_probs.shape[2:]):
            raise MiniTorchError(
                f"nll_loss: target shape {tuple(target.shape)} does not match input shape "
                f"{tuple(log_probs.shape)} (expected {(log_probs.shape[0],) + tuple(log_probs.shape[2:])})"
            )
        dims = (0,) + tuple(range(2, log_probs.ndim)) + (1,)
        flat = reshape(permute(log_probs, *dims), -1, c)
        out = nll_loss(flat, reshape(target, -1), weight, ignore_index=ignore_index, reduction=reduction)
        return reshape(out, target.shape) if reduction == "none" else out
    if log_probs.ndim != 2:
        shape = tuple(log_probs.shape)
        raise MiniTorchError(f"nll_loss: input must be (N, C), (C,) or (N, C, d1, ...), got shape {shape}")
    n, c = log_probs.shape
    if target.shape != (n,):
        hint = "; one class index per sample: use target.reshape(-1)" if target.ndim > 1 else ""
        raise MiniTorchError(
            f"nll_loss: input has shape {(n, c)} so target must have shape ({n},), got "
            f"{tuple(target.shape)} (multi-target not supported){hint}"
        )
    class_weight = _weight_array("nll_loss", weight, log_probs, c)
    t, row_weight = label_rows(target.data, c, class_weight, ignore_index, log_probs.data.dtype)
    if row_weight is None:
        return NLLLoss.apply(log_probs, t, reduction)
    # A Tensor without a gradient: saved as an input, a known constant to a backward under create_graph
    return NLLLoss.apply(log_probs, t, reduction, TensorBase._make(row_weight, None, False))


def _weight_array(op: str, weight: Any, input: TensorBase, c: int, same_dtype: bool = True) -> Array | None:
    """The class weights' array (C,), checked as PyTorch checks them; None for no weight."""
    if weight is None:
        return None
    if not isinstance(weight, TensorBase):
        raise TypeError(f"{op}(): argument 'weight' must be a Tensor, not {type(weight).__name__}")
    w = weight.data
    if w.shape != (c,):
        raise MiniTorchValueError(
            f"{op}: weight must hold one value per class, shape ({c},) for input of shape "
            f"{tuple(input.shape)}, got weight of shape {tuple(w.shape)}"
        )
    if w.dtype.kind != "f" or (same_dtype and w.dtype != input.data.dtype):
        raise MiniTorchError(
            f"{op}: weight dtype {weight.dtype} must match the input dtype {input.dtype}; "
            f"convert with weight.to({input.dtype})"
        )
    if type(w) is not type(input.data):
        raise MiniTorchError(f"{op}: weight is on {weight.device} but input is on {input.device}")
    return w


def _check_positional(op: str, weight: Any, reduction: str) -> None:
    """A reduction given third, as ``op(x, t, 'sum')``: the third argument is ``weight``, as in PyTorch."""
    if isinstance(weight, str):
        raise TypeError(
            f"{op}(): argument 'weight' (position 3) must be a Tensor, not str; "
            f"pass the reduction by name: {op}(input, target, reduction={weight!r})"
        )


def cross_entropy(
    input: T,
    target: T,
    weight: T | None = None,
    *,
    ignore_index: int = -100,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> T:
    """Softmax cross-entropy: ``nll_loss(log_softmax(input, 1), target)`` with PyTorch's options.

    ``target`` holds class indices (integers, of shape (N, d1, ...)) or class probabilities
    (floats, of the input's shape). For the usual (N, C) logits and labels it runs as ONE
    fused op (``fused.SoftmaxCrossEntropy``) whose backward is the famous
    ``(softmax - onehot(target)) / N``: one graph node instead of two (on a GPU that
    backward is a single kernel; the CPU's fast kernel keeps the softmax from forward).
    """
    if SWITCHES.autocast is not None:  # PyTorch's autocast list for the device decides
        (input,) = autocast_inputs("cross_entropy", input)
    if weight is None and label_smoothing == 0.0 and _is_class_batch(input, target):
        _check_reduction("cross_entropy", reduction)
        check_int("cross_entropy", "ignore_index", ignore_index)
        # The fused op sorts the labels itself (in range, ignore_index, or an error), in its
        # forward: so does every replay of a compiled step, whatever labels it is given.
        return SoftmaxCrossEntropy.apply(input, target, reduction, None, ignore_index)
    return _cross_entropy(input, target, weight, ignore_index, reduction, label_smoothing)


def _is_class_batch(logits: TensorBase, target: Any) -> bool:
    """(N, C) float logits and (N,) integer targets on the same device."""
    return (
        isinstance(target, TensorBase)
        and logits.data.ndim == 2
        and logits.data.dtype.kind == "f"
        and target.data.shape == (logits.data.shape[0],)
        and target.data.dtype.kind in "iu"
        and type(logits.data) is type(target.data)
    )


def _cross_entropy(
    input: T, target: Any, weight: Any, ignore_index: int, reduction: str, label_smoothing: float
) -> T:
    """Every case but the plain fused one: checks, then the composition that fits the target."""
    _check_reduction("cross_entropy", reduction)
    _check_positional("cross_entropy", weight, reduction)
    check_int("cross_entropy", "ignore_index", ignore_index)
    if not isinstance(input, TensorBase):
        raise TypeError(f"cross_entropy(): argument 'input' must be a Tensor, not {type(input).__name__}")
    if isinstance(label_smoothing, bool) or not isinstance(label_smoothing, numbers.Real):
        kind = type(label_smoothing).__name__
        raise TypeError(f"cross_entropy(): argument 'label_smoothing' must be float, not {kind}")
    if not 0.0 <= label_smoothing <= 1.0:
        raise MiniTorchValueError(f"cross_entropy: label_smoothing must be between 0.0 and 1.0, got {label_smoothing}")
    if input.ndim == 0:
        raise MiniTorchError("cross_entropy: input must be (N, C), (C,) or (N, C, d1, ...), got a 0-d tensor")
    class_dim = 0 if input.ndim == 1 else 1
    c = input.shape[class_dim]
    if not isinstance(target, TensorBase):
        target = TensorBase._from_data(target)
    if target.data.dtype.kind == "f" and tuple(target.shape) == tuple(input.shape):
        if ignore_index >= 0:
            raise MiniTorchValueError(
                f"cross_entropy: ignore_index={ignore_index} is not supported for class-probability targets "
                f"(a float target of the input's shape {tuple(input.shape)})"
            )
        w = _weight_array("cross_entropy", weight, input, c, same_dtype=False)
        return _probability_targets(input, target, w, reduction, float(label_smoothing), class_dim)
    if target.data.dtype.kind == "f":
        raise MiniTorchError(
            f"cross_entropy: target must hold integer class indices (int64), got {target.dtype} of shape "
            f"{tuple(target.shape)}; convert with target.long(). (Class probabilities must have the "
            f"input's shape {tuple(input.shape)}.)"
        )
    if target.data.dtype.kind == "b" or tuple(target.shape) == tuple(input.shape) and input.ndim > 1:
        raise MiniTorchError(
            f"cross_entropy: a target of the input's shape {tuple(input.shape)} holds class probabilities "
            f"and must be floating point, got {target.dtype}"
        )
    w = _weight_array("cross_entropy", weight, input, c)
    logp = log_softmax(input, class_dim)
    loss = nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=reduction)
    if not label_smoothing:
        return loss
    return _smoothed(loss, logp, target, w, ignore_index, reduction, float(label_smoothing), class_dim)


def _class_shape(ndim: int, c: int, class_dim: int) -> tuple[int, ...]:
    """The shape that broadcasts a (C,) weight along ``class_dim`` of an ``ndim``-d input."""
    return tuple(c if d == class_dim else 1 for d in range(ndim))


def _smoothed(
    nll: T,
    logp: T,
    target: T,
    w: Array | None,
    ignore_index: int,
    reduction: str,
    eps: float,
    class_dim: int,
) -> T:
    """PyTorch's label smoothing of class-index targets: (1 - eps) * nll + eps / C * smooth.

    ``smooth`` is -sum over classes of weight[c] * logp[c] per sample, 0 where ignored;
    'mean' divides its sum by the summed weights of the targets that count (as nll_loss).
    """
    c = logp.shape[class_dim]
    t = target.data
    xp = backends.module_of(t)
    keep = t != ignore_index
    weighted = logp if w is None else mul(logp, TensorBase._from_data(w.reshape(_class_shape(logp.ndim, c, class_dim))))
    smooth = mul(neg(reductions.sum(weighted, class_dim)), TensorBase._from_data(keep.astype(logp.data.dtype)))
    if reduction == "none":
        out = smooth
    elif reduction == "sum":
        out = reductions.sum(smooth)
    else:
        counted = keep.astype(logp.data.dtype)
        if w is not None:
            counted = counted * w[xp.where(keep, t, 0)]
        # Divide by the summed weight; when every target is ignored that is 0: the loss is
        # nan (0/0) as in PyTorch, but its gradient 0, not 0 * inf = nan. Array-side where()s,
        # so a GPU does not have to report the total back to the host.
        total = counted.sum()
        inverse = xp.where(total > 0, 1 / total, 0).astype(counted.dtype)
        nan_if_empty = xp.where(total > 0, 0, xp.nan).astype(counted.dtype)
        out = add(mul(reductions.sum(smooth), TensorBase._from_data(inverse)), TensorBase._from_data(nan_if_empty))
    return add(mul(nll, 1.0 - eps), mul(out, eps / c))


def _probability_targets(
    input: T, target: T, w: Array | None, reduction: str, eps: float, class_dim: int
) -> T:
    """-sum over classes of weight[c] * target[c] * log_softmax(input)[c], per sample (PyTorch's formula).

    With label smoothing the target is first mixed with the uniform distribution:
    ``target * (1 - eps) + eps / C``. 'mean' divides by the number of samples (not weights).
    """
    c = input.shape[class_dim]
    logp = log_softmax(input, class_dim)
    probs = add(mul(target, 1.0 - eps), eps / c) if eps > 0 else target
    prod = mul(logp, probs)
    if w is not None:
        prod = mul(prod, TensorBase._from_data(w.reshape(_class_shape(input.ndim, c, class_dim))))
    if reduction == "none":
        return neg(reductions.sum(prod, class_dim))
    total = neg(reductions.sum(prod))
    if reduction == "sum":
        return total
    samples = input.data.size // c if c else 0
    return div(total, samples) if samples else mul(total, float("nan"))
