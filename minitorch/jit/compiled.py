"""``minitorch.compile(fn)``: trace a step once per signature, replay it afterwards.

    @minitorch.compile
    def train_step(x, y):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss

    for x, y in loader:
        loss = train_step(x, y)      # 1st call: eager + recording; then: replay

Each call is looked up by its guard (``guards.signature``). Unknown: the call runs eagerly
under the tracer, and the recording becomes that signature's program, unless the trace
met a graph break, in which case that signature always runs eagerly (a warning says why,
once per line; ``fullgraph=True`` raises instead). Known: the program replays.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any

from minitorch.jit import guards
from minitorch.jit.capture import maybe_capture
from minitorch.jit.errors import GraphBreakWarning
from minitorch.jit.guard_code import make_fast_guard
from minitorch.jit.lowering import FALLBACK, lower_program
from minitorch.jit.program import Program
from minitorch.jit.tracer import Tracer
from minitorch.switches import SWITCHES

DEFAULT_CACHE_SIZE = 8  # signatures per function, as torch.compile's cache_size_limit


@dataclass
class Entry:
    """What one signature got: a program to replay, or the reasons it runs eagerly."""

    key: Any
    program: Program | None
    breaks: list[tuple[str, str, int, str]] = field(default_factory=list)
    replays: int = 0
    captured: Any = None  # a CUDA graph of the replay (capture.py), when one was made
    fast_guard: Any = None  # guard_code.FastGuard: the same signature again, without building the key


class CompiledFunction:
    """A step that traces itself once per signature and replays afterwards (``minitorch.compile``)."""

    def __init__(
        self, fn: Any, fullgraph: bool = False, cache_size: int = DEFAULT_CACHE_SIZE, capture: bool | None = None
    ) -> None:
        if not callable(fn):
            raise TypeError(f"minitorch.compile: expected a function or a module, got {type(fn).__name__}")
        self.fn = fn
        self.fullgraph = fullgraph
        self.cache_size = int(cache_size)
        self.capture = capture  # None: capture a CUDA graph where the program allows it
        self.entries: dict[Any, Entry] = {}
        self.eager_reasons: list[str] = []  # why calls ran eagerly without a trace (cache full, ...)
        self.traces = 0
        self._warned: set[tuple[str, int, str]] = set()
        self._last: Entry | None = None  # the entry of the last call (most calls repeat its signature)
        self._reads = guards.environment_reads(fn)
        self.__wrapped__ = fn
        self.__name__ = getattr(fn, "__name__", type(fn).__name__)
        self.__doc__ = getattr(fn, "__doc__", None)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if SWITCHES.tracer is not None:  # called from a step being traced: its ops belong to that trace
            return self.fn(*args, **kwargs)
        last = self._last
        entry: Entry | None
        flat: list[Any]
        if not kwargs and last is not None and last.fast_guard is not None and last.fast_guard(args):
            entry, flat, key = last, list(args), last.key  # the same signature as the call before
        else:
            keywords = tuple(sorted(kwargs))
            flat = [*args, *(kwargs[k] for k in keywords)]
            key = guards.signature(flat, keywords, guards.environment(self.fn, *self._reads))
            entry = self.entries.get(key)
            if entry is None:
                if len(self.entries) >= self.cache_size:
                    self._note_eager(f"more than cache_size={self.cache_size} signatures: new ones run eagerly")
                    return self.fn(*args, **kwargs)
                return self._trace(key, flat, args, kwargs)
            self._last = entry
        program = entry.program
        if program is None:
            return self.fn(*args, **kwargs)
        if not program.live_arrays_unchanged():  # a parameter got a new array (load_state_dict, .to())
            del self.entries[key]
            self._last = None
            return self._trace(key, flat, args, kwargs)
        entry.replays += 1
        if entry.captured is not None:
            return entry.captured(flat)
        if program.to_lower is not None:  # the first replay: op by op, then written out for the next ones
            missing: set[tuple[int, int]] = set()
            kernels: dict[int, Any] = {}
            output = program.run(flat, missing, kernels)
            lower_program(program, missing, kernels)
            return output
        if program.lowered is not None:
            output = program.lowered.replay(flat)
            if output is not FALLBACK:
                return output
        return program.run(flat)

    def _trace(self, key: Any, flat: list[Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """Run the call eagerly under the tracer; keep its program (or its reasons to stay eager)."""
        fast_guard = make_fast_guard(self.fn, self._reads, flat, key[1])  # what the key read, before the step runs
        tracer = Tracer(self.fullgraph)
        with tracer:
            tracer.add_inputs(flat)
            output = self.fn(*args, **kwargs)
            program = tracer.finish(output)
        self.traces += 1
        breaks = tracer.breaks
        entry = Entry(key, None if breaks else program, breaks)
        if not breaks:
            entry.captured = maybe_capture(self, program, flat)
        entry.fast_guard = fast_guard
        self.entries[key] = entry
        self._last = entry
        for reason, file, line, _ in breaks:
            if (file, line, reason) not in self._warned:
                self._warned.add((file, line, reason))
                message = f"minitorch.compile({self.__name__}): this step runs eagerly: {reason}"
                if line:
                    warnings.warn_explicit(message, GraphBreakWarning, file, line)
                else:
                    warnings.warn(message, GraphBreakWarning, stacklevel=3)
        return output

    def _note_eager(self, reason: str) -> None:
        if reason not in self.eager_reasons:
            self.eager_reasons.append(reason)
            warnings.warn(f"minitorch.compile({self.__name__}): {reason}", GraphBreakWarning, stacklevel=3)

    def __repr__(self) -> str:
        return f"<compiled {self.__name__}: {len(self.entries)} signature(s), {self.traces} trace(s)>"


def compile(
    fn: Any = None,
    *,
    fullgraph: bool = False,
    cache_size: int = DEFAULT_CACHE_SIZE,  # noqa: A001
    capture: bool | None = None,
    **unused: Any,
) -> Any:
    """``minitorch.compile(fn)``, or ``@minitorch.compile`` / ``@minitorch.compile(fullgraph=True)``.

    The first call with a new signature runs ``fn`` eagerly and records it; later calls with
    that signature replay the recording. ``fullgraph=True``: a graph break is an error.
    ``cache_size``: how many signatures are kept (then new ones run eagerly). ``capture``:
    on a GPU, replay through one CUDA graph launch (None: wherever the program allows it).
    PyTorch's ``mode``, ``backend``, ``dynamic`` and ``options`` are accepted and ignored.
    """
    ignored = set(unused) - {"mode", "backend", "dynamic", "options", "disable"}
    if ignored:
        raise TypeError(f"minitorch.compile() got unexpected keyword argument(s) {sorted(ignored)}")
    if fn is None:
        return lambda f: compile(f, fullgraph=fullgraph, cache_size=cache_size, capture=capture, **unused)
    if unused.get("disable"):
        return fn
    if isinstance(fn, CompiledFunction):
        # compile(compile(f)): the same compiled step (its traces kept) with the same settings;
        # with other settings, a new compile of the function it wraps, never a compile of a compile
        if (fn.fullgraph, fn.cache_size, fn.capture) == (fullgraph, int(cache_size), capture):
            return fn
        fn = fn.fn
    return CompiledFunction(fn, fullgraph, cache_size, capture)
