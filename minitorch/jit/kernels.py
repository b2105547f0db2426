"""Replay kernels: an op's fast kernel called on buffers made once, written out as lines of code.

The compiled path's second tier (``lowering.py``). For an op whose eager run took a
registered fast kernel that has a *writer* here, the trace's program does not call
``Function.forward``/``backward`` on replay: the generated step function calls that
kernel's own functions (``minitorch/kernels/cpu/``), each given ``out=`` a buffer allocated
when the step was lowered. No op math lives here: a writer only names the buffers and
places the calls. The kernel is the one eager ran on the first replay (``Program.run``
records it), so the replay makes eager's calls on eager's dtypes and gives the eager step's
bits (tests/jit/test_bit_identical.py). With the fast kernels off
(``MINITORCH_FAST_KERNELS=0``) no kernel runs and no writer applies: every op is called as
written in ``functions/`` (``op_calls.py``), as eager runs it.
Where a writer does not handle a case (a single vector into Linear, class weights), it returns a
reason instead, before writing anything, and the generated code calls that op's own forward
and backward, as for an op with no writer.

A writer is ``writer(op, code)``: ``op`` (an ``OpView``) names the op's arguments in the
generated code and holds what the trace saw of them; ``code`` (``lowering.Code``) takes
lines, buffers and constants. It returns the op's backward writer, a function
``backward(grad, targets)`` that writes the lines assigning each requested input gradient
(``targets[i]``: a name, or None when not needed), or None when the op kept no node.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import numpy as np

from minitorch.functions.bounds import as_unsigned, labels_in_range
from minitorch.functions.fused import loss_scale, reduce_losses
from minitorch.kernels.cpu import activations, cross_entropy, linear


@dataclass
class OpView:
    """One recorded op as a writer sees it."""

    name: str  # "Linear"
    args: list[str]  # each argument's name in the generated code
    values: list[Any]  # what the trace saw: the array (for its shape and dtype) or the constant
    out: str  # the name to assign the output to
    result: Any  # the traced output array
    node: Any  # the traced backward node (its settings: reduction...), or None
    is_input: list[bool]  # each argument is a step input (checks on it may run before the replay)
    leaf_target: list[bool]  # the gradient of argument i goes straight into a leaf's .grad (must be fresh)


def _into(op: OpView, code: Any, i: int, like: Any) -> str:
    """The ``, out=buffer`` argument for input ``i``'s gradient; none for a leaf's (its ``.grad`` must be fresh)."""
    return "" if op.leaf_target[i] else f", out={code.buffer(like)}"


def linear_writer(op: OpView, code: Any) -> Any:
    """Linear's fast kernel (``kernels/cpu/linear.py``) on a batch of rows or sequences:
    ``linear_forward`` into a buffer; back ``linear_grad_x``, ``linear_grad_weight``, ``linear_grad_bias``."""
    x, w, b = op.values
    if x.ndim < 2:
        return "only a batch of rows or sequences (2-D or more) is written out"
    xn, wn, bn = op.args
    out = code.buffer(op.result)
    code.line(f"{op.out} = linear_forward({xn}, {wn}, {bn if b is not None else None}, out={out})")
    code.reused(op.out)
    if op.node is None:
        return None

    def backward(grad: str, targets: list[Any]) -> None:
        gx, gw, gb = targets
        if gx is not None:  # in C order, as eager's product is (whatever x's layout)
            code.line(f"{gx} = linear_grad_x({grad}, {wn}{_into(op, code, 0, np.empty(x.shape, x.dtype))})")
        if gw is not None:
            code.line(f"{gw} = linear_grad_weight({grad}, {xn}{_into(op, code, 1, w)})")
        if gb is not None:  # the vector of ones that eager makes each call (one per row), made once
            ones = code.value(np.ones(math.prod(x.shape[:-1]), x.dtype), "ones")
            code.line(f"{gb} = linear_grad_bias({grad}, ones={ones}{_into(op, code, 2, b)})")

    return backward


def relu_writer(op: OpView, code: Any) -> Any:
    """ReLU's fast kernel (``kernels/cpu/activations.py``): ``relu`` and ``relu_backward`` on buffers."""
    out = code.buffer(op.result)
    code.line(f"{op.out} = relu({op.args[0]}, out={out})")
    code.reused(op.out)
    if op.node is None:
        return None
    mask = code.buffer(op.result, bool)

    def backward(grad: str, targets: list[Any]) -> None:
        if targets[0] is not None:
            code.line(f"{targets[0]} = relu_backward({op.out}, {grad}, mask={mask}{_into(op, code, 0, op.values[0])})")

    return backward


def tanh_writer(op: OpView, code: Any) -> Any:
    """Tanh's fast kernel (``kernels/cpu/activations.py``): ``tanh`` and ``tanh_backward`` on buffers."""
    out = code.buffer(op.result)
    code.line(f"{op.out} = tanh({op.args[0]}, out={out})")
    code.reused(op.out)
    if op.node is None:
        return None

    def backward(grad: str, targets: list[Any]) -> None:
        if targets[0] is not None:
            code.line(f"{targets[0]} = tanh_backward({op.out}, {grad}{_into(op, code, 0, op.values[0])})")

    return backward


def cross_entropy_writer(op: OpView, code: Any) -> Any:
    """SoftmaxCrossEntropy's fast kernel (``kernels/cpu/cross_entropy.py``), every label a class (no
    weights): ``softmax_xent_rows`` into buffers, the op's ``reduce_losses``; back ``softmax_xent_grad``."""
    logits, target, reduction = op.values[:3]
    if logits.ndim != 2 or any(v is not None for v in op.values[3:4]):
        return "only (N, C) logits without class weights are written out"
    if reduction not in ("mean", "sum") or op.node is None or op.node.row_weight is not None:
        return f"reduction={reduction!r} with these labels is not written out"
    if not op.is_input[1]:
        return "labels computed inside the step are not written out (their range is checked before the replay)"
    n, c = logits.shape
    # What eager's ctx holds here (no row weights, every label a class), for the op's own
    # reduce_losses and loss_scale, which the generated code calls with it.
    how: Any = SimpleNamespace(reduction=reduction, row_weight=None, ignore_index=None, xp=np)
    if np.asarray(loss_scale(how, np.ones((), op.result.dtype), n)).dtype != logits.dtype:
        return "a loss gradient of another dtype than the logits is not written out"
    ln, tn = op.args[:2]
    # The eager forward checks the labels every call; an ignored or bad label changes its path
    # (weights, or an error): then the replay falls back to the op-by-op one, which does as eager.
    if target.dtype.kind == "i":  # the one max() of bounds.labels_in_range, on the host
        code.check(f"not {tn}.size or int({tn}.view({code.value(as_unsigned(target).dtype, 'u')}).max()) < {c}")
    else:
        code.check(f"labels_in_range({tn}, {c})")
    rows, how_name = code.value(np.arange(n), "rows"), code.value(how, "how")
    top, total = code.buffer(np.empty((n, 1), logits.dtype)), code.buffer(np.empty((n, 1), logits.dtype))
    shifted, probs = code.buffer(logits), code.buffer(logits)
    log_total, losses = code.buffer(np.empty(n, logits.dtype)), code.buffer(np.empty(n, logits.dtype))
    code.lines(  # the losses and the probabilities land in their buffers
        f"softmax_xent_rows({ln}, {tn}, {rows}, top={top}, shifted={shifted}, probs={probs},"
        f" total={total}, log_total={log_total}, losses={losses})",
        f"{op.out} = asarray(reduce_losses({how_name}, {losses}, {n}))",
    )

    def backward(grad: str, targets: list[Any]) -> None:
        g = targets[0]
        if g is None:
            return
        into = f", out={code.buffer(logits)}" if not op.leaf_target[0] else ""
        code.line(f"{g} = softmax_xent_grad({probs}, {tn}, {rows}, loss_scale({how_name}, {grad}, {n}){into})")

    return backward


# The writer of each fast kernel whose functions the generated code calls on buffers: the
# kernel eager ran for the op on the first replay decides (``writer_for``).
WRITERS: dict[Any, Any] = {
    linear.BLAS: linear_writer,
    activations.RELU: relu_writer,
    activations.TANH: tanh_writer,
    cross_entropy.IN_PLACE: cross_entropy_writer,
}


def writer_for(kernel: Any) -> Any:
    """The writer for an op whose eager run took ``kernel`` (None: the op as written, no writer)."""
    return None if kernel is None else WRITERS.get(kernel)


# What generated code may call, by name (its module namespace): the kernels' functions.
NAMESPACE: dict[str, Any] = {
    "asarray": np.asarray,
    "labels_in_range": labels_in_range,
    "reduce_losses": reduce_losses,
    "loss_scale": loss_scale,
    "linear_forward": linear.linear_forward,
    "linear_grad_x": linear.linear_grad_x,
    "linear_grad_weight": linear.linear_grad_weight,
    "linear_grad_bias": linear.linear_grad_bias,
    "relu": activations.relu,
    "relu_backward": activations.relu_backward,
    "tanh": activations.tanh,
    "tanh_backward": activations.tanh_backward,
    "softmax_xent_rows": cross_entropy.softmax_xent_rows,
    "softmax_xent_grad": cross_entropy.softmax_xent_grad,
}
