"""``minitorch.autograd.functional``: Jacobians, Hessians and their products, as PyTorch's.

Every function here is a few calls of ``autograd.grad``, the same engine as ``backward``:

- ``vjp(f, x, v)``: v^T J, one backward pass from v.
- ``jvp(f, x, v)``: J v, from two backward passes: g(u) = J^T u is linear in u, so the
  gradient of g(u) . v with respect to u is J v (the "double-backward trick"; PyTorch's too).
- ``vhp(f, x, v)``: v^T H for a scalar f, the gradient of (grad f) . v: a backward of a
  recorded backward (``create_graph=True``).
- ``hvp(f, x, v)``: H v, by the double-backward trick (no symmetry assumed; for a twice
  differentiable f it equals vhp, which costs one pass less).
- ``jacobian(f, x)``, ``hessian(f, x)``: the whole matrices, one backward per output element.

As in PyTorch, ``inputs`` is a Tensor or a tuple of them and the results have the same
structure; without ``create_graph`` the results are detached; ``strict=True`` raises when an
output does not depend on an input (else that part is zeros); ``vectorize=True`` is not
supported (MiniTorch has no vmap) and says so.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from minitorch import backends
from minitorch.autograd.grad_mode import enable_grad
from minitorch.autograd.gradients import grad
from minitorch.autograd.graph_arrays import NUMPY_FUNCTIONS
from minitorch.errors import MiniTorchError
from minitorch.tensor_base import TensorBase


def _as_tuple(name: str, fn_name: str, value: Any) -> tuple[bool, tuple[Any, ...]]:
    """(whether ``value`` was a tuple, ``value`` as a tuple of Tensors), with PyTorch's checks."""
    is_tuple = isinstance(value, (tuple, list))
    values = tuple(value) if is_tuple else (value,)
    for i, v in enumerate(values):
        if not isinstance(v, TensorBase):
            raise TypeError(
                f"The {name} given to {fn_name} must be either a Tensor or a tuple of Tensors but the "
                f"value at index {i} has type {type(v).__name__}."
            )
    return is_tuple, values


def _prepare(inputs: tuple[Any, ...], create_graph: bool) -> tuple[Any, ...]:
    """Inputs that require grad: graph-connected copies under create_graph, fresh leaves otherwise."""
    prepared = []
    for t in inputs:
        if create_graph and t.requires_grad:
            prepared.append(NUMPY_FUNCTIONS["reshape"](t, tuple(t.shape)))  # a view in the graph
        else:
            prepared.append(TensorBase._make(t.data, None, True))
    return tuple(prepared)


def _finish(values: tuple[Any, ...], create_graph: bool) -> tuple[Any, ...]:
    """Results, detached unless create_graph."""
    if create_graph:
        return values
    return tuple(None if v is None else TensorBase._make(v.data, None, False) for v in values)


def _fill_unused(
    grads: tuple[Any, ...], like: tuple[Any, ...], strict: bool, fn_name: str, what: str
) -> tuple[Any, ...]:
    """Zeros where an input did not take part (an error under ``strict``)."""
    filled = []
    for i, (g, t) in enumerate(zip(grads, like)):
        if g is None:
            if strict:
                raise MiniTorchError(
                    f"{fn_name}: the output of the user-provided function is independent of input {i}. "
                    f"This is not allowed in strict mode{what}."
                )
            g = TensorBase._make(backends.module_of(t.data).zeros_like(t.data), None, False)
        filled.append(g)
    return tuple(filled)


def _check_v(v: Any, like: tuple[Any, ...], fn_name: str, name: str) -> tuple[Any, ...]:
    _, vs = _as_tuple(name, fn_name, v)
    if len(vs) != len(like):
        raise MiniTorchError(f"{fn_name}: {name} has {len(vs)} entries but there are {len(like)}")
    for i, (a, b) in enumerate(zip(vs, like)):
        if tuple(a.shape) != tuple(b.shape):
            raise MiniTorchError(
                f"{fn_name}: entry {i} of {name} has shape {tuple(a.shape)} but the matching value has "
                f"shape {tuple(b.shape)}"
            )
    return vs


def _scalar_output(fn_name: str, outputs: tuple[Any, ...]) -> None:
    if len(outputs) != 1 or outputs[0].data.size != 1:
        raise MiniTorchError(
            f"The function given to {fn_name} should return a single Tensor with one element"
            f" (got {len(outputs)} output(s), the first of shape {tuple(outputs[0].shape)})"
        )


def _structure(is_tuple: bool, values: tuple[Any, ...]) -> Any:
    return values if is_tuple else values[0]


def vjp(func: Callable[..., Any], inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False) -> Any:
    """``(func(inputs), v^T J)``: the vector-Jacobian product at ``inputs``."""
    with enable_grad():
        in_tuple, xs = _as_tuple("inputs", "vjp", inputs)
        xs = _prepare(xs, create_graph)
        out_tuple, outs = _as_tuple("outputs of the user-provided function", "vjp", func(*xs))
        if v is None:
            _scalar_output("vjp", outs)
            vs: tuple[Any, ...] = (None,) * len(outs)
        else:
            vs = _check_v(v, outs, "vjp", "v")
        grads = grad(outs, xs, vs, create_graph=create_graph, allow_unused=True) if any(
            o.requires_grad for o in outs) else (None,) * len(xs)
        grads = _fill_unused(grads, xs, strict, "vjp", "")
    return _structure(out_tuple, _finish(outs, create_graph)), _structure(in_tuple, _finish(grads, create_graph))


def jvp(func: Callable[..., Any], inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False) -> Any:
    """``(func(inputs), J v)``: the Jacobian-vector product, by the double-backward trick."""
    with enable_grad():
        in_tuple, xs = _as_tuple("inputs", "jvp", inputs)
        xs = _prepare(xs, create_graph)
        if v is None:
            if len(xs) != 1 or xs[0].data.size != 1:
                raise MiniTorchError("jvp: v can only be None if the input to the user-provided function is a "
                                     "single Tensor with a single element.")
            vs: tuple[Any, ...] = (TensorBase._make(backends.module_of(xs[0].data).ones_like(xs[0].data), None,
                                                    False),)
        else:
            vs = _check_v(v, xs, "jvp", "v")
        out_tuple, outs = _as_tuple("outputs of the user-provided function", "jvp", func(*xs))
        # u: a dummy cotangent per output; g(u) = J^T u is linear in u, and d(g(u) . v)/du = J v
        us = tuple(TensorBase._make(backends.module_of(o.data).zeros_like(o.data), None, True) for o in outs)
        g = grad(outs, xs, us, create_graph=True, allow_unused=True)
        pairs = [(gi, vi) for gi, vi in zip(g, vs) if gi is not None]
        if not pairs:
            result: tuple[Any, ...] = (None,) * len(outs)
        else:
            result = grad([p[0] for p in pairs], us, [p[1] for p in pairs], create_graph=create_graph,
                          allow_unused=True)
        result = _fill_unused(result, outs, strict, "jvp", " (an output is independent of the inputs)")
    return _structure(out_tuple, _finish(outs, create_graph)), _structure(out_tuple, _finish(result, create_graph))


def vhp(func: Callable[..., Any], inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False) -> Any:
    """``(func(inputs), v^T H)`` for a function with one output element: the gradient of (grad f) . v."""
    with enable_grad():
        in_tuple, xs = _as_tuple("inputs", "vhp", inputs)
        xs = _prepare(xs, create_graph)
        _, outs = _as_tuple("outputs of the user-provided function", "vhp", func(*xs))
        _scalar_output("vhp", outs)
        if v is None:
            if len(xs) != 1 or xs[0].data.size != 1:
                raise MiniTorchError("vhp: v can only be None if the input to the user-provided function is a "
                                     "single Tensor with a single element.")
            vs: tuple[Any, ...] = (TensorBase._make(backends.module_of(xs[0].data).ones_like(xs[0].data), None,
                                                    False),)
        else:
            vs = _check_v(v, xs, "vhp", "v")
        jac = grad(outs, xs, create_graph=True, allow_unused=True) if outs[0].requires_grad else (None,) * len(xs)
        pairs = [(j, x, vi) for j, x, vi in zip(jac, xs, vs) if j is not None and j.requires_grad]
        result: tuple[Any, ...]
        if pairs:
            result = grad([p[0] for p in pairs], xs, [p[2] for p in pairs], create_graph=create_graph,
                          allow_unused=True)
        else:
            result = (None,) * len(xs)
        result = _fill_unused(result, xs, strict, "vhp", "")
    return _finish(outs, create_graph)[0], _structure(in_tuple, _finish(result, create_graph))


def hvp(func: Callable[..., Any], inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False) -> Any:
    """``(func(inputs), H v)`` for a function with one output element (the double-backward trick)."""
    with enable_grad():
        in_tuple, xs = _as_tuple("inputs", "hvp", inputs)
        xs = _prepare(xs, create_graph)
        _, outs = _as_tuple("outputs of the user-provided function", "hvp", func(*xs))
        _scalar_output("hvp", outs)
        if v is None:
            if len(xs) != 1 or xs[0].data.size != 1:
                raise MiniTorchError("hvp: v can only be None if the input to the user-provided function is a "
                                     "single Tensor with a single element.")
            vs: tuple[Any, ...] = (TensorBase._make(backends.module_of(xs[0].data).ones_like(xs[0].data), None,
                                                    False),)
        else:
            vs = _check_v(v, xs, "hvp", "v")
        jac = grad(outs, xs, create_graph=True, allow_unused=True) if outs[0].requires_grad else (None,) * len(xs)
        used = [(j, x) for j, x in zip(jac, xs) if j is not None and j.requires_grad]
        if used:
            # u: a dummy cotangent for the gradient; d(J^T-of-grad(u))/du . v = H v
            us = tuple(TensorBase._make(backends.module_of(j.data).zeros_like(j.data), None, True) for j, _ in used)
            back = grad([j for j, _ in used], xs, us, create_graph=True, allow_unused=True)
            pairs = [(b, vi) for b, vi in zip(back, vs) if b is not None]
            inner = grad([p[0] for p in pairs], us, [p[1] for p in pairs], create_graph=create_graph,
                         allow_unused=True) if pairs else (None,) * len(us)
            by_input = dict(zip([id(x) for _, x in used], inner))
            result = tuple(by_input.get(id(x)) for x in xs)
        else:
            result = (None,) * len(xs)
        result = _fill_unused(result, xs, strict, "hvp", "")
    return _finish(outs, create_graph)[0], _structure(in_tuple, _finish(result, create_graph))


def jacobian(
    func: Callable[..., Any],
    inputs: Any,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    strategy: str = "reverse-mode",
) -> Any:
    """The Jacobian of ``func`` at ``inputs``: for output i and input j, a Tensor of shape
    ``outputs[i].shape + inputs[j].shape`` (nested tuples as in PyTorch)."""
    _refuse_vectorize("jacobian", vectorize, strategy)
    with enable_grad():
        in_tuple, xs = _as_tuple("inputs", "jacobian", inputs)
        xs = _prepare(xs, create_graph)
        out_tuple, outs = _as_tuple("outputs of the user-provided function", "jacobian", func(*xs))
        blocks = []
        for i, out in enumerate(outs):
            rows: list[list[Any]] = [[] for _ in xs]
            xp = backends.module_of(out.data)
            for k in range(out.data.size):
                g: tuple[Any, ...]
                if out.requires_grad:
                    seed = xp.zeros(out.data.size, dtype=out.data.dtype)
                    seed[k] = 1
                    g = grad(out, xs, TensorBase._make(seed.reshape(out.data.shape), None, False),
                             retain_graph=True, create_graph=create_graph, allow_unused=True)
                else:
                    g = (None,) * len(xs)
                g = _fill_unused(g, xs, strict, "jacobian", f" (output {i} is independent of an input)")
                for j in range(len(xs)):
                    rows[j].append(g[j])
            per_input = []
            for j, x in enumerate(xs):
                shape = tuple(out.shape) + tuple(x.shape)
                if rows[j]:
                    stacked = NUMPY_FUNCTIONS["stack"](rows[j], 0)
                    per_input.append(NUMPY_FUNCTIONS["reshape"](stacked, shape))
                else:  # an output with no elements
                    per_input.append(TensorBase._make(backends.module_of(x.data).zeros(shape, x.data.dtype), None,
                                                      False))
            blocks.append(_finish(tuple(per_input), create_graph))
    if out_tuple:
        return tuple(_structure(in_tuple, b) for b in blocks)
    return _structure(in_tuple, blocks[0])


def hessian(
    func: Callable[..., Any],
    inputs: Any,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    outer_jacobian_strategy: str = "reverse-mode",
) -> Any:
    """The Hessian of a function with one output element: the Jacobian of its gradient."""
    _refuse_vectorize("hessian", vectorize, outer_jacobian_strategy)
    in_tuple, xs = _as_tuple("inputs", "hessian", inputs)

    def gradient(*values: Any) -> Any:
        out_tuple, outs = _as_tuple("outputs of the user-provided function", "hessian", func(*values))
        _scalar_output("hessian", outs)
        g = grad(outs, values, create_graph=True, allow_unused=True) if outs[0].requires_grad else (None,) * len(
            values)
        filled = _fill_unused(g, values, strict, "hessian", "")
        return filled if in_tuple else filled[0]

    return jacobian(gradient, inputs if in_tuple else xs[0], create_graph=create_graph, strict=strict)


def _refuse_vectorize(fn_name: str, vectorize: bool, strategy: str) -> None:
    if vectorize:
        raise MiniTorchError(
            f"{fn_name}: vectorize=True needs vmap, which MiniTorch does not have; leave it False "
            "(the same results, one backward per output element)"
        )
    if strategy != "reverse-mode":
        raise MiniTorchError(f"{fn_name}: only the 'reverse-mode' strategy is supported, got {strategy!r}")


__all__ = ["hessian", "hvp", "jacobian", "jvp", "vhp", "vjp"]
