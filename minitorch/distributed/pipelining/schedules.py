"""``ScheduleGPipe`` and ``Schedule1F1B``: in which order each stage runs its microbatches.

A step cuts the batch into ``n_microbatches`` equal microbatches and runs, on every stage,
a forward (F) and a backward (B) for each, in the schedule's ``order``:

- **GPipe**: every forward, then every backward. Simple, but each stage keeps the
  activations of all ``m`` microbatches until their backward.
- **1F1B**: stage s first runs ``p - s`` forwards (the warm-up that fills the pipeline),
  then alternates one backward and one forward, then runs the remaining backwards. The
  pipeline takes as long as GPipe's, but stage s keeps at most ``p - s`` microbatches.

Either way a stage waits while the pipeline fills and drains: with equal stages the idle
fraction, the *bubble*, is (p - 1) / (m + p - 1). Each step records when this rank
computed what (``timeline``, seconds since the step began), for drawing it.

As PyTorch 2.13: the first stage calls ``step(x)``, the middle ones ``step()``, the last
``step(target=y, losses=losses)``, which fills ``losses`` with the microbatches' losses and
returns the whole batch's output. With ``scale_grads=True`` (the default) every stage
divides its gradients by ``n_microbatches`` after the last backward: the gradient of the
mean of the microbatch losses, as one process computes it for the whole batch when the
loss is a mean; ``False`` leaves their sum. Before each step the ranks compare their
settings and the batch (one small collective), so a mismatch raises on every rank.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, NamedTuple

from minitorch.autograd.grad_mode import is_grad_enabled
from minitorch.distributed.base import DistributedError
from minitorch.distributed.pipelining.stage import PipelineStage
from minitorch.functions import cat
from minitorch.tensor import Tensor


class Event(NamedTuple):
    """One computation of one microbatch on this rank: ``kind`` "F" or "B", seconds since the step began."""

    kind: str
    microbatch: int
    start: float
    end: float


class PipelineScheduleSingle:
    """The common part of the schedules with one stage per rank: ``step``; subclasses give ``order``."""

    def __init__(self, stage: PipelineStage, n_microbatches: int, loss_fn: Callable[..., Tensor] | None = None,
                 args_chunk_spec: Any = None, kwargs_chunk_spec: Any = None, output_merge_spec: Any = None,
                 scale_grads: bool = True) -> None:
        name = type(self).__name__
        if not isinstance(stage, PipelineStage):
            raise TypeError(f"{name}: expected a PipelineStage, got {type(stage).__name__}")
        if isinstance(n_microbatches, bool) or not isinstance(n_microbatches, int) or n_microbatches < 1:
            raise DistributedError(f"{name}: n_microbatches must be a positive int, got {n_microbatches!r}")
        if any(spec is not None for spec in (args_chunk_spec, kwargs_chunk_spec, output_merge_spec)):
            raise DistributedError(f"{name}: MiniTorch splits the batch along dimension 0 only (leave the chunk and "
                                   "merge specs out)")
        self._stage, self._n_microbatches = stage, n_microbatches
        self._loss_fn, self.scale_grads = loss_fn, bool(scale_grads)
        self.timeline: list[Event] = []
        self.began = 0.0  # time.perf_counter() when the last step's first microbatch could start

    @staticmethod
    def order(num_stages: int, n_microbatches: int, stage_index: int) -> list[tuple[str, int]]:
        """The actions of stage ``stage_index``, in order: ``("F", k)`` and ``("B", k)`` for each microbatch k."""
        raise NotImplementedError

    def step(self, *args: Any, target: Tensor | None = None, losses: list[Any] | None = None,
             return_outputs: bool = True, **kwargs: Any) -> Tensor | None:
        """One training step of the whole batch through the pipeline (see the module's docstring)."""
        stage, m, name = self._stage, self._n_microbatches, type(self).__name__
        if len(args) > 1 or kwargs:
            raise DistributedError(f"{name}.step: the first stage takes one input tensor, step(x)")
        if losses is not None and not isinstance(losses, list):
            raise TypeError(f"losses must be a list but got a {type(losses).__name__}")
        if self._loss_fn is not None and not is_grad_enabled():
            raise DistributedError(f"{name}.step: it runs backward, so it needs gradients enabled (not inside "
                                   "minitorch.no_grad())")
        x = args[0] if args else None
        self._agree(x, target)
        inputs = list(x.chunk(m, 0)) if x is not None else None
        targets = list(target.chunk(m, 0)) if target is not None else None
        stage.clear()
        self.timeline = []
        outputs: dict[int, Tensor] = {}
        microbatch_losses: dict[int, Tensor] = {}
        began = self.began = time.perf_counter()
        for kind, k in self.order(stage.num_stages, m, stage.stage_index):
            if kind == "B" and self._loss_fn is None:
                continue  # no loss: forward only
            stage.waited = 0.0
            start = time.perf_counter()
            if kind == "F":
                out = stage.forward_one_chunk(k, inputs[k] if inputs is not None else None)
                if stage.is_last:
                    outputs[k] = out.detach()
                    if self._loss_fn is not None:
                        microbatch_losses[k] = self._loss_fn(out, targets[k])  # type: ignore[index]
            else:
                stage.backward_one_chunk(k, microbatch_losses.get(k))
            end = time.perf_counter()
            self.timeline.append(Event(kind, k, start + stage.waited - began, end - began))
            stage.progress()
        stage.finish_sends()
        if self._loss_fn is not None and self.scale_grads:
            for p in stage.submod.parameters():
                if p.grad is not None:
                    p.grad.div_(m)  # the gradient of the mean of the microbatch losses
        if stage.is_last and losses is not None:
            losses.clear()
            losses.extend(microbatch_losses[k] for k in range(m))
        if stage.is_last and return_outputs:
            return cat([outputs[k] for k in range(m)], 0)
        return None

    def _agree(self, x: Tensor | None, target: Tensor | None) -> None:
        """Compare every rank's settings and batch; the same error on every rank when they do not fit."""
        stage = self._stage
        for value, what in ((x, "the input"), (target, "target")):
            if value is not None and (not isinstance(value, Tensor) or value.ndim == 0):
                raise TypeError(f"{type(self).__name__}.step: {what} must be a Tensor with a batch dimension")
        mine = {"schedule": type(self).__name__, "n_microbatches": self._n_microbatches,
                "num_stages": stage.num_stages, "stage": stage.stage_index, "scale_grads": self.scale_grads,
                "loss": self._loss_fn is not None, "input": None if x is None else int(x.shape[0]),
                "target": None if target is None else int(target.shape[0])}
        problem = plan_problem(stage.group.allgather_object(mine))
        if problem is not None:
            raise DistributedError(f"{type(self).__name__}.step: {problem}")


def plan_problem(everyone: list[dict[str, Any]]) -> str | None:
    """What is wrong with the ranks' settings and batches taken together (None when they fit)."""
    for key, what in (("schedule", "schedule"), ("n_microbatches", "n_microbatches"),
                      ("num_stages", "num_stages"), ("scale_grads", "scale_grads"), ("loss", "a loss_fn given")):
        values = [info[key] for info in everyone]
        if len(set(values)) > 1:
            shown = ", ".join(f"rank {r}: {v}" for r, v in enumerate(values))
            return f"the ranks disagree on {what} ({shown}); every rank must build the same schedule"
    last = len(everyone) - 1
    m = everyone[0]["n_microbatches"]
    wrong_inputs = [r for r, info in enumerate(everyone) if (info["input"] is not None) != (r == 0)]
    if wrong_inputs:
        return (f"the input goes to the first stage only (rank 0 calls step(x), the others step()); rank(s) "
                f"{', '.join(map(str, wrong_inputs))} did otherwise")
    if everyone[0]["loss"] and everyone[last]["target"] is None:
        return f"the last stage (rank {last}) must pass target= for the loss"
    batch, target = everyone[0]["input"], everyone[last]["target"]
    if batch % m:
        return (f"the batch of {batch} samples (stage 0's input) cannot be cut into {m} equal microbatches: use a "
                f"batch size divisible by n_microbatches={m}")
    if target is not None and target != batch:
        return f"the input has {batch} samples but the target (rank {last}) has {target}"
    return None


class ScheduleGPipe(PipelineScheduleSingle):
    """Every forward, then every backward (fill, then drain)."""

    @staticmethod
    def order(num_stages: int, n_microbatches: int, stage_index: int) -> list[tuple[str, int]]:
        return [("F", k) for k in range(n_microbatches)] + [("B", k) for k in range(n_microbatches)]


class Schedule1F1B(PipelineScheduleSingle):
    """Warm up with ``p - s`` forwards, then one backward, one forward, ...; at most ``p - s`` kept."""

    def __init__(self, stage: PipelineStage, n_microbatches: int, loss_fn: Callable[..., Tensor] | None = None,
                 args_chunk_spec: Any = None, kwargs_chunk_spec: Any = None, output_merge_spec: Any = None,
                 scale_grads: bool = True) -> None:
        super().__init__(stage, n_microbatches, loss_fn, args_chunk_spec, kwargs_chunk_spec, output_merge_spec,
                         scale_grads)
        if n_microbatches < stage.num_stages:
            raise DistributedError(
                f"Schedule1F1B: n_microbatches={n_microbatches} is fewer than the {stage.num_stages} stages; its "
                f"warm-up sends one microbatch into every stage before the first backward, so it needs at least "
                f"{stage.num_stages} (or use ScheduleGPipe)")

    @staticmethod
    def order(num_stages: int, n_microbatches: int, stage_index: int) -> list[tuple[str, int]]:
        warmup = min(n_microbatches, num_stages - stage_index)
        actions = [("F", k) for k in range(warmup)]
        for k in range(n_microbatches - warmup):  # steady state: one backward, then one forward
            actions += [("B", k), ("F", warmup + k)]
        actions += [("B", k) for k in range(n_microbatches - warmup, n_microbatches)]
        return actions
