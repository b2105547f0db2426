"""Lesson 18's thread ranks, recorded: each rank's calls on its ``comm``, and where the ranks disagree.

    recording = RecordingComm(comm)        # in each rank's thread; recording.calls grows
    hint = disagreement([c.calls for c in comms])   # '' or the first call the ranks did not make alike

A collective (``allreduce``, ``bcast``) works only when every rank calls it, in the same
order, with the same root. A learner's function that skips one on some ranks deadlocks or
sums the wrong arrays; the thread ranks then stop with an error that says *that* something
went wrong. ``disagreement`` says *where*: the first call whose name, root or array shape
differs between two ranks, or the rank that stopped calling.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from widgets import style
from widgets.i18n import _

COLLECTIVES = ("allreduce", "Allreduce", "bcast", "Bcast")


@dataclass(frozen=True)
class Call:
    """One call on a rank's comm: its name, its ``root`` (bcast) and the shape of the array passed (or None)."""

    name: str
    root: Any = None
    shape: tuple[int, ...] | None = None


class RecordingComm:
    """A rank's ``comm`` that notes every method called on it (``calls``), then runs it.

    ``before_call(name)``, if given, runs before each call is made (a check can look at the
    rank's arrays at that moment).
    """

    def __init__(self, comm: Any, before_call: Callable[[str], None] | None = None) -> None:
        self._comm = comm
        self.rank, self.size = comm.rank, comm.size
        self.calls: list[Call] = []
        self.before_call = before_call

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._comm, name)
        if not callable(value):
            return value

        def recorded(*args: Any, **kwargs: Any) -> Any:
            root = kwargs.get("root", args[1] if len(args) > 1 else None) if name in ("bcast", "Bcast") else None
            sent = args[0] if args else kwargs.get("obj", kwargs.get("sendobj"))
            shape = tuple(np.shape(sent)) if isinstance(sent, np.ndarray) else None
            if self.before_call is not None:
                self.before_call(name)
            self.calls.append(Call(name, root, shape))
            return value(*args, **kwargs)
        return recorded


def _ordinal(k: int) -> str:
    return _("call {k}", k=k + 1)


def disagreement(calls: list[list[Call]]) -> str:
    """'' or, in words, the first collective call that the ranks did not make alike."""
    collectives = [[c for c in rank if c.name in COLLECTIVES] for rank in calls]
    for k in range(max((len(c) for c in collectives), default=0)):
        made = [(r, c[k]) for r, c in enumerate(collectives) if k < len(c)]
        missing = [r for r, c in enumerate(collectives) if k >= len(c)]
        (r0, first) = made[0]
        if missing:
            return _("rank {rank} made {n} collective call(s), rank {other} more (its {which}: comm.{name}): every "
                     "rank must make the same collective calls in the same order. Is one of them inside an `if` on "
                     "comm.rank?", rank=missing[0], n=len(collectives[missing[0]]), other=r0, which=_ordinal(k),
                     name=first.name)
        for r, call in made[1:]:
            if call.name.lower() != first.name.lower():
                return _("in their {which}, rank {a} called comm.{name_a} and rank {b} comm.{name_b}: every rank "
                         "must make the same collective calls in the same order", which=_ordinal(k), a=r0,
                         name_a=first.name, b=r, name_b=call.name)
            if call.name.lower() == "bcast" and call.root != first.root:
                return _("in their {which}, comm.bcast, rank {a} gave root={root_a} and rank {b} root={root_b}: "
                         "every rank calls comm.bcast with the same root (the owner sends, the others receive), "
                         "the root included", which=_ordinal(k), a=r0, root_a=first.root, b=r, root_b=call.root)
            if (call.name.lower() == "allreduce" and call.shape is not None and first.shape is not None
                    and call.shape != first.shape):
                return _("in their {which}, comm.allreduce, rank {a} sent an array of shape {shape_a} and rank {b} "
                         "one of shape {shape_b}: the ranks summed different arrays. Every rank must make the same "
                         "all-reduces in the same order. Is one of them inside an `if` on comm.rank?",
                         which=_ordinal(k), a=r0, shape_a=style.fmt_shape(first.shape), b=r,
                         shape_b=style.fmt_shape(call.shape))
    return ""
