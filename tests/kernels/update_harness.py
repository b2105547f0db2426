"""One check for every bulk update kernel: it leaves what the optimizer's formula leaves.

``check_update_kernel(kernel, make_optimizer, values, grad_steps)`` builds two optimizers
with ``make_optimizer`` on two copies of the parameters ``values`` (each laid out as given:
C or Fortran order, strided, 0-d, empty), gives both the same gradients at every step, and
steps one with the fast kernels off (``_update_parameter``, parameter by parameter: the
reference) and the other with them on, where ``kernel`` must be the one chosen for every
group at every step. After each step it compares the parameters, every state entry (the
same keys, the same ``step`` counts, the arrays to the dtype's rounding) and how far each
parameter's version counter moved (a graph that saved it must see it changed).

Tolerances are the dtype's rounding, for a few steps of gradients that do not depend on
the parameters (no chaotic trajectory): a kernel may compute in another order, never
compute something else.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import minitorch
from minitorch.kernels import UpdateKernel, use_fast_kernels

TOLERANCES = {np.float16: (5e-3, 5e-3), np.float32: (2e-6, 2e-7), np.float64: (1e-12, 1e-14)}


def same_layout(array: np.ndarray) -> np.ndarray:
    """A fresh copy of ``array`` laid out the same way: C order, Fortran order, or strided."""
    if array.flags.c_contiguous or array.flags.f_contiguous:
        return array.copy(order="K")
    wide = np.empty(array.shape[:-1] + (2 * array.shape[-1],), array.dtype)
    view = wide[..., ::2]  # every other column: contiguous neither way
    view[...] = array
    return view


def make_params(values: list[np.ndarray]) -> list[minitorch.Tensor]:
    """Leaf tensors holding copies of ``values``, each ``.data`` in its value's layout."""
    params = []
    for value in values:
        p = minitorch.tensor(np.zeros(value.shape, value.dtype), requires_grad=True)
        p.data = same_layout(value)  # set directly: minitorch.tensor would make it C-contiguous
        params.append(p)
    return params


def set_grads(params: list[minitorch.Tensor], grads: list[np.ndarray | None]) -> None:
    """``p.grad`` of each parameter: a tensor with the given values and layout, or None."""
    for p, g in zip(params, grads):
        if g is None:
            p.grad = None
        else:
            grad = minitorch.tensor(np.zeros(g.shape, g.dtype))
            grad.data = same_layout(g)
            p.grad = grad


def record_choices(optimizer: minitorch.optim.Optimizer) -> list[Any]:
    """A list that gets the kernel (or None: the formula) ``optimizer`` chooses for each group step."""
    chosen: list[Any] = []
    choose = optimizer._choose_kernel

    def recording(*args: Any) -> Any:
        chosen.append(choose(*args))
        return chosen[-1]

    optimizer._choose_kernel = recording  # an instance attribute: this optimizer only
    return chosen


def assert_close(what: str, got: Any, want: Any) -> None:
    """Same type of value; arrays of the same shape and dtype, equal to the dtype's rounding."""
    if not isinstance(want, np.ndarray):
        assert type(got) is type(want) and got == want, f"{what}: {got!r}, reference {want!r}"
        return
    assert isinstance(got, np.ndarray), f"{what}: {type(got).__name__}, reference an array"
    same = got.shape == want.shape and got.dtype == want.dtype
    assert same, f"{what}: {got.dtype}{got.shape}, reference {want.dtype}{want.shape}"
    rtol, atol = TOLERANCES[want.dtype.type]
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=what)


def assert_same_state(
    params: list[minitorch.Tensor], opt: Any, ref_params: list[minitorch.Tensor], ref: Any, what: str
) -> None:
    """Parameters and every state entry as the reference's."""
    for i, (p, q) in enumerate(zip(params, ref_params)):
        assert_close(f"{what}: parameter {i}", p.data, q.data)
        state, ref_state = opt.state.get(p), ref.state.get(q)
        assert (state is None) == (ref_state is None), f"{what}: state of parameter {i}"
        if state is None:
            continue
        assert list(state) == list(ref_state), f"{what}: state keys of parameter {i}"
        for key in state:
            assert_close(f"{what}: {key} of parameter {i}", state[key], ref_state[key])


def check_update_kernel(
    kernel: UpdateKernel,
    make_optimizer: Callable[[list[minitorch.Tensor]], Any],
    values: list[np.ndarray],
    grad_steps: list[list[np.ndarray | None]],
) -> None:
    """Assert that ``kernel`` runs every group step and agrees with the formula (see the module doc)."""
    ref_params, params = make_params(values), make_params(values)
    ref, opt = make_optimizer(ref_params), make_optimizer(params)
    chosen = record_choices(opt)
    for step, grads in enumerate(grad_steps):
        set_grads(ref_params, grads)
        set_grads(params, grads)
        versions = [p._version for p in ref_params + params]
        with use_fast_kernels(False):
            ref.step()
        with use_fast_kernels(True):
            opt.step()
        assert chosen == [kernel] * len(opt.param_groups), f"step {step}: {kernel} was not chosen (got {chosen})"
        chosen.clear()
        assert_same_state(params, opt, ref_params, ref, f"{kernel.name}, step {step}")
        bumps = [p._version - v for p, v in zip(ref_params + params, versions)]
        assert bumps[len(params) :] == bumps[: len(params)], f"{kernel.name}, step {step}: version bumps {bumps}"
