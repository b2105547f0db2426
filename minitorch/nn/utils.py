"""``nn.utils``: gradient clipping, as ``torch.nn.utils``.

Recurrent networks are prone to exploding gradients (a product of many Jacobians through
time): ``clip_grad_norm_`` rescales all gradients together when their joint norm is too
large, ``clip_grad_value_`` clamps each element.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np

from minitorch import backends, factories
from minitorch import distributed as dist
from minitorch.errors import MiniTorchError
from minitorch.hints import Array
from minitorch.tensor import Tensor
from minitorch.trace_hooks import replayed


def _with_grads(parameters: Tensor | Iterable[Tensor]) -> list[Tensor]:
    params = [parameters] if isinstance(parameters, Tensor) else list(parameters)
    return [p for p in params if p.grad is not None]  # parameters without a gradient are skipped


def _vector_norm(xp: Any, a: Array, norm_type: float) -> Array:
    """The ``norm_type`` norm of all of ``a`` as one vector, as ``torch.linalg.vector_norm``."""
    magnitude = xp.abs(a)
    if norm_type == math.inf:
        return magnitude.max() if a.size else xp.zeros((), a.dtype)
    if norm_type == -math.inf:
        return magnitude.min() if a.size else xp.asarray(math.inf, a.dtype)
    if norm_type == 0:  # the number of non-zero elements
        return xp.asarray((a != 0).sum(), a.dtype)
    with np.errstate(divide="ignore"):  # 0 ** -p is inf, as in PyTorch
        return (magnitude**norm_type).sum() ** (1.0 / norm_type)


def _whole_tensor_norms(params: list[Tensor], norms: Array, norm_type: float) -> None:
    """Make ``norms[i]`` the norm of parameter i's whole gradient where ``.grad`` holds one rank's shard.

    A tensor-parallel parameter (a DTensor split over its mesh) keeps only its slice of the
    gradient, so its local norm is the slice's: the ranks combine theirs (for a p-norm the
    sum of the p-th powers, for inf the largest), so every rank gets the same total, and the
    same clipping coefficient. Replicated parameters are whole on every rank already.
    """
    for i, p in enumerate(params):
        placements = getattr(p, "placements", None)
        if not placements or not any(placement.is_shard() for placement in placements):
            continue
        if norm_type in (math.inf, -math.inf):
            part, op = norms[i : i + 1].copy(), dist.ReduceOp.MAX if norm_type > 0 else dist.ReduceOp.MIN
        elif norm_type == 0:
            part, op = norms[i : i + 1].copy(), dist.ReduceOp.SUM
        else:
            part, op = norms[i : i + 1] ** norm_type, dist.ReduceOp.SUM
        combined = Tensor._make(part, None, False)
        dist.all_reduce(combined, op=op)
        norms[i] = combined.data[0] if norm_type in (0, math.inf, -math.inf) else combined.data[0] ** (1.0 / norm_type)


@replayed  # minitorch.compile makes this call again on every replay: the norm changes
def clip_grad_norm_(
    parameters: Tensor | Iterable[Tensor],
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """Scale all gradients by max_norm / total_norm when that is < 1; returns the total norm before clipping.

    The total norm is the norm of all gradients seen as one vector (``norm_type`` 2 by
    default, ``inf`` for the largest absolute value), a 0-dim tensor as in PyTorch. As in
    PyTorch it is computed as the norm of the per-parameter norms (the same number for any
    p-norm; ``norm_type=0`` counts the parameters with a non-zero gradient). ``foreach``
    (PyTorch's choice of kernel) changes nothing here.
    """
    norm_type = float(norm_type)  # PyTorch takes "inf" too
    params = _with_grads(parameters)
    if not params:
        return factories.tensor(0.0)
    grads = [p.grad.data for p in params if p.grad is not None]
    xp = backends.module_of(grads[0])
    dtype = xp.result_type(*grads)  # float32 and float64 gradients: the norm is float64, as in PyTorch
    norms = xp.stack([xp.asarray(_vector_norm(xp, g, norm_type), dtype=dtype) for g in grads])
    _whole_tensor_norms(params, norms, norm_type)
    total = xp.asarray(_vector_norm(xp, norms, norm_type), dtype=dtype)
    if error_if_nonfinite and not bool(xp.isfinite(total)):
        raise MiniTorchError(
            f"clip_grad_norm_: the total norm of order {norm_type} of the gradients is non-finite; "
            "set error_if_nonfinite=False to clip anyway"
        )
    # As PyTorch: the coefficient in the norm's dtype, clamped to 1 (never scales up); 1e-6
    # guards a zero norm. A NaN norm gives a NaN coefficient: every gradient becomes NaN.
    coef = dtype.type(max_norm) / (total + dtype.type(1e-6))
    if not coef >= 1.0:
        for g in grads:
            g *= coef.astype(g.dtype)
    return Tensor._make(total, None, False)


@replayed  # minitorch.compile makes this call again on every replay
def clip_grad_value_(parameters: Tensor | Iterable[Tensor], clip_value: float, foreach: bool | None = None) -> None:
    """Clamp every gradient element into [-clip_value, clip_value], in place (``foreach`` changes nothing)."""
    for p in _with_grads(parameters):
        g = p.grad.data if p.grad is not None else None
        if g is not None:
            backends.module_of(g).clip(g, -clip_value, clip_value, out=g)
