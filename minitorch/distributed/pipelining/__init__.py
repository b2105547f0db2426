"""``minitorch.distributed.pipelining``: pipeline parallelism, one stage of the model per rank.

    stage = PipelineStage(my_layers, dist.get_rank(), dist.get_world_size(), "cpu")
    schedule = Schedule1F1B(stage, n_microbatches=4, loss_fn=nn.CrossEntropyLoss())
    if rank == 0:
        schedule.step(x)                                   # the first stage feeds the batch
    elif rank == world - 1:
        out = schedule.step(target=y, losses=losses)       # the last one computes the losses
    else:
        schedule.step()

``stage.py`` moves the activations and gradients between neighbours; ``schedules.py``
says in which order; ``timeline.py`` measures the bubble from the recorded times.
"""

from minitorch.distributed.pipelining.schedules import Event, PipelineScheduleSingle, Schedule1F1B, ScheduleGPipe
from minitorch.distributed.pipelining.stage import PipelineStage
from minitorch.distributed.pipelining.timeline import bubble_fraction, expected_bubble, gather_timelines

__all__ = ["Event", "PipelineScheduleSingle", "PipelineStage", "Schedule1F1B", "ScheduleGPipe", "bubble_fraction",
           "expected_bubble", "gather_timelines"]
