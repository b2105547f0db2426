"""What ``minitorch.autocast`` does to the inputs of an op: the two lists, as in PyTorch.

Inside ``with minitorch.autocast("cpu"):`` (or ``"cuda"``) the ops that gain most from half
precision and lose least run in float16: matrix products (``matmul``, ``mm``, ``bmm``,
``addmm``), ``linear`` and ``conv2d``. The ops where float16 loses too much (large sums,
exponentials, normalisation, losses) run in float32: ``softmax``, ``log_softmax``, the
losses, ``layer_norm``, ``batch_norm``, ``sum``, ``mean``, ``exp``, ``log``, ``log1p``.
Everything else runs in the dtype of its inputs (the widest one, as usual).

The lists are a short version of PyTorch's CUDA autocast lists, used on both devices
(PyTorch's CPU lists keep more ops in half precision). The casts are ordinary recorded
``Cast`` ops, so gradients flow back to the float32 parameters: the optimizer keeps
float32 "master" weights.
"""

from __future__ import annotations

from typing import Any

from minitorch.dtypes import float32, get_dtype
from minitorch.functions.conversion import cast
from minitorch.switches import SWITCHES
from minitorch.tensor_base import TensorBase


def to_low_precision(*tensors: Any) -> tuple[Any, ...]:
    """Inside autocast: float32/float16 inputs on the autocast device, cast to its dtype (float16).

    float64 inputs are left alone, as PyTorch's autocast leaves them: a float64
    computation was asked for on purpose.
    """
    state = SWITCHES.autocast
    if state is None:
        return tensors
    device_type, dtype_name = state
    target = get_dtype(dtype_name)
    return tuple(
        cast(t, target)
        if isinstance(t, TensorBase)
        and t.data.dtype.kind == "f"
        and t.data.dtype.itemsize < 8
        and t.device == device_type
        else t
        for t in tensors
    )


def to_float32(*tensors: Any) -> tuple[Any, ...]:
    """Inside autocast: half-precision inputs on the autocast device, cast to float32."""
    state = SWITCHES.autocast
    if state is None:
        return tensors
    device_type = state[0]
    return tuple(
        cast(t, float32) if isinstance(t, TensorBase) and t.data.dtype == "float16" and t.device == device_type else t
        for t in tensors
    )
