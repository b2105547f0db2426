"""The communication that model parallelism puts inside the graph, as autograd ops.

Megatron-LM's column/row-parallel MLP needs two ops besides the layers' own:

- ``AllReduceInBackward`` (Megatron's *f*): the identity in forward; in backward it sums the
  input's gradient over the ranks. A column-parallel layer's input is the same on every
  rank, but each rank's slice of the weight sends back only its share of the input's
  gradient: the full gradient is their sum.
- ``AllReduceInForward`` (Megatron's *g*): sums the ranks' partial outputs in forward; the
  identity in backward. A row-parallel layer's rank multiplies its slice of the input by
  its slice of the weight: the output is the sum of those partial products, and each
  rank's share of it gets the whole output's gradient.

``ToLocal``/``FromLocal`` hand a DTensor's shard to plain ops and back (gradients flow
through, unchanged), and ``FullTensor`` gathers the shards (its gradient: this rank's
slice of the gradient). They are defined here, in the package's ``distributed`` layer, so
that ``import minitorch`` registers them with the other built-in ops.
"""

from __future__ import annotations

from typing import Any

from minitorch.autograd.function import Function
from minitorch.distributed import comm_log
from minitorch.distributed.base import ProcessGroup, ReduceOp


def all_reduce_array(array: Any, group: ProcessGroup) -> Any:
    """A new array: the sum over the ranks of ``array`` (which is left as it is)."""
    buf = array.copy()  # a C-contiguous copy: MPI reduces in place
    comm_log.note("all_reduce", buf.nbytes)
    group.allreduce(buf, ReduceOp.SUM)
    return buf


class ToLocal(Function):
    """A DTensor's shard as a plain tensor (a view): gradients pass through unchanged."""

    @staticmethod
    def forward(ctx: Any, local: Any) -> Any:
        return local.view()

    @staticmethod
    def backward(ctx: Any, grad: Any) -> Any:
        return (grad,)


class FromLocal(Function):
    """A plain tensor as a DTensor's shard (a view): gradients pass through unchanged."""

    @staticmethod
    def forward(ctx: Any, local: Any) -> Any:
        return local.view()

    @staticmethod
    def backward(ctx: Any, grad: Any) -> Any:
        return (grad,)


class FullTensor(Function):
    """Every rank's shard, concatenated along ``dim`` (all-gather). Backward: this rank's slice."""

    @staticmethod
    def forward(ctx: Any, local: Any, dim: int, group: ProcessGroup) -> Any:
        xp = ctx.xp
        gathered = xp.empty((group.size, *local.shape), dtype=local.dtype)
        comm_log.note("all_gather", local.nbytes)
        group.allgather(xp.ascontiguousarray(local), gathered)
        ctx.dim, ctx.rank, ctx.size = dim, group.rank, local.shape[dim]
        return xp.concatenate(list(gathered), axis=dim)

    @staticmethod
    def backward(ctx: Any, grad: Any) -> Any:
        # The full tensor's gradient is the same on every rank (it is replicated), so each
        # rank's shard gets its own slice of it, with no communication.
        index = [slice(None)] * grad.ndim
        index[ctx.dim] = slice(ctx.rank * ctx.size, (ctx.rank + 1) * ctx.size)
        return grad[tuple(index)], None, None


class AllReduceInBackward(Function):
    """Megatron's *f*: identity forward; backward sums the gradient over the ranks."""

    @staticmethod
    def forward(ctx: Any, x: Any, group: ProcessGroup) -> Any:
        ctx.group = group
        return x.view()

    @staticmethod
    def backward(ctx: Any, grad: Any) -> Any:
        return all_reduce_array(grad, ctx.group), None


class AllReduceInForward(Function):
    """Megatron's *g*: forward sums the partial results over the ranks; identity backward."""

    @staticmethod
    def forward(ctx: Any, partial: Any, group: ProcessGroup) -> Any:
        return all_reduce_array(partial, group)

    @staticmethod
    def backward(ctx: Any, grad: Any) -> Any:
        return grad, None
