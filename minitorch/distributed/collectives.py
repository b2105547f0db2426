"""The collectives on Tensors, as PyTorch spells them: every rank calls each one, in the same order.

``all_reduce``, ``broadcast`` and ``all_gather`` change tensors in place (their ``.data``
arrays), so a graph that saved one of them for backward is told it is stale.

Each call first agrees with the other ranks on (collective, shape, dtype, sequence number),
in the process group (``agreement.py``): a mismatch, undefined behaviour in MPI (garbage,
a truncation error or a hang), raises the same ``DistributedError`` on every rank instead;
and every wait is bounded by ``init_process_group(timeout=...)``.
"""

from __future__ import annotations

from typing import Any

from minitorch import backends
from minitorch.distributed import comm_log
from minitorch.distributed.base import DistributedError, ProcessGroup, ReduceOp, Work
from minitorch.distributed.group import current_group
from minitorch.switches import SWITCHES
from minitorch.tensor import Tensor


def _check_tensor(op: str, tensor: Any, group: ProcessGroup) -> None:
    if not isinstance(tensor, Tensor):
        raise TypeError(f"{op}: expected a minitorch Tensor, got {type(tensor).__name__}")
    if tensor.device != group.device:
        other = "nccl" if group.device == "cpu" else "mpi"
        raise DistributedError(f"{op}: the {group.backend} backend works on {group.device} tensors, this one is "
                               f"on {tensor.device} (move it with .to('{group.device}'), or use the {other} backend)")


def check_same_on_all_ranks(op: str, array: Any, group: ProcessGroup | None = None) -> None:
    """Raise on every rank when the ranks' arrays differ in shape or dtype (debug mode only).

    The collectives no longer need it (the group checks every call); kept for programs that
    check their own arrays before a step of their own.
    """
    if not SWITCHES.debug:
        return
    group = group or current_group()
    seen = group.allgather_object((tuple(array.shape), str(array.dtype)))
    if any(s != seen[0] for s in seen):
        described = ", ".join(f"rank {r} has {shape} {dtype}" for r, (shape, dtype) in enumerate(seen))
        raise DistributedError(f"{op}: the ranks passed different tensors ({described}); every rank must pass "
                               "a tensor of the same shape and dtype")


def _contiguous(tensor: Tensor) -> tuple[Any, bool]:
    """An array MPI can read and write directly, and whether it is a copy to write back."""
    array = tensor.data
    if array.flags.c_contiguous:
        return array, False
    return backends.module_of(array).ascontiguousarray(array), True


def all_reduce(tensor: Tensor, op: ReduceOp = ReduceOp.SUM, group: Any = None, async_op: bool = False) -> Work | None:
    """Combine ``tensor`` over all ranks, in place: afterwards every rank holds the result.

    ``op`` is ``ReduceOp.SUM`` (default), ``PRODUCT``, ``MAX``, ``MIN`` or ``AVG`` (the sum
    divided by the world size: floating-point tensors only). With ``async_op=True`` it
    returns a ``Work`` at once: call ``.wait()`` before reading the tensor.
    """
    pg = current_group()
    _check_tensor("all_reduce", tensor, pg)
    if not isinstance(op, ReduceOp):
        raise TypeError(f"all_reduce: op must be a ReduceOp (ReduceOp.SUM, MAX, MIN, PRODUCT, AVG), got {op!r}")
    if op is ReduceOp.AVG and tensor.data.dtype.kind != "f":
        raise DistributedError(f"all_reduce: ReduceOp.AVG needs a floating-point tensor, got {tensor.data.dtype}; "
                               "use SUM and divide yourself")
    buf, copied = _contiguous(tensor)
    base_op = ReduceOp.SUM if op is ReduceOp.AVG else op
    comm_log.note("all_reduce", buf.nbytes)

    def finish() -> None:
        if op is ReduceOp.AVG:
            buf[...] /= pg.size  # MPI has no average: sum, then divide
        if copied:
            tensor.data[...] = buf
        tensor._bump_version()  # changed in place

    if not async_op:
        pg.allreduce(buf, base_op)
        finish()
        return None
    work = pg.iallreduce(buf, base_op)
    return Work(work.wait, work.is_completed, finish)


def broadcast(tensor: Tensor, src: int = 0, group: Any = None, async_op: bool = False) -> Work | None:
    """Copy rank ``src``'s ``tensor`` into ``tensor`` on every other rank (in place)."""
    pg = current_group()
    _check_tensor("broadcast", tensor, pg)
    if not isinstance(src, int) or not 0 <= src < pg.size:
        raise DistributedError(f"broadcast: src must be a rank between 0 and {pg.size - 1}, got {src!r}")
    buf, copied = _contiguous(tensor)
    comm_log.note("broadcast", buf.nbytes)
    pg.broadcast(buf, src)
    if copied:
        tensor.data[...] = buf
    tensor._bump_version()
    return _done() if async_op else None


def all_gather(tensor_list: list[Tensor], tensor: Tensor, group: Any = None, async_op: bool = False) -> Work | None:
    """Fill ``tensor_list[i]`` (one tensor per rank, shaped like ``tensor``) with rank i's ``tensor``."""
    pg = current_group()
    _check_tensor("all_gather", tensor, pg)
    if not isinstance(tensor_list, list) or len(tensor_list) != pg.size:
        got = len(tensor_list) if isinstance(tensor_list, (list, tuple)) else type(tensor_list).__name__
        raise DistributedError(f"all_gather: tensor_list must be a list of world_size={pg.size} tensors, got {got}")
    for i, out in enumerate(tensor_list):
        _check_tensor("all_gather", out, pg)
        if out.shape != tensor.shape or out.data.dtype != tensor.data.dtype:
            raise DistributedError(f"all_gather: tensor_list[{i}] is {tuple(out.shape)} {out.data.dtype}, but the "
                                   f"tensor is {tuple(tensor.shape)} {tensor.data.dtype}; they must match")
    xp = backends.module_of(tensor.data)
    gathered = xp.empty((pg.size, *tensor.data.shape), dtype=tensor.data.dtype)
    comm_log.note("all_gather", tensor.data.nbytes)
    pg.allgather(xp.ascontiguousarray(tensor.data), gathered)
    for out, part in zip(tensor_list, gathered):
        out.data[...] = part
        out._bump_version()
    return _done() if async_op else None


def barrier(group: Any = None) -> None:
    """Wait until every rank has called ``barrier()``."""
    current_group().barrier()


def _done() -> Work:
    """A ``Work`` for a collective that has already finished (these run synchronously)."""
    return Work(lambda: None, lambda: True)
