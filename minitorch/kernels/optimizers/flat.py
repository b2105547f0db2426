"""A parameter group as one flat array: what the ``foreach`` update kernels share.

Why it is faster: one Adam update is about ten array operations per parameter, and for a
small model each NumPy call costs more in Python and dispatch than in arithmetic, so a
64-128-10 MLP (four parameters) spends its step on 44 tiny calls. A flat step runs the
same ten operations once, on one long array that holds the whole group:

    grads   [ g_w1 ......... | g_b1 .. | g_w2 ...... | g_b2 ]   concatenated each step
    exp_avg [ m_w1 ......... | m_b1 .. | m_w2 ...... | m_b2 ]   kept flat between steps

and each parameter then takes its slice of the result: ``p.data -= update[a:b]``.

The flat steps themselves are in ``foreach.py``, one per optimizer, each written as the
optimizer's formula (``_update_parameter`` in ``minitorch/optim/``) with the group's flat
arrays in place of one parameter's: every operation is elementwise and done in the same
order, so the numbers are the formula's; only the number of calls changes. This module
holds what they share: the flat buffers (``FlatGroup``), the test of whether a flat step
gives the formula's numbers at all (``prepare_flat_group``) and whether it is expected to
be faster (``worth_grouping``).

``optimizer.state[p]`` keeps its usual form (``{"step": 3, "exp_avg": array shaped like
p, ...}``) because its arrays are *views* into the flat buffers: writing one writes the
flat buffer, and nothing is copied per step. Whenever those entries stop being our views
(the first step, ``load_state_dict``, a user assigning new arrays, a different set of
parameters with gradients, a step taken by the formula) the flat buffers are rebuilt from
the current per-parameter state and the entries pointed at the new views.

When it pays: the flat step adds one pass over the data (concatenating the gradients) and
works on arrays too long to stay in cache, so it is *slower* for one parameter alone and
for large ones (docs/benchmarks.md has the measurements). So ``foreach=None`` groups only
several small parameters (``worth_grouping``), and ``foreach=True`` groups whatever it can,
as asked.

One difference that is not about dtypes: if two *different* parameters share memory (two
Tensors viewing one array), the formula updates one before reading the other, while the
grouped step reads both first. Tied weights are one Parameter object, so models do not
do this.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitorch.tensor import Tensor


class FlatGroup:
    """One parameter group's state buffers, each kept as one flat array, plus scratch space.

    ``params[i]`` occupies ``[offsets[i], offsets[i + 1])`` of every flat array;
    ``views[key][i]`` is that slice shaped like the parameter, the very object stored in
    ``optimizer.state[params[i]][key]``. ``grad`` and the ``work`` arrays are reused every
    step so the step allocates nothing; ``work_views[k][i]`` is parameter i's slice of
    ``work[k]``, from which the step subtracts its update.
    """

    __slots__ = ("params", "shapes", "dtype", "keys", "flat", "views", "grad", "work", "work_views")

    def __init__(self, params: list[Tensor], arrays: list[np.ndarray], keys: tuple[str, ...], n_work: int) -> None:
        self.params = params
        self.shapes = [a.shape for a in arrays]
        self.dtype = arrays[0].dtype
        self.keys = keys
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
        self.work = [np.empty(total, self.dtype) for _ in range(n_work)]
        self.work_views = [views_of(work) for work in self.work]

    def is_current(self, params: list[Tensor], datas: list[np.ndarray], states: list[dict[str, Any]]) -> bool:
        """True if the state of ``params`` is still exactly our views (so the flat buffers hold it).

        Identity checks only: the same parameters in the same order and shapes, and each
        state entry the very view object we made. ``view.base is flat`` catches a copied
        optimizer (copy.deepcopy, pickle), whose views are no longer views of anything.
        """
        if len(params) != len(self.params) or datas[0].dtype != self.dtype:
            return False
        for i, (p, data, state) in enumerate(zip(params, datas, states)):
            if p is not self.params[i] or data.shape != self.shapes[i]:
                return False
            for key, views in self.views.items():
                if state.get(key) is not views[i]:
                    return False
        for key, views in self.views.items():
            if views[0].base is not self.flat[key]:
                return False
        return True


def _alike(datas: list[Any], grads: list[Any]) -> bool:
    """NumPy arrays (not CuPy, not a subclass) of one floating dtype, each gradient its parameter's shape."""
    dtype = datas[0].dtype
    if dtype.kind != "f":
        return False
    for data, g in zip(datas, grads):
        if (
            type(data) is not np.ndarray
            or type(g) is not np.ndarray
            or data.dtype != dtype
            or g.dtype != dtype
            or g.shape != data.shape
        ):
            return False
    return True


def _cached(optimizer: Any, group: dict[str, Any], keys: tuple[str, ...], n_work: int) -> FlatGroup | None:
    """The FlatGroup last built for ``group`` with these keys and scratch arrays, or None."""
    cache = optimizer.__dict__.get("_foreach_buffers", {}).get(id(group))
    if cache is None or cache.keys != keys or len(cache.work) != n_work:
        return None
    return cache


def prepare_flat_group(
    optimizer: Any,
    group: dict[str, Any],
    params: list[Tensor],
    grads: list[Any],
    states: list[dict[str, Any]],
    keys: tuple[str, ...],
    n_work: int,
) -> bool:
    """Whether a flat step over these lists gives exactly the numbers of the per-parameter formula.

    It does when the arrays are alike (NumPy, one floating dtype: no GPU arrays, no mixed
    dtypes), every parameter is at the same step count (one bias correction or decayed lr
    for the whole group), no parameter is listed twice (the loop would update it twice in
    a row), and each state array named in ``keys`` is a NumPy array of its parameter's
    shape and dtype (else the formula reports what is wrong with it).

    When it does, the group's ``FlatGroup`` (``flat_group``) is made to hold the state
    first: kept if the state entries are still its views, else rebuilt from them (their
    values copied in, each ``states[i][key]`` pointed at its view).
    """
    datas = [p.data for p in params]
    if not _alike(datas, grads):
        return False
    steps = {state.get("step") for state in states}
    if len(steps) != 1 or type(next(iter(steps))) is not int:
        return False
    cache = _cached(optimizer, group, keys, n_work)
    if cache is not None and cache.is_current(params, datas, states):
        return True  # built from these very entries, which passed the checks below then
    if len({id(p) for p in params}) != len(params):
        return False
    dtype = datas[0].dtype
    for state, data in zip(states, datas):
        for key in keys:
            array = state.get(key)
            if type(array) is not np.ndarray or array.dtype != dtype or array.shape != data.shape:
                return False
    cache = FlatGroup(params, datas, keys, n_work)
    for i, state in enumerate(states):
        for key in keys:
            cache.views[key][i][...] = state[key]  # copy the values in, then point at them
            state[key] = cache.views[key][i]
    # found by the group's id; is_current never trusts a stale one
    optimizer.__dict__.setdefault("_foreach_buffers", {})[id(group)] = cache
    return True


def flat_group(optimizer: Any, group: dict[str, Any]) -> FlatGroup:
    """The FlatGroup that ``prepare_flat_group`` just readied for ``group``."""
    flat: FlatGroup = optimizer.__dict__["_foreach_buffers"][id(group)]
    return flat


def gather_flat(flat: FlatGroup, grads: list[np.ndarray], maximize: bool) -> np.ndarray:
    """The gradients concatenated into ``flat.grad`` (negated for ``maximize``), the formula's ``g``."""
    g = flat.grad
    np.concatenate([x.reshape(-1) for x in grads], out=g)  # reshape(-1): C order, as the views
    if maximize:  # the formula's -grad: negation is exact, so the same bits
        np.negative(g, out=g)
    return g


def add_weight_decay(flat: FlatGroup, g: np.ndarray, params: list[Tensor], weight_decay: float) -> None:
    """``g += weight_decay * p`` over the flat group (the formula's ``g = g + weight_decay * p.data``)."""
    work = flat.work[0]
    np.concatenate([p.data.reshape(-1) for p in params], out=work)
    work *= weight_decay
    g += work


def subtract_updates(params: list[Tensor], updates: list[np.ndarray], decay: float | None = None) -> None:
    """``p.data -= update`` for each parameter and its slice of the flat update (``p.data *= decay`` first)."""
    for p, update in zip(params, updates):
        data = p.data
        if decay is not None:
            data *= decay
        data -= update
        p._bump_version()  # p changed in place: a graph that saved it is now stale


# Where the flat step stops paying (measured on one core, float32 and float64 alike; the
# figures are in docs/benchmarks.md): each parameter's ten calls cost a fixed overhead, which
# the flat step saves, against one more pass over memory, which it adds and which grows
# with the size.
SMALL_PARAM_BYTES = 32 * 1024  # on average per parameter
MAX_GROUP_BYTES = 4 * 1024 * 1024  # beyond this the flat arrays fall out of cache


def worth_grouping(params: list[Tensor]) -> bool:
    """Whether the flat step is expected to beat the formula: several parameters, small on average."""
    nbytes = sum(p.data.nbytes for p in params)
    return len(params) >= 2 and nbytes <= SMALL_PARAM_BYTES * len(params) and nbytes <= MAX_GROUP_BYTES
