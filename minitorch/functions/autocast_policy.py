"""What ``minitorch.autocast`` does to the inputs of an op: PyTorch 2.13's lists, per device.

Inside ``with minitorch.autocast(device_type):`` every op asks ``autocast_inputs(op, ...)``
what to do with its inputs. The answer depends on the device type, because PyTorch keeps
one pair of lists for CUDA and another for the CPU:

- ``LOWER_PRECISION_OPS``: the ops that gain most from half precision and lose least (the
  matrix products, ``linear``, the convolutions) run in float16 on both devices.
- ``FLOAT32_OPS``: the ops where float16 loses too much run in float32. On CUDA that is a
  long list (sums, exponentials, logarithms, softmax, ``layer_norm``, the losses); on the
  CPU it is mostly the losses: a CPU ``sum``, ``exp`` or ``softmax`` of float16 inputs
  stays float16, as in PyTorch.
- Every other op (``batch_norm`` included, on both devices) runs in the dtype of its inputs.

The names are PyTorch's (``torch.testing._internal.autocast_test_lists`` and the "Autocast
Op Reference" of its AMP documentation), including ops MiniTorch does not have, so that the
lists read the same as PyTorch's. The casts are ordinary recorded ``Cast`` ops, so gradients
flow back to the float32 parameters: the optimizer keeps float32 "master" weights.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from minitorch.dtypes import float32, get_dtype
from minitorch.errors import MiniTorchError
from minitorch.functions.conversion import cast
from minitorch.switches import SWITCHES
from minitorch.tensor_base import TensorBase

# The matrix products and convolutions: float16 on both devices (CUDA's list is longer).
_LOWER_ON_BOTH = frozenset({
    "conv1d", "conv2d", "conv3d", "conv_tbc", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
    "prelu", "addmm", "addbmm", "baddbmm", "bmm", "matmul", "mm", "linear", "linalg_vecdot",
    "scaled_dot_product_attention",
})  # fmt: skip

LOWER_PRECISION_OPS: dict[str, frozenset[str]] = {
    "cuda": _LOWER_ON_BOTH | {"addmv", "addr", "einsum", "mv", "chain_matmul", "multi_dot", "linalg_multi_dot",
                              "lstm_cell", "gru_cell", "rnn_tanh_cell", "rnn_relu_cell"},
    "cpu": _LOWER_ON_BOTH | {"_native_multi_head_attention"},
}  # fmt: skip

# The losses: float32 on both devices.
_FLOAT32_ON_BOTH = frozenset({
    "nll_loss", "nll_loss2d", "cross_entropy", "l1_loss", "smooth_l1_loss", "mse_loss", "huber_loss",
    "soft_margin_loss", "multilabel_margin_loss", "multi_margin_loss", "poisson_nll_loss", "kl_div",
    "cosine_embedding_loss", "hinge_embedding_loss", "margin_ranking_loss", "triplet_margin_loss",
    "binary_cross_entropy_with_logits", "cdist", "prod",
})  # fmt: skip

FLOAT32_OPS: dict[str, frozenset[str]] = {
    "cuda": _FLOAT32_ON_BOTH | {
        "acos", "asin", "cosh", "erfinv", "exp", "expm1", "log", "log10", "log2", "log1p", "reciprocal",
        "rsqrt", "sinh", "tan", "pow", "softmax", "softmin", "log_softmax", "softplus", "layer_norm",
        "rms_norm", "group_norm", "norm", "normalize", "cosine_similarity", "cumprod", "cumsum", "dist",
        "pdist", "renorm", "sum", "logsumexp",
    },
    # binary_cross_entropy is refused on CUDA under autocast (PyTorch: use the logits version).
    "cpu": _FLOAT32_ON_BOTH | {
        "binary_cross_entropy", "avg_pool3d", "max_pool3d", "adaptive_avg_pool3d", "reflection_pad1d",
        "reflection_pad2d", "replication_pad1d", "replication_pad2d", "replication_pad3d", "grid_sampler",
        "polar", "quantile", "nanquantile", "stft", "trace", "inverse", "pinverse", "cholesky",
    },
}  # fmt: skip

# Ops PyTorch refuses under CUDA autocast: a float16 probability rounds to 0 or 1 and the log blows up.
REFUSED_OPS: dict[str, frozenset[str]] = {"cuda": frozenset({"binary_cross_entropy"}), "cpu": frozenset()}


def autocast_rule(device_type: str, op: str) -> str | None:
    """``"lower"``, ``"float32"`` or None (run in the inputs' dtype) for ``op`` under autocast on ``device_type``."""
    if op in LOWER_PRECISION_OPS.get(device_type, ()):
        return "lower"
    if op in FLOAT32_OPS.get(device_type, ()):
        return "float32"
    return None


def autocast_inputs(op: str, *tensors: Any) -> tuple[Any, ...]:
    """The inputs of ``op`` as autocast wants them (unchanged outside autocast).

    Only floating-point tensors on the autocast device are cast; float64 inputs are left
    alone, as PyTorch's autocast leaves them (a float64 computation was asked for on purpose).
    """
    state = SWITCHES.autocast
    if state is None:
        return tensors
    device_type, dtype_name = state
    if op in REFUSED_OPS.get(device_type, ()):
        raise MiniTorchError(
            f"{op}: unsafe to autocast on {device_type!r} (float16 probabilities round to 0 and 1); use "
            "binary_cross_entropy_with_logits (or BCEWithLogitsLoss) on the logits, which is safe"
        )
    rule = autocast_rule(device_type, op)
    if rule is None:
        return tensors
    if rule == "lower":
        return _cast_narrow_floats(tensors, device_type, get_dtype(dtype_name))
    return tuple(
        cast(t, float32) if isinstance(t, TensorBase) and t.data.dtype == "float16" and t.device == device_type else t
        for t in tensors
    )


@contextlib.contextmanager
def autocast_paused() -> Iterator[None]:
    """Inside an op built from other ops: those are not autocast again (the op was, by its own rule)."""
    state = SWITCHES.autocast
    SWITCHES.autocast = None
    try:
        yield
    finally:
        SWITCHES.autocast = state


def to_low_precision(*tensors: Any) -> tuple[Any, ...]:
    """Inside autocast: float32/float16 inputs on the autocast device, cast to its dtype (float16).

    For the matrix products and convolutions, which are on both devices' float16 lists.
    """
    state = SWITCHES.autocast
    if state is None:
        return tensors
    return _cast_narrow_floats(tensors, state[0], get_dtype(state[1]))


def _cast_narrow_floats(tensors: tuple[Any, ...], device_type: str, target: Any) -> tuple[Any, ...]:
    """float16/float32 tensors on ``device_type`` cast to ``target``; the rest as they are."""
    return tuple(
        cast(t, target)
        if isinstance(t, TensorBase)
        and t.data.dtype.kind == "f"
        and t.data.dtype.itemsize < 8
        and t.device == device_type
        else t
        for t in tensors
    )
