"""``DistributedDataParallel``: the same model on every rank, gradients averaged in backward.

Each rank runs forward and backward on its own share of the batch. Averaging the
gradients over the ranks then gives every rank the gradient of the whole batch, so the
optimizers take identical steps and the copies of the model stay identical.

How it overlaps communication with computation (as PyTorch's DDP does):

1. Parameters are grouped into *buckets* of about ``bucket_cap_mb`` megabytes, in reverse
   order, because backward produces the last layer's gradients first.
2. A post-accumulate hook on every parameter fires during backward as soon as its
   ``.grad`` is complete. When a bucket's last gradient arrives, the bucket's gradients
   are copied into one flat buffer and a non-blocking all-reduce starts on it (MPI's
   ``Iallreduce``), while backward goes on computing the earlier layers' gradients.
3. A callback queued on the engine runs at the end of backward: it waits for every
   bucket and writes the averaged gradients back into ``.grad``, before ``backward()``
   returns. The optimizer step then sees averaged gradients.

Buckets are always started in the same order (bucket 0, 1, 2...) on every rank, as MPI
requires of collectives, even if some rank's gradients became ready in another order.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from minitorch import autograd, backends
from minitorch import distributed as dist
from minitorch.distributed.base import ProcessGroup, ReduceOp, Work
from minitorch.nn.module import Module, Parameter
from minitorch.tensor import Tensor


class _Bucket:
    """Parameters whose gradients travel together in one all-reduce."""

    def __init__(self, params: list[Parameter]) -> None:
        self.params = params
        self.sizes = [p.data.size for p in params]
        self.numel = sum(self.sizes)
        self.buffer: Any = None  # the flat array, made at the first launch and reused
        self.ready = 0  # gradients complete in this backward
        self.work: Work | None = None


def make_buckets(params: list[Parameter], cap_bytes: float) -> list[_Bucket]:
    """Group parameters in reverse order into buckets of at most ``cap_bytes`` (at least one each).

    A bucket holds one dtype (it is one flat array).
    """
    buckets: list[_Bucket] = []
    current: list[Parameter] = []
    size = 0
    for p in reversed(params):
        nbytes = p.data.nbytes
        if current and (size + nbytes > cap_bytes or p.data.dtype != current[0].data.dtype):
            buckets.append(_Bucket(current))
            current, size = [], 0
        current.append(p)
        size += nbytes
    if current:
        buckets.append(_Bucket(current))
    return buckets


class DistributedDataParallel(Module):
    """Wrap ``module`` so that ``backward()`` leaves the gradients averaged over all ranks.

    At construction rank 0's parameters and buffers are copied to every rank, so all copies
    start identical. ``ddp(x)`` runs ``module(x)``; ``ddp.module`` is the wrapped model.
    ``with ddp.no_sync():`` skips the averaging (gradient accumulation: the next backward
    outside it averages the accumulated sum).
    """

    def __init__(self, module: Module, device_ids: Any = None, output_device: Any = None,
                 broadcast_buffers: bool = True, bucket_cap_mb: float = 25.0, **unused: Any) -> None:
        super().__init__()
        if not isinstance(module, Module):
            raise TypeError(f"DistributedDataParallel wraps an nn.Module, got {type(module).__name__}")
        if not bucket_cap_mb > 0:
            raise ValueError(f"DistributedDataParallel: bucket_cap_mb must be positive, got {bucket_cap_mb!r}")
        group = dist.current_group()  # a clear error if init_process_group was not called
        split = [n for n, p in module.named_parameters() if getattr(p, "placements", None) is not None]
        if split:
            raise dist.DistributedError(
                f"DistributedDataParallel: {split[0]} is a DTensor (tensor parallel): its ranks each hold a "
                "different slice, so averaging or broadcasting it over the same ranks would mix the slices. "
                "MiniTorch's meshes are one-dimensional: use tensor parallelism or DDP over a group of ranks, "
                "not both")
        self.module = module
        self.broadcast_buffers = broadcast_buffers
        self.bucket_cap_mb = float(bucket_cap_mb)
        self.require_backward_grad_sync = True
        self._group: ProcessGroup = group
        names = {id(p): n for n, p in module.named_parameters()}
        params = [p for p in module.parameters() if p.requires_grad]
        self._check_same_parameters(module)
        self._sync_module_states()
        self._buckets = make_buckets(params, self.bucket_cap_mb * 1024 * 1024)
        self._bucket_of = {id(p): b for b in self._buckets for p in b.params}
        self._next = 0  # the next bucket to launch: always in order
        self._in_backward = False
        # What the last backward did, in order: ("ready", name) when a parameter's gradient
        # was complete, ("launch", i) when bucket i's all-reduce started, ("end", -) when
        # backward's own work was over. Tests read it to see the overlap.
        self.events: list[tuple[str, Any]] = []
        self._name = names
        for p in params:
            p.register_post_accumulate_grad_hook(self._grad_ready)

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """``module(*args)``; first, in training, rank 0's buffers (BatchNorm statistics) to all."""
        if self._in_backward:  # the last backward failed half-way: start clean
            self._reset()
        if self.broadcast_buffers and self.training and self._group.size > 1:
            for b in self.module.buffers():
                dist.broadcast(b, 0)
        return self.module(*args, **kwargs)

    @contextlib.contextmanager
    def no_sync(self) -> Iterator[None]:
        """Within the block, backward accumulates local gradients without averaging them."""
        previous = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = previous

    # ------------------------------------------------------------------ construction
    def _check_same_parameters(self, module: Module) -> None:
        """All ranks must wrap the same architecture: compare names, shapes and dtypes once."""
        mine = [(n, tuple(p.shape), str(p.data.dtype)) for n, p in module.named_parameters()]
        everyone = self._group.allgather_object(mine)
        for rank, theirs in enumerate(everyone):
            if theirs != mine:
                diff = next((f"{a} vs {b}" for a, b in zip(mine, theirs) if a != b),
                            f"{len(mine)} vs {len(theirs)} parameters")
                raise dist.DistributedError(f"DistributedDataParallel: rank {self._group.rank} and rank {rank} "
                                            f"wrap different models ({diff}); every rank must build the same model")

    def _sync_module_states(self) -> None:
        """Copy rank 0's parameters and buffers to every rank (the ranks may have other inits)."""
        if self._group.size == 1:
            return
        for t in list(self.module.parameters()) + [b for b in self.module.buffers() if b is not None]:
            dist.broadcast(t, 0)

    # ------------------------------------------------------------------ during backward
    def _grad_ready(self, p: Tensor) -> None:
        """Post-accumulate hook: p's gradient is complete; launch every bucket now full."""
        if not self.require_backward_grad_sync:
            return
        if not self._in_backward:  # the first gradient of this backward
            self._in_backward = True
            self.events = []
            autograd.queue_callback(self._finish_backward)
        self.events.append(("ready", self._name.get(id(p), "?")))
        self._bucket_of[id(p)].ready += 1
        self._launch_full_buckets()
        for bucket in self._buckets[: self._next]:  # let MPI move earlier buckets along
            if bucket.work is not None:
                bucket.work.is_completed()

    def _launch_full_buckets(self) -> None:
        buckets = self._buckets
        while self._next < len(buckets) and buckets[self._next].ready == len(buckets[self._next].params):
            self._launch(self._next)
            self._next += 1

    def _launch(self, index: int) -> None:
        """Copy bucket ``index``'s gradients into its flat buffer and start the all-reduce."""
        bucket = self._buckets[index]
        first = bucket.params[0].data
        if bucket.buffer is None:
            bucket.buffer = backends.module_of(first).empty(bucket.numel, dtype=first.dtype)
        offset = 0
        for p, n in zip(bucket.params, bucket.sizes):
            g = p.grad
            # A parameter this rank did not use contributes zeros (the others may have used it).
            bucket.buffer[offset : offset + n] = 0 if g is None else g.data.reshape(-1)
            offset += n
        bucket.work = self._group.iallreduce(bucket.buffer, ReduceOp.SUM)
        self.events.append(("launch", index))

    def _finish_backward(self) -> None:
        """End of backward: launch what is left, wait for every bucket, write the averages."""
        self.events.append(("end", None))
        for bucket in self._buckets:
            bucket.ready = len(bucket.params)  # unused parameters: send their zeros anyway
        self._launch_full_buckets()
        scale = 1.0 / self._group.size
        try:
            for bucket in self._buckets:
                assert bucket.work is not None
                bucket.work.wait()
                offset = 0
                xp = backends.module_of(bucket.buffer)
                for p, n in zip(bucket.params, bucket.sizes):
                    g = p.grad
                    if g is not None:  # written in place: .grad keeps its own memory
                        part = bucket.buffer[offset : offset + n].reshape(g.data.shape)
                        xp.multiply(part, scale, out=g.data)  # divide by N and copy back in one pass
                    offset += n
        finally:
            self._reset()

    def _reset(self) -> None:
        for bucket in self._buckets:
            bucket.ready, bucket.work = 0, None
        self._next, self._in_backward = 0, False

