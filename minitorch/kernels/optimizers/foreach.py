"""The ``foreach`` update kernels: a CPU parameter group's step as one flat NumPy array.

Each function here is one optimizer's formula (``_update_parameter`` in
``minitorch/optim/<name>.py``) with the group's flat arrays (``flat.FlatGroup``) in place of
one parameter's: the same elementwise operations in the same order, so the same numbers,
in about ten NumPy calls for the whole group instead of ten per parameter. They write
into the flat work arrays (``out=``) so that a step allocates nothing. The comments
(``formula: ...``) give the line of the formula each block computes.

Registered for Adam (so AdamW), RMSprop, Adagrad and Adadelta on the CPU. SGD has none:
its formula is only four operations per parameter, and a flat SGD step measured no faster.

Each kernel applies (``_flat_kernel``) where ``flat.prepare_flat_group`` says the flat step
gives the formula's numbers (NumPy arrays of one float dtype, one step count, ...) and
either the group asked for ``foreach=True`` or it is several small parameters
(``flat.worth_grouping``: otherwise the formula is faster).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from minitorch.kernels.optimizers.flat import (
    add_weight_decay,
    flat_group,
    gather_flat,
    prepare_flat_group,
    subtract_updates,
    worth_grouping,
)
from minitorch.kernels.update_registry import UpdateKernel, register_update
from minitorch.optim import Adadelta, Adagrad, Adam, RMSprop
from minitorch.optim.optimizer import Optimizer
from minitorch.tensor import Tensor

Group = dict[str, Any]


def adam_foreach(optimizer: Adam, group: Group, params: list[Tensor], grads: list[Any], states: list[Any]) -> None:
    """Adam and AdamW (``Adam._update_parameter``) for the whole group at once, on its flat arrays."""
    flat = flat_group(optimizer, group)
    lr, (beta1, beta2), eps, weight_decay = group["lr"], group["betas"], group["eps"], group["weight_decay"]
    decoupled = group["decoupled_weight_decay"]
    t = states[0]["step"] + 1  # prepare_flat_group made sure every parameter is at the same step
    for state in states:
        state["step"] = t
    g = gather_flat(flat, grads, group["maximize"])
    if weight_decay and not decoupled:
        add_weight_decay(flat, g, params, weight_decay)
    m, v, work = flat.flat["exp_avg"], flat.flat["exp_avg_sq"], flat.work[0]
    m *= beta1  # formula: m *= beta1; m += (1 - beta1) * g
    np.multiply(g, 1 - beta1, out=work)
    m += work
    v *= beta2  # formula: v *= beta2; v += (1 - beta2) * (g * g)
    np.multiply(g, g, out=work)
    work *= 1 - beta2
    v += work
    step_size = lr / (1 - beta1**t)
    if group["amsgrad"]:
        v_max = flat.flat["max_exp_avg_sq"]
        np.maximum(v_max, v, out=v_max)
        v = v_max
    np.sqrt(v, out=work)  # formula: denom = sqrt(v) / sqrt(1 - beta2**t) + eps; p -= step_size * (m / denom)
    work /= math.sqrt(1 - beta2**t)
    work += eps
    np.divide(m, work, out=work)
    work *= step_size
    # AdamW shrinks p first; its update does not read p, so doing it here is the same
    decay = 1 - lr * weight_decay if weight_decay and decoupled else None
    subtract_updates(params, flat.work_views[0], decay)


def rmsprop_foreach(
    optimizer: RMSprop, group: Group, params: list[Tensor], grads: list[Any], states: list[Any]
) -> None:
    """RMSprop (``RMSprop._update_parameter``) for the whole group at once, on its flat arrays."""
    flat = flat_group(optimizer, group)
    lr, alpha, eps, momentum = group["lr"], group["alpha"], group["eps"], group["momentum"]
    for state in states:
        state["step"] += 1
    g = gather_flat(flat, grads, group["maximize"])
    if group["weight_decay"]:
        add_weight_decay(flat, g, params, group["weight_decay"])
    square_avg, work = flat.flat["square_avg"], flat.work[0]
    square_avg *= alpha  # formula: square_avg *= alpha; square_avg += (1 - alpha) * (g * g)
    np.multiply(g, g, out=work)
    work *= 1 - alpha
    square_avg += work
    if group["centered"]:
        grad_avg = flat.flat["grad_avg"]
        np.subtract(g, grad_avg, out=work)  # formula: grad_avg += (1 - alpha) * (g - grad_avg)
        work *= 1 - alpha
        grad_avg += work
        np.multiply(grad_avg, grad_avg, out=work)  # formula: avg = sqrt(square_avg - grad_avg * grad_avg) + eps
        np.subtract(square_avg, work, out=work)
        np.sqrt(work, out=work)
    else:
        np.sqrt(square_avg, out=work)  # formula: avg = sqrt(square_avg) + eps
    work += eps  # work is now avg
    np.divide(g, work, out=work)
    if momentum > 0:
        buf = flat.flat["momentum_buffer"]  # formula: buf *= momentum; buf += g / avg; p -= lr * buf
        buf *= momentum
        buf += work
        np.multiply(buf, lr, out=work)
    else:
        work *= lr  # formula: p -= lr * (g / avg)
    subtract_updates(params, flat.work_views[0])


def adagrad_foreach(
    optimizer: Adagrad, group: Group, params: list[Tensor], grads: list[Any], states: list[Any]
) -> None:
    """Adagrad (``Adagrad._update_parameter``) for the whole group at once, on its flat arrays."""
    flat = flat_group(optimizer, group)
    t = states[0]["step"] + 1  # prepare_flat_group made sure every parameter is at the same step
    for state in states:
        state["step"] = t
    g = gather_flat(flat, grads, group["maximize"])
    if group["weight_decay"]:
        add_weight_decay(flat, g, params, group["weight_decay"])
    clr = group["lr"] / (1 + (t - 1) * group["lr_decay"])
    total, work = flat.flat["sum"], flat.work[0]
    np.multiply(g, g, out=work)  # formula: sum += g * g
    total += work
    np.sqrt(total, out=work)  # formula: std = sqrt(sum) + eps; p -= clr * (g / std)
    work += group["eps"]
    np.divide(g, work, out=work)
    work *= clr
    subtract_updates(params, flat.work_views[0])


def adadelta_foreach(
    optimizer: Adadelta, group: Group, params: list[Tensor], grads: list[Any], states: list[Any]
) -> None:
    """Adadelta (``Adadelta._update_parameter``) for the whole group at once, on its flat arrays."""
    flat = flat_group(optimizer, group)
    rho, eps = group["rho"], group["eps"]
    for state in states:
        state["step"] += 1
    g = gather_flat(flat, grads, group["maximize"])
    if group["weight_decay"]:
        add_weight_decay(flat, g, params, group["weight_decay"])
    square_avg, acc_delta = flat.flat["square_avg"], flat.flat["acc_delta"]
    std, delta = flat.work
    square_avg *= rho  # formula: square_avg *= rho; square_avg += (1 - rho) * (g * g)
    np.multiply(g, g, out=std)
    std *= 1 - rho
    square_avg += std
    np.add(square_avg, eps, out=std)  # formula: delta = sqrt(acc_delta + eps) / sqrt(square_avg + eps) * g
    np.sqrt(std, out=std)
    np.add(acc_delta, eps, out=delta)
    np.sqrt(delta, out=delta)
    delta /= std
    delta *= g
    acc_delta *= rho  # formula: acc_delta *= rho; acc_delta += (1 - rho) * (delta * delta)
    np.multiply(delta, delta, out=std)
    std *= 1 - rho
    acc_delta += std
    delta *= group["lr"]  # formula: p -= lr * delta
    subtract_updates(params, flat.work_views[1])


# ---------------------------------------------------------------------- when each one applies
def _flat_kernel(
    optimizer: type[Optimizer], step: Callable[..., None], keys: Callable[[Group], tuple[str, ...]], n_work: int = 1
) -> UpdateKernel:
    """Register ``step`` for ``optimizer`` on the CPU: it keeps the state arrays ``keys(group)`` flat."""

    def applies(opt: Optimizer, group: Group, params: list[Tensor], grads: list[Any], states: list[Any]) -> bool:
        if group.get("foreach") is None and not worth_grouping(params):
            return False
        # Readies the group's flat buffers too, for the step that follows (flat_group).
        return prepare_flat_group(opt, group, params, grads, states, keys(group), n_work)

    return register_update(optimizer, device="cpu", kind="foreach", applies=applies, step=step)


def _adam_keys(group: Group) -> tuple[str, ...]:
    return ("exp_avg", "exp_avg_sq", "max_exp_avg_sq") if group["amsgrad"] else ("exp_avg", "exp_avg_sq")


def _rmsprop_keys(group: Group) -> tuple[str, ...]:
    keys = ("square_avg", "grad_avg") if group["centered"] else ("square_avg",)
    return keys + ("momentum_buffer",) if group["momentum"] > 0 else keys


ADAM_FOREACH = _flat_kernel(Adam, adam_foreach, _adam_keys)
RMSPROP_FOREACH = _flat_kernel(RMSprop, rmsprop_foreach, _rmsprop_keys)
ADAGRAD_FOREACH = _flat_kernel(Adagrad, adagrad_foreach, lambda group: ("sum",))
ADADELTA_FOREACH = _flat_kernel(Adadelta, adadelta_foreach, lambda group: ("square_avg", "acc_delta"), n_work=2)
