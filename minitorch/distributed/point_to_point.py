"""``send``, ``recv``, ``isend``, ``irecv``: one rank hands a tensor to another, as PyTorch spells them.

``send(t, dst)`` on one rank meets ``recv(t, src)`` on the other; ``recv`` fills its tensor in
place. Unlike MPI's, both first agree on the transfer (``pairwise.py``): a receiving tensor
of another shape or dtype, or a send that meets no receive, raises on both ranks instead
of returning garbage or waiting forever, and every wait is bounded by the group's timeout.
``tag`` tells transfers apart: a receive must name the tag its send used.
"""

from __future__ import annotations

from typing import Any

from minitorch.distributed import comm_log
from minitorch.distributed.base import DistributedError, Work
from minitorch.distributed.collectives import _check_tensor
from minitorch.distributed.group import current_group
from minitorch.tensor import Tensor


def _peer(op: str, peer: Any, name: str) -> int:
    if peer is None:
        raise DistributedError(f"{op}: {name}=None (any rank) is not supported; name the rank")
    if isinstance(peer, bool) or not isinstance(peer, int):
        raise DistributedError(f"{op}: {name} must be a rank number, got {peer!r}")
    return peer


def isend(tensor: Tensor, dst: int, group: Any = None, tag: int = 0) -> Work:
    """Start sending ``tensor`` to rank ``dst``; leave it unchanged until ``wait()`` returns."""
    pg = current_group()
    _check_tensor("isend", tensor, pg)
    array = tensor.data if tensor.data.flags.c_contiguous else tensor.data.copy()
    comm_log.note("send", array.nbytes)
    transfer = pg.isend(array, _peer("isend", dst, "dst"), f"a tensor with tag {tag}")
    return Work(transfer.wait, transfer.test)


def irecv(tensor: Tensor, src: int, group: Any = None, tag: int = 0) -> Work:
    """Start receiving into ``tensor`` (same shape and dtype as the sent one) from rank ``src``."""
    pg = current_group()
    _check_tensor("irecv", tensor, pg)
    comm_log.note("recv", tensor.data.nbytes)
    transfer = pg.irecv(_peer("irecv", src, "src"), f"a tensor with tag {tag}", tuple(tensor.shape),
                        tensor.data.dtype)

    def store() -> None:
        tensor.data[...] = transfer.result
        tensor._bump_version()  # changed in place

    return Work(transfer.wait, transfer.test, store)


def send(tensor: Tensor, dst: int, group: Any = None, tag: int = 0) -> None:
    """Send ``tensor`` to rank ``dst``; returns once that rank has received it."""
    isend(tensor, dst, group, tag).wait()


def recv(tensor: Tensor, src: int | None = None, group: Any = None, tag: int = 0) -> int:
    """Receive from rank ``src`` into ``tensor`` (in place); returns ``src``, as PyTorch returns the sender."""
    irecv(tensor, _peer("recv", src, "src"), group, tag).wait()
    return src  # type: ignore[return-value]
