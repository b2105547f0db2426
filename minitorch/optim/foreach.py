"""The ``foreach`` (multi-tensor) step of Adam and AdamW: a group's parameters as one flat array.

Why: one Adam update is about ten array operations per parameter. For a small model each
NumPy call costs a microsecond of Python and dispatch whatever the array's size, so a
64-128-10 MLP (four parameters) spends its step on 44 tiny calls. Here the same ten
operations run once, on one long array that holds the whole group:

    grads   [ g_w1 ......... | g_b1 .. | g_w2 ...... | g_b2 ]   concatenated each step
    exp_avg [ m_w1 ......... | m_b1 .. | m_w2 ...... | m_b2 ]   kept flat between steps

and each parameter then takes its slice of the result: ``p.data -= update[a:b]``.

Every operation is elementwise and done in the same order as in the per-parameter loop,
so the numbers are bit for bit the same: only the number of calls changes.

``optimizer.state[p]`` keeps its usual form (``{"step": 3, "exp_avg": array shaped like
p, ...}``) because its arrays are *views* into the flat buffers: writing one writes the
flat buffer, and nothing is copied per step. Whenever those entries stop being our views
(the first step, ``load_state_dict``, a user assigning new arrays, a different set of
parameters with gradients) the flat buffers are rebuilt from the current per-parameter
state and the entries pointed at the new views.

The grouped step applies only where it gives the same result as the loop. Anything else
(GPU arrays, which have their own fused kernel per parameter; mixed dtypes; parameters at
different step counts, e.g. one that had no gradient on some step) makes these functions
return False, and the optimizer runs its per-parameter loop instead. That holds for
``foreach=True`` too: the request is for speed, never for different numbers.

When it pays: the flat step adds one pass over the data (concatenating the gradients) and
works on arrays too long to stay in cache, so it is *slower* for one parameter alone and
for large ones (measured, OPENBLAS_NUM_THREADS=1: 0.6x the loop's time for the MLP above,
1.1x for a single 64k-element parameter, 1.4x for sixteen 256k-element ones). So
``foreach=None`` groups only several small parameters (see ``worth_grouping``), and
``foreach=True`` groups whatever it can, as asked.

SGD has no flat step here: its loop is only four operations per parameter, and measured
flat it was no faster.

One difference that is not about dtypes: if two *different* parameters share memory (two
Tensors viewing one array), the loop updates one before reading the other, while the
grouped step reads both first. Tied weights are one Parameter object, so models do not
do this.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minitorch.tensor import Tensor


class FlatGroup:
    """One parameter group's state buffers, each kept as one flat array, plus scratch space.

    ``params[i]`` occupies ``[offsets[i], offsets[i + 1])`` of every flat array;
    ``views[key][i]`` is that slice shaped like the parameter, the very object stored in
    ``optimizer.state[params[i]][key]``. ``grad`` and ``work`` are reused every step so
    the step allocates nothing.
    """

    __slots__ = ("params", "shapes", "dtype", "flat", "views", "grad", "work", "work_views")

    def __init__(self, params: list[Tensor], arrays: list[np.ndarray], keys: tuple[str, ...]) -> None:
        self.params = params
        self.shapes = [a.shape for a in arrays]
        self.dtype = arrays[0].dtype
        offsets = [0]
        for a in arrays:
            offsets.append(offsets[-1] + a.size)
        total = offsets[-1]

        def views_of(flat: np.ndarray) -> list[np.ndarray]:
            # A contiguous slice reshaped is a view (never a copy), 0-d parameters included.
            return [flat[a:b].reshape(shape) for a, b, shape in zip(offsets, offsets[1:], self.shapes)]

        self.flat = {key: np.empty(total, self.dtype) for key in keys}
        self.views = {key: views_of(flat) for key, flat in self.flat.items()}
        self.grad = np.empty(total, self.dtype)
        self.work = np.empty(total, self.dtype)
        self.work_views = views_of(self.work)

    def is_current(self, params: list[Tensor], datas: list[np.ndarray], entries: list[Any]) -> bool:
        """True if the state of ``params`` is still exactly our views (so the flat buffers hold it).

        Identity checks only: the same parameters in the same order and shapes, and each
        state entry the very view object we made. ``view.base is flat`` catches a copied
        optimizer (copy.deepcopy, pickle), whose views are no longer views of anything.
        """
        if len(params) != len(self.params) or datas[0].dtype != self.dtype:
            return False
        for i, (p, data, entry) in enumerate(zip(params, datas, entries)):
            if p is not self.params[i] or entry is None or data.shape != self.shapes[i]:
                return False
            for key, views in self.views.items():
                if entry.get(key) is not views[i]:
                    return False
        return all(views[0].base is self.flat[key] for key, views in self.views.items())


def _gather(group: dict[str, Any], state: dict[Tensor, Any]) -> tuple[list, list, list, list] | None:
    """The params with a gradient, their data, gradients and state entries; None if not all alike.

    Alike: NumPy arrays (not CuPy, not a subclass) of one floating dtype, each gradient
    the parameter's dtype and shape. Parameters without a gradient are skipped, as by
    the loop.
    """
    params, datas, grads, entries = [], [], [], []
    dtype = None
    for p in group["params"]:
        grad = p.grad
        if grad is None:
            continue
        data, g = p.data, grad.data
        if dtype is None:
            dtype = data.dtype
            if dtype.kind != "f":
                return None
        if (
            type(data) is not np.ndarray
            or type(g) is not np.ndarray
            or data.dtype != dtype
            or g.dtype != dtype
            or g.shape != data.shape
        ):
            return None
        params.append(p)
        datas.append(data)
        grads.append(g)
        entries.append(state.get(p))
    return params, datas, grads, entries


def _flat_state(
    optimizer: Any,
    group: dict[str, Any],
    params: list,
    datas: list,
    entries: list,
    keys: tuple[str, ...],
    new_entry: dict[str, Any],
) -> FlatGroup | None:
    """The group's FlatGroup, rebuilt from the per-parameter state if that changed; None if it can't be.

    ``keys`` name the arrays kept flat. ``new_entry`` is the state of a parameter's first
    step without its arrays (Adam: ``{"step": 0}``); the arrays start at zeros and
    ``entries`` gets the new dicts. An existing entry must hold NumPy arrays of the
    parameter's shape and dtype (else None: the loop handles it, or reports what is wrong
    with it exactly as it always did).
    """
    caches: dict[int, FlatGroup] = optimizer.__dict__.setdefault("_foreach_buffers", {})
    cache = caches.get(id(group))
    if cache is not None and cache.is_current(params, datas, entries):
        return cache
    if len({id(p) for p in params}) != len(params):
        return None  # a parameter listed twice is updated twice in a row by the loop
    dtype = datas[0].dtype
    for entry, data in zip(entries, datas):
        if entry is None:
            continue
        for key in keys:
            array = entry.get(key)
            if type(array) is not np.ndarray or array.dtype != dtype or array.shape != data.shape:
                return None
    cache = FlatGroup(params, datas, keys)
    for i, p in enumerate(params):
        entry = entries[i]
        if entry is None:
            entry = entries[i] = optimizer.state[p] = dict(new_entry)
            for key in keys:
                cache.views[key][i][...] = 0
        else:
            for key in keys:
                cache.views[key][i][...] = entry[key]  # copy the values in, then point at them
        for key in keys:
            entry[key] = cache.views[key][i]
    caches[id(group)] = cache  # found by the group's id; is_current never trusts a stale one
    return cache


# Where the flat step stops paying (measured on one core, float32 and float64 alike): a
# parameter's ten calls cost ~7 µs of overhead, which the flat step saves, against one
# more pass over memory, which it adds and which grows with the size.
SMALL_PARAM_BYTES = 32 * 1024  # on average per parameter
MAX_GROUP_BYTES = 4 * 1024 * 1024  # beyond this the flat arrays fall out of cache


def worth_grouping(datas: list[np.ndarray]) -> bool:
    """Whether the flat step is expected to beat the loop: several parameters, small on average."""
    nbytes = sum(d.nbytes for d in datas)
    return len(datas) >= 2 and nbytes <= SMALL_PARAM_BYTES * len(datas) and nbytes <= MAX_GROUP_BYTES


# ---------------------------------------------------------------------- Adam and AdamW
ADAM_KEYS = ("exp_avg", "exp_avg_sq")


def adam_step(optimizer: Any, group: dict[str, Any], decoupled: bool, only_if_faster: bool) -> bool:
    """One Adam (``decoupled=False``) or AdamW step of ``group`` on flat arrays; False if not taken.

    Not taken when the group can't be done flat with the same numbers, or, with
    ``only_if_faster`` (``foreach=None``), when ``worth_grouping`` says the loop is faster.
    The arithmetic below is the per-parameter loop of ``Adam._update`` line for line, with
    the group's flat arrays in place of each parameter's: the same operations in the
    same order, so the results are identical to the last bit.
    """
    gathered = _gather(group, optimizer.state)
    if gathered is None:
        return False
    params, datas, grads, entries = gathered
    if not params:
        return True  # nothing has a gradient: nothing to do, as in the loop
    if only_if_faster and not worth_grouping(datas):
        return False
    steps = {0 if entry is None else entry.get("step") for entry in entries}
    if len(steps) != 1 or type(next(iter(steps))) is not int:
        return False  # one bias correction for the whole group needs one step count
    cache = _flat_state(optimizer, group, params, datas, entries, ADAM_KEYS, {"step": 0})
    if cache is None:
        return False
    t = steps.pop() + 1
    for entry in entries:
        entry["step"] = t

    lr, (beta1, beta2), eps, weight_decay = group["lr"], group["betas"], group["eps"], group["weight_decay"]
    m, v, g, work = cache.flat["exp_avg"], cache.flat["exp_avg_sq"], cache.grad, cache.work
    np.concatenate([x.reshape(-1) for x in grads], out=g)  # reshape(-1): C order, as the views
    if weight_decay and not decoupled:  # loop: g = g + weight_decay * p
        np.concatenate([d.reshape(-1) for d in datas], out=work)
        work *= weight_decay
        g += work
    m *= beta1  # loop: m *= beta1; m += (1 - beta1) * g
    np.multiply(g, 1 - beta1, out=work)
    m += work
    v *= beta2  # loop: v *= beta2; v += (1 - beta2) * (g * g)
    np.multiply(g, g, out=work)
    work *= 1 - beta2
    v += work
    step_size = lr / (1 - beta1**t)
    np.sqrt(v, out=work)  # loop: denom = sqrt(v) / sqrt(1 - beta2**t) + eps; update = m / denom * step_size
    work /= math.sqrt(1 - beta2**t)
    work += eps
    np.divide(m, work, out=work)
    work *= step_size
    decay = 1 - lr * weight_decay if weight_decay and decoupled else None
    for p, data, update in zip(params, datas, cache.work_views):
        if decay is not None:  # AdamW shrinks p first; its update does not read p, so here is the same
            data *= decay
        data -= update
        p._bump_version()  # p changed in place: a graph that saved it is now stale
    return True

