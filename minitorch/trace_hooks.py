"""The interface ``minitorch.compile``'s tracer records through (``minitorch/jit/tracer.py``).

The eager engine does not depend on the compiled path, but it offers it one slot:
``SWITCHES.tracer``. It is None, except while ``minitorch.compile`` runs a step for the first
time to write it down; then the places below tell the tracer (a ``Recorder``) what the step
does, each behind one ``if SWITCHES.tracer is not None`` (all the eager path pays):

- ``Function.apply`` hands each op call to ``record_op`` (the tracer runs it and notes it),
  ``Tensor.backward``, ``autograd.grad`` and the engine's ``run_backward`` hand a backward
  pass to ``record_backward`` / ``record_grad`` / ``record_pass``: the recorder runs it itself
  and returns, or answers ``GO_ON`` (the call goes on as usual while it watches);
- a Python call a replay must make again because its numbers change from step to step
  (``optimizer.step()``, ``zero_grad()``, ``scheduler.step()``, ``clip_grad_norm_``) is
  marked ``@replayed`` where it is defined, and goes to ``record_call``;
- ``TensorBase`` tells about a tensor made outside an op (``tensor_made``), a value handed to
  Python (``value_read``: ``item``, ``bool``, printing...), an in-place change (``in_place``)
  and ``.grad`` read or set; ``minitorch.random`` about random numbers drawn (``random_draw``).

While a recorded op or call runs, ``recording`` is False: what happens inside it belongs to
it (it runs again on replay), so apply and backward do not hand it over again.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from minitorch.switches import SWITCHES

F = TypeVar("F", bound=Callable[..., Any])

GO_ON = object()  # a recorder's answer to a backward hook: "run it here as usual, I am watching"


class Recorder(Protocol):
    """What the hooks call on ``SWITCHES.tracer`` (implemented by ``jit.tracer.Tracer``)."""

    recording: bool  # False inside a recorded op or call: its insides are not handed over again
    in_op: int  # how many recorded ops are running (random numbers drawn inside one are fine)

    def record_op(self, function: type, args: tuple[Any, ...]) -> Any:
        """Run ``function.apply(*args)`` and write the op down; return its result."""

    def record_backward(
        self, run: Callable[..., None], tensor: Any, gradient: Any, retain_graph: Any, create_graph: bool, inputs: Any
    ) -> None:
        """Run ``tensor.backward(...)`` (``run``: the engine's ``tensor_backward``) and write the pass down
        (or answer ``GO_ON``)."""

    def record_grad(
        self, run: Callable[..., Any], outputs: Any, inputs: Any, grad_outputs: Any, settings: dict[str, Any]
    ) -> Any:
        """Run ``autograd.grad(outputs, inputs, grad_outputs, **settings)`` (``run``) and write it down;
        return its gradients (or answer ``GO_ON``)."""

    def record_pass(
        self, run: Callable[..., None], root: Any, gradient: Any, retain_graph: bool, capture: Any, create_graph: bool
    ) -> None:
        """A pass of the engine not started by ``Tensor.backward`` (``autograd.grad``, ``autograd.backward``):
        run it and write it down, or answer ``GO_ON``."""

    def record_call(self, function: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """Make the ``@replayed`` call ``function(*args, **kwargs)`` and write it down; return its result."""

    def tensor_made(self, tensor: Any, from_python: bool) -> None:
        """A tensor was made outside an op: from arrays (``_make``) or from Python data (``_from_data``)."""

    def value_read(self, what: str) -> None:
        """A tensor's value goes to Python (``item``, ``bool``, ``tolist``, printing...)."""

    def in_place(self, tensor: Any) -> None:
        """A tensor's memory is about to change in place (its version goes up)."""

    def grad_read(self, tensor: Any) -> None:
        """``tensor.grad`` is read."""

    def grad_set(self, tensor: Any, value: Any) -> None:
        """``tensor.grad = value`` is about to happen."""

    def random_draw(self, what: str) -> None:
        """Random numbers are drawn, or the generator's state changes (``what``: where)."""

    def graph_break(self, reason: str) -> None:
        """The step does something a replay could not repeat (``reason`` says what)."""


def replayed(function: F) -> F:
    """Mark a Python call whose numbers change from step to step, so that a step compiled with
    ``minitorch.compile`` makes it again on every replay (an optimizer's ``step``, a scheduler's).

    Outside a trace it is the call itself, after one test.
    """

    @functools.wraps(function)
    def call(*args: Any, **kwargs: Any) -> Any:
        tracer = SWITCHES.tracer
        if tracer is not None and tracer.recording:  # minitorch.compile is recording the step
            return tracer.record_call(function, args, kwargs)
        return function(*args, **kwargs)

    call.replayed = True  # type: ignore[attr-defined]
    return call  # type: ignore[return-value]


def replay_methods(cls: type, *names: str) -> None:
    """Make the methods ``names`` that ``cls`` itself defines ``@replayed`` (from a base class's
    ``__init_subclass__``: a subclass's own ``step`` is replayed as its parent's is)."""
    for name in names:
        method = cls.__dict__.get(name)
        if callable(method) and not getattr(method, "replayed", False):
            setattr(cls, name, replayed(method))


def unwrapped(function: Any) -> Any:
    """The function a ``@replayed`` wrapper calls (the function itself for any other)."""
    return function.__wrapped__ if getattr(function, "replayed", False) else function


__all__ = ["GO_ON", "Recorder", "replay_methods", "replayed", "unwrapped"]
