"""Lesson 18's second check: the 1F1B order of a pipeline stage, run through a simulator; and the timeline drawn.

    check_function("1F1B order", orders_of(one_f_one_b), orders_of(reference_one_f_one_b),
                   cases=ORDER_CASES, compare=order_hint, describe=describe_order_case)

An order is a stage's list of actions, ``("F", k)`` (forward of microbatch k) and
``("B", k)`` (its backward). ``simulate`` runs every stage's order at once, as the real
pipeline does: a forward waits for the previous stage's forward of that microbatch, a
backward for the next stage's backward of it (the last stage: for its own forward), each
stage doing one action at a time (F takes 1 unit, B 2). It finds a *deadlock* (every
unfinished stage waiting for another), and measures each stage's peak number of
microbatches in flight (forward done, backward not yet: their activations are kept) and
the time the whole pipeline takes. ``order_hint`` compares that with 1F1B's.
``draw_timeline`` draws simulated or measured timelines as a Gantt chart.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from widgets.check.check_result import format_value
from widgets.i18n import _

ORDER_CASES = [(2, 4), (3, 5), (4, 4), (4, 8)]  # (stages, microbatches)
DURATION = {"F": 1.0, "B": 2.0}


def reference_one_f_one_b(num_stages: int, n_microbatches: int, stage: int) -> list[tuple[str, int]]:
    """Stage ``stage``'s 1F1B order: ``p - s`` forwards, then one backward and one forward, then the backwards."""
    warmup = min(n_microbatches, num_stages - stage)
    actions = [("F", k) for k in range(warmup)]
    for k in range(n_microbatches - warmup):
        actions += [("B", k), ("F", warmup + k)]
    return actions + [("B", k) for k in range(n_microbatches - warmup, n_microbatches)]


def gpipe_order(num_stages: int, n_microbatches: int, stage: int) -> list[tuple[str, int]]:
    """GPipe's order: every forward, then every backward."""
    return [("F", k) for k in range(n_microbatches)] + [("B", k) for k in range(n_microbatches)]


@dataclass
class Simulation:
    """What running the stages' orders together gave."""

    events: list[list[tuple[str, int, float, float]]]  # per stage: (kind, microbatch, start, end)
    problem: str = ""  # a malformed order or a deadlock, in words
    peaks: list[int] = field(default_factory=list)  # per stage: the most microbatches in flight at once
    makespan: float = 0.0
    orders: list[list[Any]] = field(default_factory=list)

    def __repr__(self) -> str:
        return self.problem or _("{time:g} time units, peaks {peaks}", time=self.makespan, peaks=self.peaks)


def _as_actions(order: Any) -> list[tuple[str, int]] | None:
    """``order`` as a list of (kind, k) with k a Python int, or None when it is not a sequence of such pairs.

    A list, a tuple or a generator of actions; each a tuple or list ("F", k), k any integer
    (``np.arange`` gives NumPy's). A string or None is not an order.
    """
    if order is None or isinstance(order, (str, bytes, dict)) or not hasattr(order, "__iter__"):
        return None
    actions = list(order)
    if not all(isinstance(a, (list, tuple)) and len(a) == 2 and a[0] in ("F", "B")
               and isinstance(a[1], (int, np.integer)) and not isinstance(a[1], bool) for a in actions):
        return None
    return [(kind, int(k)) for kind, k in actions]


def _malformed(orders: Sequence[Any], n_microbatches: int) -> tuple[list[list[tuple[str, int]]], str]:
    """The orders as lists of actions, and '' or what is wrong with them (types, missing or repeated actions)."""
    normalised: list[list[tuple[str, int]]] = []
    for s, order in enumerate(orders):
        actions = _as_actions(order)
        if actions is None:
            if order is None:
                return normalised, _("stage {stage} returned None: did you forget `return actions`?", stage=s)
            return normalised, _("stage {stage}: return a list of actions, each (\"F\", k) or (\"B\", k); got {got}",
                                 stage=s, got=format_value(order))
        normalised.append(actions)
        missing = [(kind, k) for kind in ("F", "B") for k in range(n_microbatches) if (kind, k) not in actions]
        extra = [a for a in actions if not 0 <= a[1] < n_microbatches]
        if extra:
            also = _(", and never {kind} {k}", kind=missing[0][0], k=missing[0][1]) if missing else ""
            return normalised, _("stage {stage} has {action}{also}: the microbatches are 0 .. {last} (numbered from "
                                 "0), each of them runs exactly once", stage=s, action=extra[0], also=also,
                                 last=n_microbatches - 1)
        twice = [a for a in dict.fromkeys(actions) if actions.count(a) > 1]
        if missing and twice:
            return normalised, _("stage {stage} runs {kind} {k} {count} times and never {kind2} {k2}: every forward "
                                 "and backward runs exactly once", stage=s, kind=twice[0][0], k=twice[0][1],
                                 count=actions.count(twice[0]), kind2=missing[0][0], k2=missing[0][1])
        if missing:
            return normalised, _("stage {stage} never runs {kind} {k}: every forward and backward runs exactly once",
                                 stage=s, kind=missing[0][0], k=missing[0][1])
        for kind in ("F", "B"):
            for k in range(n_microbatches):
                count = actions.count((kind, k))
                if count != 1:
                    return normalised, _("stage {stage} runs {kind} {k} {count} times: every forward and backward "
                                         "runs exactly once", stage=s, kind=kind, k=k, count=count)
        for k in range(n_microbatches):
            if actions.index(("B", k)) < actions.index(("F", k)):
                return normalised, _("stage {stage} runs B {k} before F {k}: a microbatch's backward needs its "
                                     "forward's activations", stage=s, k=k)
    return normalised, ""


def simulate(orders: Sequence[Any], n_microbatches: int) -> Simulation:
    """Run every stage's order at once (F: 1 unit, B: 2); a deadlock is reported, not waited for."""
    p = len(orders)
    actions, problem = _malformed(orders, n_microbatches)
    if problem:
        return Simulation([[] for _ in orders], problem, orders=list(actions))
    done: dict[tuple[int, str, int], float] = {}  # (stage, kind, k) -> end time
    events: list[list[tuple[str, int, float, float]]] = [[] for _ in range(p)]
    position, free = [0] * p, [0.0] * p
    while any(position[s] < len(actions[s]) for s in range(p)):
        moved = False
        for s in range(p):
            if position[s] == len(actions[s]):
                continue
            kind, k = actions[s][position[s]]
            need = _dependency(s, kind, k, p)
            if need is not None and need not in done:
                continue
            start = max(free[s], done[need] if need is not None else 0.0)
            end = start + DURATION[kind]
            done[(s, kind, k)] = free[s] = end
            events[s].append((kind, k, start, end))
            position[s] += 1
            moved = True
        if not moved:
            waits = []
            for s in range(p):
                if position[s] < len(actions[s]):
                    kind, k = actions[s][position[s]]
                    need = _dependency(s, kind, k, p)
                    assert need is not None  # only an action waiting for another stage is blocked
                    other, other_kind, _k = need
                    waits.append(_("stage {stage} waits in {kind} {k} for stage {other}'s {other_kind} {k}",
                                   stage=s, kind=kind, k=k, other=other, other_kind=other_kind))
            return Simulation(events, _("the order deadlocks: {waits}, and none of them can go on",
                                        waits="; ".join(waits)), orders=actions)
    return Simulation(events, "", [_peak(a) for a in actions], max(free), actions)


def _dependency(stage: int, kind: str, k: int, p: int) -> tuple[int, str, int] | None:
    """What action (stage, kind, k) waits for on another stage (None: nothing, or its own earlier forward)."""
    if kind == "F":
        return (stage - 1, "F", k) if stage > 0 else None
    return (stage + 1, "B", k) if stage < p - 1 else None


def _peak(actions: list[tuple[str, int]]) -> int:
    kept, peak = set(), 0
    for kind, k in actions:
        if kind == "F":
            kept.add(k)
        else:
            kept.discard(k)
        peak = max(peak, len(kept))
    return peak


def orders_of(fn: Callable[[int, int, int], Any]) -> Callable[[int, int], Simulation]:
    """``run(stages, microbatches)``: every stage's ``fn(stages, microbatches, stage)``, simulated together."""
    return lambda p, m: simulate([fn(p, m, s) for s in range(p)], m)


def order_hint(got: Simulation, expected: Simulation) -> tuple[bool, str]:
    """``compare`` for the 1F1B order: a malformed order, a deadlock, too many in flight, too slow."""
    if got.problem:
        return False, got.problem
    p, m = len(expected.peaks), len(expected.events[0]) // 2
    for s, (peak, limit) in enumerate(zip(got.peaks, expected.peaks)):
        if peak > limit:
            if all(q == m for q in got.peaks):
                return False, _("this is GPipe's order (every forward, then every backward): stage 0 keeps all {m} "
                                "microbatches' activations. 1F1B starts the backwards after p - s forwards, so "
                                "stage s keeps at most p - s", m=m)
            return False, _("stage {stage} keeps {peak} microbatches in flight at once, 1F1B at most p - s = "
                            "{limit}: after its {limit} warm-up forwards, each forward must come after a backward",
                            stage=s, peak=peak, limit=limit)
    if got.makespan > expected.makespan:
        first = [next(i for i, e in enumerate(events) if e[0] == "B") for events in got.events]
        short = [s for s in range(p) if first[s] < p - s and first[s] < m]
        unsorted = [s for s, order in enumerate(got.orders)
                    if [k for kind, k in order if kind == "B"] != list(range(m))]
        where = ""
        if short:
            where = _(" (stage {stage} starts backward after {n} forward(s), 1F1B after p - s = {want})",
                      stage=short[0], n=first[short[0]], want=p - short[0])
        elif unsorted:
            where = _(" (stage {stage} runs its backwards in the order {order}: 1F1B runs them in the microbatches' "
                      "order, 0, 1, 2, ..., as they come back from the next stage)", stage=unsorted[0],
                      order=", ".join(str(k) for kind, k in got.orders[unsorted[0]] if kind == "B"))
        return False, _("the order runs, but the pipeline takes {got:g} time units against 1F1B's {want:g}: "
                        "stages wait idle{where}", got=got.makespan, want=expected.makespan, where=where)
    return True, ""


def describe_order_case(args: tuple[Any, ...]) -> str:
    """The table's name for a case ``(stages, microbatches)``."""
    return _("{p} stages, {m} microbatches", p=args[0], m=args[1])


def draw_timeline(ax: Any, timelines: Sequence[Sequence[Sequence[Any]]], title: str, unit: str = "ms",
                  scale: float = 1e3) -> None:
    """A Gantt chart: one row per stage, each (kind, microbatch, start, end) a box labelled with the microbatch."""
    colors = {"F": "#4C72B0", "B": "#DD8452"}
    for s, events in enumerate(timelines):
        for kind, k, start, end in events:
            ax.barh(s, (end - start) * scale, left=start * scale, color=colors[kind], edgecolor="white", height=0.8)
            ax.text((start + end) / 2 * scale, s, str(k), ha="center", va="center", color="white", fontsize=9)
    ax.set_yticks(range(len(timelines)), [_("stage {stage}", stage=s) for s in range(len(timelines))])
    ax.invert_yaxis()
    ax.set_xlabel(_("time ({unit})", unit=unit))
    ax.set_title(title, fontsize=10)
    handles = [ax.barh(0, 0, color=colors["F"]), ax.barh(0, 0, color=colors["B"])]
    ax.legend(handles, [_("forward"), _("backward")], loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=9)
