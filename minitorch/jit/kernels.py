"""Replay kernels: an op's NumPy work written out as lines of code on buffers made once.

The compiled path's second tier (``lowering.py``). For an op registered here, the trace's
program does not call ``Function.forward``/``backward`` on replay: the generated step
function holds the op's array calls themselves, each result written with ``out=`` into a
buffer allocated when the step was traced. The eager op is untouched (nothing in the engine
knows these exist); an op without a kernel keeps the whole program on the op-by-op replay.

Each kernel makes **the same NumPy calls in the same order** as the eager op's CPU path
(its fast kernel in ``minitorch/kernels/cpu/``, which eager runs unless the fast kernels are
off: then the kernel here declines), on the same dtypes: a ufunc or ``matmul`` writing into
``out=`` computes what it would have returned, so a replay gives the eager step's bits
(tests/jit/test_bit_identical.py).
Where the eager op would take another path (float16, an option the kernel does not write
out), the kernel returns a reason instead, before writing anything, and the generated code
calls that op's own forward and backward (``op_calls.py``), as for an op with no kernel.

A kernel is ``kernel(op, code)``: ``op`` (an ``OpView``) names the op's arguments in the
generated code and holds what the trace saw of them; ``code`` (``lowering.Code``) takes
lines, buffers and constants. It returns the op's backward kernel, a function
``backward(grad, targets)`` that writes the lines assigning each requested input gradient
(``targets[i]``: a name, or None when not needed), or None when the op kept no node.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from minitorch.autograd.function import fast_kernel
from minitorch.functions.bounds import as_unsigned, labels_in_range
from minitorch.functions.fused import Linear, SoftmaxCrossEntropy
from minitorch.functions.unary import ReLU, Tanh
from minitorch.kernels.cpu import cross_entropy as cross_entropy_kernel
from minitorch.kernels.cpu import linear as linear_kernel
from minitorch.kernels.cpu.blas_sums import sum_leading

FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


@dataclass
class OpView:
    """One recorded op as a kernel sees it."""

    name: str  # "Linear"
    args: list[str]  # each argument's name in the generated code
    values: list[Any]  # what the trace saw: the array (for its shape and dtype) or the constant
    out: str  # the name to assign the output to
    result: Any  # the traced output array
    node: Any  # the traced backward node (its settings: reduction...), or None
    is_input: list[bool]  # each argument is a step input (checks on it may run before the replay)
    leaf_target: list[bool]  # the gradient of argument i goes straight into a leaf's .grad (must be fresh)


def _plain(*arrays: Any) -> bool:
    """NumPy arrays (not CuPy, not float16) of one float dtype: the eager op's CPU path."""
    return all(type(a) is np.ndarray and a.dtype in FLOATS and a.dtype == arrays[0].dtype for a in arrays)


def _eager_runs(kernel: Any, op_type: type, values: list[Any]) -> bool:
    """Whether eager runs ``kernel`` (minitorch/kernels/) for these arguments: the lines written
    out here are its calls. With the fast kernels off, eager runs the op as written in
    functions/, and so does the replay (op by op)."""
    return fast_kernel(op_type, "cpu", values) is kernel


def _into(op: OpView, code: Any, i: int, like: Any) -> str:
    """The ``, out=buffer`` argument for input ``i``'s gradient; none for a leaf's (its ``.grad`` must be fresh)."""
    return "" if op.leaf_target[i] else f", out={code.buffer(like)}"


def linear(op: OpView, code: Any) -> Any:
    """``Linear`` on a batch of rows, as its fast kernel (kernels/cpu/linear.py): ``out = x @ W.T; out += b``;
    back ``g @ W``, ``g.T @ x``, ``sum_leading(g)``."""
    x, w, b = op.values
    if not _plain(x, w) or (b is not None and not _plain(x, b)) or x.ndim != 2:
        return "only a batch of rows (2-D), float32/float64 NumPy arrays, is written out"
    if not _eager_runs(linear_kernel.BLAS, Linear, op.values):
        return "eager runs the op as written (fast kernels off)"
    xn, wn, bn = op.args
    out = code.buffer(op.result)
    code.line(f"matmul({xn}, {wn}.T, out={out})")
    if b is not None:
        code.line(f"add({out}, {bn}, out={out})")
    code.line(f"{op.out} = {out}")
    code.reused(op.out)
    if op.node is None:
        return None

    def backward(grad: str, targets: list[Any]) -> None:
        gx, gw, gb = targets
        if gx is not None:
            code.line(f"{gx} = matmul({grad}, {wn}{_into(op, code, 0, x)})")
        if gw is not None:
            code.line(f"{gw} = matmul({grad}.T, {xn}{_into(op, code, 1, w)})")
        if gb is not None:  # the eager op's own sum (a product with ones where that is faster): its bits
            ones = code.value(np.ones(x.shape[0], x.dtype), "ones")
            code.line(f"{gb} = sum_leading({grad}, ones={ones}{_into(op, code, 2, b)})")

    return backward


def relu(op: OpView, code: Any) -> Any:
    """``ReLU``: ``maximum(a, 0)``; back ``grad * (out != 0)``."""
    (a,) = op.values
    if not _plain(a):
        return "only float32/float64 NumPy arrays are written out"
    out = code.buffer(op.result)
    code.line(f"{op.out} = maximum({op.args[0]}, 0, out={out})")
    code.reused(op.out)
    if op.node is None:
        return None
    mask = code.buffer(op.result, bool)

    def backward(grad: str, targets: list[Any]) -> None:
        if targets[0] is not None:
            code.line(f"{targets[0]} = multiply({grad}, not_equal({op.out}, 0, out={mask}){_into(op, code, 0, a)})")

    return backward


def tanh(op: OpView, code: Any) -> Any:
    """``Tanh``: ``tanh(a)``; back ``grad * (1 - out * out)``."""
    (a,) = op.values
    if not _plain(a):
        return "only float32/float64 NumPy arrays are written out"
    out = code.buffer(op.result)
    code.line(f"{op.out} = tanh({op.args[0]}, out={out})")
    code.reused(op.out)
    if op.node is None:
        return None

    def backward(grad: str, targets: list[Any]) -> None:
        if targets[0] is not None:
            code.line(f"{targets[0]} = {grad} * (1 - {op.out} * {op.out})")

    return backward


def cross_entropy(op: OpView, code: Any) -> Any:
    """``SoftmaxCrossEntropy`` on the CPU, every label a class (no weights): the lines of its fast
    kernel (kernels/cpu/cross_entropy.py), on buffers."""
    logits, target, reduction = op.values[:3]
    if not _plain(logits) or logits.ndim != 2 or any(v is not None for v in op.values[3:4]):
        return "only float32/float64 NumPy logits without class weights are written out"
    if reduction not in ("mean", "sum") or op.node is None or op.node.row_weight is not None:
        return f"reduction={reduction!r} with these labels is not written out"
    if not op.is_input[1]:
        return "labels computed inside the step are not written out (their range is checked before the replay)"
    if not _eager_runs(cross_entropy_kernel.IN_PLACE, SoftmaxCrossEntropy, op.values):
        return "eager runs the op as written (fast kernels off)"
    n, c = logits.shape
    scale_dtype = (np.ones((), op.result.dtype) / n if reduction == "mean" else np.ones((), op.result.dtype)).dtype
    if scale_dtype != logits.dtype:
        return "a loss gradient of another dtype than the logits is not written out"
    ln, tn = op.args[:2]
    # The eager forward checks the labels every call; an ignored or bad label changes its path
    # (weights, or an error): then the replay falls back to the op-by-op one, which does as eager.
    if target.dtype.kind == "i":  # the one max() of bounds.labels_in_range, on the host
        code.check(f"not {tn}.size or int({tn}.view({code.value(as_unsigned(target).dtype, 'u')}).max()) < {c}")
    else:
        code.check(f"labels_in_range({tn}, {c})")
    rows = code.value(np.arange(n), "rows")
    top = code.buffer(np.empty((n, 1), logits.dtype))
    shifted, probs, total = code.buffer(logits), code.buffer(logits), code.buffer(np.empty((n, 1), logits.dtype))
    log_total = code.buffer(np.empty(n, logits.dtype))
    losses = code.buffer(np.empty(n, logits.dtype))
    divide_by = f" / {n}" if reduction == "mean" else ""
    code.lines(
        f"subtract({ln}, {ln}.max(axis=1, keepdims=True, out={top}), out={shifted})",
        f"exp({shifted}, out={probs})",
        f"{probs}.sum(axis=1, keepdims=True, out={total})",
        f"subtract(log({total}[:, 0], out={log_total}), {shifted}[{rows}, {tn}], out={losses})",
        f"divide({probs}, {total}, out={probs})",
        f"{op.out} = asarray({losses}.sum(){divide_by})",
    )

    def backward(grad: str, targets: list[Any]) -> None:
        g = targets[0]
        if g is None:
            return
        into = code.buffer(logits) if not op.leaf_target[0] else None
        code.line(f"{g} = {probs}.copy()" if into is None else f"{g} = {into}; copyto({g}, {probs})")
        code.line(f"{g}[{rows}, {tn}] -= 1")
        code.line(f"{g} *= {grad}{divide_by}")

    return backward


KERNELS: dict[type, Any] = {
    Linear: linear,
    ReLU: relu,
    Tanh: tanh,
    SoftmaxCrossEntropy: cross_entropy,
}

# What generated code may call, by name (its module namespace).
NAMESPACE: dict[str, Any] = {
    name: getattr(np, name)
    for name in ("add", "asarray", "copyto", "divide", "exp", "log", "matmul", "maximum", "multiply", "not_equal")
    + ("subtract", "tanh")
}
NAMESPACE["labels_in_range"] = labels_in_range
NAMESPACE["sum_leading"] = sum_leading
