"""Losses that compare input and target element by element: BCE, L1, smooth L1, Huber.

Each op computes the loss of every element, then reduces it (``'mean'``, ``'sum'`` or
``'none'``) inside the same node, as PyTorch does (one ``BinaryCrossEntropyBackward``
node, not a chain of small ones). Backward spreads the incoming gradient back over the
elements (``_spread``) and multiplies by the derivative of the per-element loss.

- ``binary_cross_entropy(p, t)``: ``-(t log p + (1 - t) log(1 - p))`` of probabilities;
  each log is clamped at -100 (PyTorch's choice), so ``p = 0`` gives a loss of 100, not inf.
- ``binary_cross_entropy_with_logits(x, t)``: the same on logits, ``p = sigmoid(x)``, in
  ONE op written with ``log_sigmoid`` so that it never overflows (``x = -1000`` is fine),
  and whose gradient is simply ``sigmoid(x) - t``.
- ``l1_loss``: ``|x - t|``, composed of existing ops (PyTorch does the same).
- ``smooth_l1_loss`` (``beta``) and ``huber_loss`` (``delta``): quadratic near zero,
  linear beyond; ``smooth_l1 = huber / beta``.

Input and target should have the same shape. As PyTorch, L1, smooth L1, Huber (and
``mse_loss``) broadcast a target of another shape with a warning (``broadcast_pair``): the
mismatch is almost always an (N, 1) output against (N,) targets, which broadcasts to
(N, N) and trains on nonsense, so the warning says how to fix it. The BCE losses refuse it.
"""

from __future__ import annotations

from typing import Any

from minitorch import backends
from minitorch.autograd.function import BackwardNode, Function
from minitorch.errors import MiniTorchError, MiniTorchValueError, warn_user
from minitorch.functions import reductions, unary
from minitorch.functions.arithmetic import div, mul, promote, sub
from minitorch.functions.autocast_policy import autocast_inputs
from minitorch.functions.shape import expand
from minitorch.hints import Array, Gradients, Shape
from minitorch.size import broadcast_shape
from minitorch.switches import SWITCHES
from minitorch.tensor_base import T, TensorBase

REDUCTIONS = ("mean", "sum", "none")
# BCE's backward divides by p (1 - p), kept >= PyTorch's EPSILON: 1e-12 stored as a float32
# number, which is this double (kept as is so that gradients match PyTorch's to the last bit).
BCE_EPSILON = 9.999999960041972e-13


# ---------------------------------------------------------------------- shared by every loss
def _reduce(loss: Array, reduction: str) -> Array:
    """The per-element ``loss`` averaged, summed or left as is."""
    if reduction == "mean":
        # sum / n rather than mean(): an empty input gives nan (as PyTorch) without a warning
        return loss.sum() / loss.size
    if reduction == "sum":
        return loss.sum()
    return loss


def _spread(xp: Any, grad: Array, shape: Shape, reduction: str) -> Array:
    """The gradient of each element's loss: ``grad`` (of the reduced loss) sent back over ``shape``."""
    if reduction == "none":
        return grad
    n = 1
    for size in shape:
        n *= size
    # mean: every element contributed 1/n of the result; sum: each contributed fully
    return xp.broadcast_to(grad / n if reduction == "mean" else grad, shape)


def _check_reduction(op: str, reduction: str) -> None:
    """PyTorch's ValueError for an unknown reduction."""
    if reduction not in REDUCTIONS:
        raise MiniTorchValueError(
            f"{op}: {reduction!r} is not a valid value for reduction (use 'mean', 'sum' or 'none')"
        )


def _check_pair(op: str, input: Any, target: Any) -> None:
    """Both Tensors, of the same shape (a ValueError naming both shapes otherwise)."""
    for name, t in (("input", input), ("target", target)):
        if not isinstance(t, TensorBase):
            raise TypeError(f"{op}(): argument '{name}' must be a Tensor, not {type(t).__name__}")
    if tuple(input.shape) != tuple(target.shape):
        squeeze = input.ndim == target.ndim + 1
        hint = "; for (N, 1) outputs against (N,) targets use output.squeeze(1)" if squeeze else ""
        raise MiniTorchValueError(
            f"{op}: target size {tuple(target.shape)} must be the same as input size {tuple(input.shape)}{hint}"
        )


def broadcast_pair(op: str, input: Any, target: Any) -> tuple[T, T]:
    """Both Tensors, expanded to one shape: a target of another shape broadcasts with a warning.

    PyTorch's regression losses do the same (its warning, word for word, then the fix). Shapes
    that cannot broadcast are an error naming both. The warning points at the user's line.
    """
    for name, t in (("input", input), ("target", target)):
        if not isinstance(t, TensorBase):
            raise TypeError(f"{op}(): argument '{name}' must be a Tensor, not {type(t).__name__}")
    in_shape, target_shape = tuple(input.shape), tuple(target.shape)
    if in_shape == target_shape:
        return input, target
    squeeze = input.ndim == target.ndim + 1 and in_shape[-1:] == (1,)
    fix = " (an (N, 1) output against (N,) targets: use output.squeeze(1))" if squeeze else ""
    warn_user(
        f"{op}: Using a target size ({target_shape}) that is different to the input size ({in_shape}). This "
        f"will likely lead to incorrect results due to broadcasting. Please ensure they have the same size{fix}."
    )
    shape = broadcast_shape(in_shape, target_shape, op=op)
    return expand(input, shape), expand(target, shape)


def _check_floating(op: str, *tensors: TensorBase) -> None:
    """A loss is computed in floating point: integer inputs are refused with the fix."""
    for t in tensors:
        if t.data.dtype.kind != "f":
            raise MiniTorchError(f"{op}: needs floating-point tensors, got {t.dtype}; convert with .float()")


def _check_constant(op: str, name: str, t: TensorBase | None, shape: Shape) -> None:
    """``weight``/``pos_weight``: a Tensor without requires_grad that broadcasts to ``shape``."""
    if t is None:
        return
    if not isinstance(t, TensorBase):
        raise TypeError(f"{op}(): argument '{name}' must be a Tensor or None, not {type(t).__name__}")
    if t.requires_grad:
        raise MiniTorchError(
            f"{op} is not differentiable with respect to argument '{name}': pass {name}.detach() "
            "(as in PyTorch, this input cannot have requires_grad=True)"
        )
    try:
        fits = broadcast_shape(tuple(t.shape), shape) == shape
    except MiniTorchError:
        fits = False
    if not fits:
        raise MiniTorchError(
            f"{op}: {name} of shape {tuple(t.shape)} cannot be broadcast to the input's shape {shape} "
            f"(give one value per element or per class: shape {shape[-1:]})"
        )


def weighted_reduce(op: str, loss: T, weight: T, reduction: str, mean_by_weight: bool) -> T:
    """``loss * weight`` reduced, for the ``weight=`` of mse/l1/huber (composed of ops, so ``weight`` may need grad).

    PyTorch requires ``weight`` to have the input's shape. Its ``'mean'`` is
    ``sum(w * loss) / sum(w)`` for mse and l1 (``mean_by_weight``) but ``mean(w * loss)`` for huber.
    """
    if not isinstance(weight, TensorBase):
        raise TypeError(f"{op}(): argument 'weight' must be a Tensor or None, not {type(weight).__name__}")
    if tuple(weight.shape) != tuple(loss.shape):
        raise MiniTorchValueError(
            f"{op}: Weights and input must have the same size, got weight {tuple(weight.shape)} and input "
            f"{tuple(loss.shape)}"
        )
    weighted = mul(loss, weight)
    if reduction == "none":
        return weighted
    if reduction == "sum":
        return reductions.sum(weighted)
    return div(reductions.sum(weighted), reductions.sum(weight)) if mean_by_weight else reductions.mean(weighted)


# ---------------------------------------------------------------------- binary cross-entropy
class BinaryCrossEntropy(Function):
    """``-w (t log p + (1 - t) log(1 - p))`` of probabilities ``p``, each log clamped at -100.

    Backward: d/dp = w (p - t) / (p (1 - p)), with the denominator kept >= ``BCE_EPSILON`` as
    PyTorch does; d/dt = w (log(1 - p) - log p).
    """

    @staticmethod
    def forward(ctx: BackwardNode, p: Array, t: Array, weight: Array | None, reduction: str) -> Array:
        xp = ctx.xp
        # log(0) = -inf would make the loss inf and every gradient nan: PyTorch clamps at -100
        log_p = xp.maximum(xp.log(p), -100)
        log_1mp = xp.maximum(xp.log1p(-p), -100)
        loss = (t - 1) * log_1mp - t * log_p
        if weight is not None:
            loss = loss * weight
        ctx.save_for_backward(p, t, weight)
        ctx.reduction = reduction
        return _reduce(loss, reduction)

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        p, t, weight = ctx.saved_tensors
        xp = ctx.xp
        g = _spread(xp, grad, p.shape, ctx.reduction)
        if weight is not None:
            g = g * weight
        need_p, need_t = ctx.needs_input_grad[:2]
        grad_p = g * (p - t) / xp.maximum(p * (1 - p), BCE_EPSILON) if need_p else None
        grad_t = g * (xp.log1p(-p) - xp.log(p)) if need_t else None
        return grad_p, grad_t, None, None


def binary_cross_entropy(
    input: T, target: T, weight: T | None = None, reduction: str = "mean"
) -> T:
    """Binary cross-entropy of probabilities ``input`` (in [0, 1]) against ``target`` of the same shape.

    ``weight`` (broadcast to the input's shape) rescales each element's loss. Prefer
    ``binary_cross_entropy_with_logits`` on raw scores: it is stable where this one clamps.
    """
    op = "binary_cross_entropy"
    _check_reduction(op, reduction)
    _check_pair(op, input, target)  # BCE refuses another shape, as PyTorch
    if SWITCHES.autocast is not None:  # PyTorch's autocast list for the device decides
        input, target = autocast_inputs(op, input, target)
    _check_floating(op, input, target)
    if input.data.dtype != target.data.dtype:
        raise MiniTorchError(
            f"{op}: input is {input.dtype} but target is {target.dtype} (PyTorch refuses this too); "
            f"convert the target with target.to({input.dtype})"
        )
    _check_constant(op, "weight", weight, tuple(input.shape))
    # Reading the range back from a GPU is a sync: checked there only under set_debug(True).
    if backends.of(input.data).is_host or SWITCHES.debug:
        p, t = input.data, target.data
        if p.size and not bool(((p >= 0) & (p <= 1)).all()):
            raise MiniTorchError(
                f"{op}: all elements of input should be between 0 and 1 (probabilities), got values in "
                f"[{float(p.min())}, {float(p.max())}]; for raw scores use binary_cross_entropy_with_logits"
            )
        if t.size and not bool(((t >= 0) & (t <= 1)).all()):
            raise MiniTorchError(
                f"{op}: all elements of target should be between 0 and 1 (labels or probabilities), got values "
                f"in [{float(t.min())}, {float(t.max())}]"
            )
    return BinaryCrossEntropy.apply(input, target, _as_constant(weight, input.data.dtype), reduction)


class BinaryCrossEntropyWithLogits(Function):
    """``w ((1 - t) x - l log_sigmoid(x))`` with ``l = 1 + (pos_weight - 1) t``: BCE of sigmoid(x).

    ``log_sigmoid(x) = min(x, 0) - log1p(exp(-|x|))`` never overflows. Backward:
    d/dx = w (l sigmoid(x) - pos_weight t), which is ``sigmoid(x) - t`` without weights;
    d/dt = -w (x + (pos_weight - 1) log_sigmoid(x)).
    """

    @staticmethod
    def forward(
        ctx: BackwardNode, x: Array, t: Array, weight: Array | None, pos_weight: Array | None, reduction: str
    ) -> Array:
        xp = ctx.xp
        log_sig = xp.minimum(x, 0) - xp.log1p(xp.exp(-xp.abs(x)))
        if pos_weight is None:
            loss = (1 - t) * x - log_sig
        else:
            loss = (1 - t) * x - (1 + (pos_weight - 1) * t) * log_sig
        if weight is not None:
            loss = loss * weight
        ctx.save_for_backward(x, t, weight, pos_weight)
        ctx.reduction = reduction
        return _reduce(loss, reduction)

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        x, t, weight, pos_weight = ctx.saved_tensors
        xp = ctx.xp
        g = _spread(xp, grad, x.shape, ctx.reduction)
        if weight is not None:
            g = g * weight
        e = xp.exp(-xp.abs(x))  # sigmoid from the exponential of a non-positive number
        sig = xp.where(x >= 0, 1 / (1 + e), e / (1 + e))
        need_x, need_t = ctx.needs_input_grad[:2]
        grad_x = grad_t = None
        if pos_weight is None:
            grad_x = g * (sig - t) if need_x else None
            grad_t = -g * x if need_t else None
        else:
            if need_x:
                grad_x = g * ((1 + (pos_weight - 1) * t) * sig - pos_weight * t)
            if need_t:
                log_sig = xp.minimum(x, 0) - xp.log1p(e)
                grad_t = -g * (x + (pos_weight - 1) * log_sig)
        return grad_x, grad_t, None, None, None


def binary_cross_entropy_with_logits(
    input: T,
    target: T,
    weight: T | None = None,
    reduction: str = "mean",
    pos_weight: T | None = None,
) -> T:
    """BCE of ``sigmoid(input)`` against ``target``, computed stably from the logits in one op.

    ``weight`` rescales each element's loss; ``pos_weight`` (broadcast along the last
    dimension, one value per class) rescales the loss of the positive targets only.
    """
    op = "binary_cross_entropy_with_logits"
    _check_reduction(op, reduction)
    _check_pair(op, input, target)  # BCE refuses another shape, as PyTorch
    if SWITCHES.autocast is not None:  # PyTorch's autocast list for the device decides
        input, target = autocast_inputs(op, input, target)
    _check_floating(op, input, target)
    input, target = promote(input, target)
    shape = tuple(input.shape)
    _check_constant(op, "weight", weight, shape)
    _check_constant(op, "pos_weight", pos_weight, shape)
    dtype = input.data.dtype
    return BinaryCrossEntropyWithLogits.apply(
        input, target, _as_constant(weight, dtype), _as_constant(pos_weight, dtype), reduction
    )


def _as_constant(t: TensorBase | None, dtype: Any) -> TensorBase | None:
    """A ``weight``/``pos_weight`` in the input's dtype, passed to the op as a Tensor without a
    gradient: saved as an input, it is a known constant when the backward is differentiated again."""
    return None if t is None else TensorBase._make(t.data.astype(dtype, copy=False), None, False)


# ---------------------------------------------------------------------- L1, smooth L1, Huber
def _regression_pair(op: str, input: T, target: T, reduction: str) -> tuple[T, T]:
    """The shared checks of l1/smooth_l1/huber; the pair promoted to one dtype."""
    _check_reduction(op, reduction)
    input, target = broadcast_pair(op, input, target)
    if SWITCHES.autocast is not None:  # PyTorch's autocast list for the device decides
        input, target = autocast_inputs(op, input, target)
    if input.data.dtype.kind != "f" and target.data.dtype.kind != "f":
        raise MiniTorchError(
            f"{op}: needs floating-point tensors, got {input.dtype} and {target.dtype}; convert with .float()"
        )
    result: tuple[T, T] = promote(input, target)
    return result


def l1_loss(
    input: T, target: T, reduction: str = "mean", *, weight: T | None = None
) -> T:
    """Mean (or sum) absolute difference ``|input - target|``; its gradient is ``sign(input - target)``.

    ``weight`` (input's shape) rescales each element; ``'mean'`` is then ``sum(w |d|) / sum(w)``.
    """
    input, target = _regression_pair("l1_loss", input, target, reduction)
    loss = unary.abs(sub(input, target))
    if weight is not None:
        return weighted_reduce("l1_loss", loss, weight, reduction, mean_by_weight=True)
    if reduction == "mean":
        return reductions.mean(loss)
    if reduction == "sum":
        return reductions.sum(loss)
    return loss


class HuberLoss(Function):
    """Per element, with d = x - t: ``0.5 d**2`` if ``|d| < delta``, else ``delta (|d| - 0.5 delta)``.

    Backward: d/dx = d clipped to [-delta, delta]; d/dt = -d/dx.
    """

    @staticmethod
    def forward(ctx: BackwardNode, x: Array, t: Array, delta: float, reduction: str) -> Array:
        xp = ctx.xp
        d = x - t
        a = xp.abs(d)
        loss = xp.where(a < delta, 0.5 * d * d, delta * (a - 0.5 * delta))
        ctx.save_for_backward(x, t)
        ctx.delta, ctx.reduction = delta, reduction
        return _reduce(loss, reduction)

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        x, t = ctx.saved_tensors
        xp = ctx.xp
        g = _spread(xp, grad, x.shape, ctx.reduction) * xp.clip(x - t, -ctx.delta, ctx.delta)
        need_x, need_t = ctx.needs_input_grad[:2]
        return (g if need_x else None), (-g if need_t else None), None, None


class SmoothL1Loss(Function):
    """Per element, with d = x - t: ``0.5 d**2 / beta`` if ``|d| < beta``, else ``|d| - 0.5 beta``.

    That is the Huber loss divided by beta. Backward: d/dx = (d / beta) clipped to [-1, 1].
    """

    @staticmethod
    def forward(ctx: BackwardNode, x: Array, t: Array, beta: float, reduction: str) -> Array:
        xp = ctx.xp
        d = x - t
        a = xp.abs(d)
        loss = xp.where(a < beta, 0.5 * d * d / beta, a - 0.5 * beta)
        ctx.save_for_backward(x, t)
        ctx.beta, ctx.reduction = beta, reduction
        return _reduce(loss, reduction)

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        x, t = ctx.saved_tensors
        xp = ctx.xp
        g = _spread(xp, grad, x.shape, ctx.reduction) * xp.clip((x - t) / ctx.beta, -1, 1)
        need_x, need_t = ctx.needs_input_grad[:2]
        return (g if need_x else None), (-g if need_t else None), None, None


def _positive_number(op: str, name: str, value: Any, allow_zero: bool) -> float:
    """``value`` as a float, refused (as PyTorch) when negative, or zero unless ``allow_zero``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{op}(): argument '{name}' must be a number, not {type(value).__name__}")
    value = float(value)
    if value < 0 or (value == 0 and not allow_zero) or value != value:
        kind = "negative" if allow_zero else "non-positive"
        raise MiniTorchError(f"{op} does not support {kind} values for {name} (got {value})")
    return value


def smooth_l1_loss(input: T, target: T, reduction: str = "mean", beta: float = 1.0) -> T:
    """Smooth L1: quadratic for ``|input - target| < beta``, linear beyond; ``beta=0`` is ``l1_loss``."""
    beta = _positive_number("smooth_l1_loss", "beta", beta, allow_zero=True)
    if beta == 0:  # the quadratic part vanishes (and would divide by zero): PyTorch calls l1_loss
        return l1_loss(input, target, reduction)
    input, target = _regression_pair("smooth_l1_loss", input, target, reduction)
    return SmoothL1Loss.apply(input, target, beta, reduction)


def huber_loss(
    input: T, target: T, reduction: str = "mean", delta: float = 1.0, weight: T | None = None
) -> T:
    """Huber loss: ``0.5 d**2`` for ``|d| < delta``, ``delta (|d| - delta / 2)`` beyond (d = input - target).

    ``weight`` (input's shape) rescales each element; ``'mean'`` is then ``mean(w * loss)``, as PyTorch's.
    """
    delta = _positive_number("huber_loss", "delta", delta, allow_zero=False)
    input, target = _regression_pair("huber_loss", input, target, reduction)
    if weight is not None:
        loss = HuberLoss.apply(input, target, delta, "none")
        return weighted_reduce("huber_loss", loss, weight, reduction, mean_by_weight=False)
    return HuberLoss.apply(input, target, delta, reduction)
