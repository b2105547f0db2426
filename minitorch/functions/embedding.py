"""Embedding lookup: row ``idx`` of a weight table, the first layer of a language model.

Forward is indexing, ``weight[idx]``. Backward scatters each output row's gradient back
to the row it came from; a token that appears several times collects the sum of its
gradients (``index_add``, never plain assignment, which would keep only the last one).
The ``padding_idx`` row gets no gradient, so padding never learns.
"""

from __future__ import annotations

from minitorch import backends
from minitorch.autograd.function import BackwardNode, Function
from minitorch.errors import MiniTorchError, MiniTorchIndexError
from minitorch.functions.bounds import check_on_device
from minitorch.functions.indexing import scatter_into, scatter_into_zeros
from minitorch.hints import Array, Gradients
from minitorch.switches import SWITCHES
from minitorch.tensor_base import T, TensorBase


class Embedding(Function):
    """out[..., :] = weight[idx[...], :].   grad_weight[r] = sum of grad rows where idx == r."""

    @staticmethod
    def forward(ctx: BackwardNode, weight: Array, idx: Array, padding_idx: int | None) -> Array:
        _check_indices(idx, weight.shape[0])  # in the op: a replay of a compiled step checks them too
        ctx.save_for_backward(idx)
        ctx.weight_shape, ctx.padding_idx = weight.shape, padding_idx
        return weight[idx]

    @staticmethod
    def backward(ctx: BackwardNode, grad: Array) -> Gradients:
        (idx,) = ctx.saved_tensors
        rows = grad.reshape(-1, ctx.weight_shape[1])
        full = scatter_into_zeros(ctx.xp, ctx.weight_shape, grad.dtype, idx.reshape(-1), rows, accumulate=True)
        if ctx.padding_idx is not None:
            full = scatter_into(full, ctx.padding_idx, 0, copy=False)  # the padding row learns nothing
        return full, None, None


def _check_indices(idx: Array, n: int) -> None:
    """Every index in [0, n): NumPy would wrap a negative one, and CuPy checks nothing."""
    if not (backends.of(idx).is_host or SWITCHES.debug):
        # On a GPU reading min/max back would wait for it every step: check there, raise at a sync.
        error = MiniTorchIndexError(
            f"embedding: an index was out of range for {n} embeddings (0 to {n - 1}; checked on the GPU "
            "and reported at this sync point)"
        )
        check_on_device(idx, n, error)
    elif idx.size and (int(idx.min()) < 0 or int(idx.max()) >= n):
        bad = int(idx.min()) if int(idx.min()) < 0 else int(idx.max())
        raise MiniTorchIndexError(f"embedding: index {bad} is out of range for {n} embeddings (0 to {n - 1})")


def embedding(input: T, weight: T, padding_idx: int | None = None) -> T:
    """Rows of ``weight`` (num_embeddings, dim) picked by the int64 tensor ``input``: shape input.shape + (dim,)."""
    if not isinstance(input, TensorBase) or input.data.dtype.kind not in "iu":
        shown = input.dtype if isinstance(input, TensorBase) else type(input).__name__
        raise MiniTorchError(f"embedding: expected an integer (long) tensor of indices, got {shown}")
    if weight.ndim != 2:
        raise MiniTorchError(f"embedding: weight must be 2-d (num_embeddings, dim), got shape {tuple(weight.shape)}")
    n = weight.shape[0]
    if padding_idx is not None:
        if not -n <= padding_idx < n:
            raise MiniTorchError(f"embedding: padding_idx must be within num_embeddings ({n}), got {padding_idx}")
        padding_idx %= n
    return Embedding.apply(weight, input, padding_idx)
