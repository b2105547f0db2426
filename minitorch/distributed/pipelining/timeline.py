"""The pipeline's timeline: every rank's recorded microbatches together, and the bubble measured on them.

    timelines = gather_timelines(schedule)        # after schedule.step(...), on every rank
    bubble_fraction(timelines)                    # the measured idle share, e.g. 0.21
    expected_bubble(num_stages, n_microbatches)   # (p - 1) / (m + p - 1), e.g. 0.2

Each rank records its computations with ``time.perf_counter()``, which on Linux reads one
clock shared by every process of the machine, so the ranks' times line up as they are. On
several machines the clocks differ by an unknown offset, and so would the drawn timelines.
"""

from __future__ import annotations

from minitorch.distributed.pipelining.schedules import Event, PipelineScheduleSingle


def gather_timelines(schedule: PipelineScheduleSingle) -> list[list[Event]]:
    """Every rank's events of the last step (a collective), in seconds since the earliest rank began."""
    mine = (schedule.began, [tuple(e) for e in schedule.timeline])
    everyone = schedule._stage.group.allgather_object(mine)
    start = min(began for began, _ in everyone)
    return [[Event(kind, k, began + s - start, began + e - start) for kind, k, s, e in events]
            for began, events in everyone]


def bubble_fraction(timelines: list[list[Event]]) -> float:
    """The share of the ranks' time spent idle, from the first computation to the last one on any rank."""
    events = [e for rank in timelines for e in rank]
    span = max(e.end for e in events) - min(e.start for e in events)
    busy = sum(e.end - e.start for e in events)
    return 1.0 - busy / (len(timelines) * span)


def expected_bubble(num_stages: int, n_microbatches: int) -> float:
    """The bubble of GPipe and 1F1B with equal stages and free communication: (p - 1) / (m + p - 1)."""
    return (num_stages - 1) / (n_microbatches + num_stages - 1)
