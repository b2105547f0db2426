"""``PipelineStage``: one rank's slice of the model, and the transfers at its two ends.

Stage i runs on rank i. For each microbatch k it does a forward (receive the activation
from stage i-1, run its module, send the output to stage i+1) and, later, a backward
(receive the output's gradient from stage i+1, backward through its module, send the
input's gradient to stage i-1). The first stage reads its input from the batch instead,
the last compares its output with the target (the schedule's ``loss_fn``).

A received activation becomes a fresh leaf tensor that requires grad: backward stops
there, and its ``.grad`` is exactly what the previous stage needs. Until a microbatch's
backward has run, its input and output are kept: that is a stage's activation memory,
which a schedule's order decides (``Schedule1F1B`` keeps fewer than ``ScheduleGPipe``).
Sends are started and left to finish while the stage computes; receives wait, bounded by
the process group's timeout (``pairwise.py``).
"""

from __future__ import annotations

import time
from typing import Any

from minitorch.distributed import comm_log
from minitorch.distributed.base import DistributedError, ProcessGroup
from minitorch.distributed.group import current_group
from minitorch.distributed.pairwise import Transfer
from minitorch.factories import from_numpy
from minitorch.nn.module import Module
from minitorch.tensor import Tensor


class PipelineStage:
    """``submodule`` as stage ``stage_index`` of ``num_stages``; stage i must run on rank i."""

    def __init__(self, submodule: Module, stage_index: int, num_stages: int, device: Any = "cpu",
                 input_args: Any = None, output_args: Any = None, group: Any = None, **unused: Any) -> None:
        if not isinstance(submodule, Module):
            raise TypeError(f"PipelineStage: expected an nn.Module, got {type(submodule).__name__}")
        pg: ProcessGroup = current_group()
        if num_stages != pg.size:
            raise DistributedError(f"PipelineStage: num_stages={num_stages}, but the process group has {pg.size} "
                                   f"ranks; MiniTorch runs one stage per rank (launch with mpiexec -n {num_stages})")
        if stage_index != pg.rank:
            raise DistributedError(f"PipelineStage: stage_index={stage_index} on rank {pg.rank}; stage i runs on "
                                   f"rank i (pass stage_index=dist.get_rank())")
        if str(device) != pg.device:
            raise DistributedError(f"PipelineStage: device {str(device)!r}, but the {pg.backend} process group works "
                                   f"on {pg.device}")
        self.submod = submodule
        self.stage_index, self.num_stages = stage_index, num_stages
        self.is_first, self.is_last = stage_index == 0, stage_index == num_stages - 1
        self.group = pg
        self._kept: dict[int, tuple[Tensor | None, Tensor]] = {}  # microbatch -> (input leaf, output)
        self._sends: list[Transfer] = []
        self.peak_in_flight = 0  # the most microbatches whose activations were kept at once
        self.waited = 0.0  # seconds spent waiting in receives (the schedule resets it per microbatch)

    # ------------------------------------------------------------------ one microbatch
    def forward_one_chunk(self, k: int, x: Tensor | None = None) -> Tensor:
        """Forward of microbatch ``k``: its output (sent on to the next stage unless this is the last)."""
        received = None
        if not self.is_first:
            array = self._receive(self.stage_index - 1, self._activation(k, self.stage_index - 1))
            received = from_numpy(array)
            if array.dtype.kind == "f":
                received.requires_grad_(True)  # its .grad is what the previous stage waits for
            x = received
        out = self.submod(x)
        if not isinstance(out, Tensor):
            raise DistributedError(f"PipelineStage {self.stage_index}: the stage's module returned a "
                                   f"{type(out).__name__}; a stage passes one Tensor on")
        self._kept[k] = (received, out)
        self.peak_in_flight = max(self.peak_in_flight, len(self._kept))
        if not self.is_last:
            self._send(out.detach().contiguous().data, self.stage_index + 1, self._activation(k, self.stage_index))
        return out

    def backward_one_chunk(self, k: int, loss: Tensor | None = None) -> None:
        """Backward of microbatch ``k`` (from ``loss`` on the last stage, else from the received gradient)."""
        if k not in self._kept:
            raise DistributedError(f"PipelineStage {self.stage_index}: backward of microbatch {k} before its forward")
        received, out = self._kept.pop(k)
        if self.is_last:
            if loss is None:
                raise DistributedError("PipelineStage: the last stage's backward needs the microbatch's loss")
            loss.backward()
        else:
            grad = self._receive(self.stage_index + 1, self._gradient(k, self.stage_index + 1),
                                 shape=tuple(out.shape), dtype=out.data.dtype)
            out.backward(from_numpy(grad))
        if received is not None:
            g = received.grad
            data = g.data if g is not None else received.data * 0  # an input the output did not use
            self._send(data, self.stage_index - 1, self._gradient(k, self.stage_index))

    # ------------------------------------------------------------------ transfers
    @staticmethod
    def _activation(k: int, sender: int) -> str:
        return f"the activation of microbatch {k} (stage {sender} to stage {sender + 1})"

    @staticmethod
    def _gradient(k: int, sender: int) -> str:
        return f"the gradient of microbatch {k} (stage {sender} to stage {sender - 1})"

    def _send(self, array: Any, dst: int, what: str) -> None:
        comm_log.note("send", array.nbytes)
        transfer = self.group.isend(array, dst, what)
        transfer.test()  # a first push: MPI moves data only inside its calls
        self._sends.append(transfer)

    def _receive(self, src: int, what: str, shape: Any = None, dtype: Any = None) -> Any:
        transfer = self.group.irecv(src, what, shape, dtype)
        start = time.perf_counter()
        array = transfer.wait()
        self.waited += time.perf_counter() - start
        comm_log.note("recv", array.nbytes)
        return array

    def progress(self) -> None:
        """Let MPI move the started sends along (and forget those that finished)."""
        self._sends = [t for t in self._sends if not t.test()]

    def finish_sends(self) -> None:
        """Wait (bounded) until every started send has been received."""
        sends, self._sends = self._sends, []
        for transfer in sends:
            transfer.wait()

    def clear(self) -> None:
        """Forget the kept activations (before a step)."""
        self._kept.clear()
        self.peak_in_flight = 0
