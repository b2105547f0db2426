"""Lesson 16's parts and checks: a small recorded program to replay, and a step to make replayable.

    check_function("replay loop", replay_runs(replay), replay_runs(reference_replay),
                   cases=REPLAY_CASES, compare=replay_hint, describe=describe_replay_case)
    check_function("a replayable step", replayable_runs(make_step, train), replayable_runs(reference_make_step,
                   reference_train), cases=STEP_CASES, compare=replayable_hint)

A ``Recording`` is the lesson's toy version of what ``minitorch.compile`` writes down:
named buffers allocated once (inputs, weights, every intermediate) and a list of kernels,
each a NumPy function called with ``out=`` one of the buffers. ``replay_runs`` replays a
fresh recording twice with different inputs and records what came out and whether the
buffers are still the recording's own; ``replay_hint`` names the mistake (a new array per
kernel, kernels out of order, inputs not copied in, a copy returned).

``replayable_runs`` trains the digits MLP with the learner's step through
``minitorch.compile(..., fullgraph=True)`` and records the losses, the final parameters
and how the step was compiled; ``replayable_hint`` says which value read is left, or why
the losses differ from the eager step's.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

import minitorch
from minitorch.examples.digits import make_mlp
from minitorch.jit import GraphBreakError
from minitorch.nn import functional as F
from widgets.i18n import _


# ---------------------------------------------------------------------- exercise 1: the replay loop
@dataclass
class Kernel:
    """``fn(*buffers[reads], out=buffers[writes])``: one recorded NumPy call."""

    fn: Any
    reads: tuple[str, ...]
    writes: str

    def __repr__(self) -> str:
        return f"{self.writes} = {self.fn.__name__}({', '.join(self.reads)})"


@dataclass
class Recording:
    """A recorded program: its input and output buffer names, the buffers, the kernels in order."""

    inputs: tuple[str, ...]
    output: str
    buffers: dict[str, np.ndarray]
    kernels: list[Kernel]


def record_mlp_forward(batch: int = 4, seed: int = 0) -> Recording:
    """``logits = relu(x @ W1 + b1) @ W2 + b2`` as five kernels; ``h`` and ``logits`` are written twice."""
    rng = np.random.default_rng(seed)
    f32 = np.float32
    buffers = {
        "x": np.zeros((batch, 4), f32),
        "W1": rng.standard_normal((4, 8)).astype(f32),
        "b1": rng.standard_normal(8).astype(f32),
        "zero": np.zeros((), f32),
        "h": np.zeros((batch, 8), f32),
        "r": np.zeros((batch, 8), f32),
        "W2": rng.standard_normal((8, 3)).astype(f32),
        "b2": rng.standard_normal(3).astype(f32),
        "logits": np.zeros((batch, 3), f32),
    }
    kernels = [
        Kernel(np.matmul, ("x", "W1"), "h"),
        Kernel(np.add, ("h", "b1"), "h"),
        Kernel(np.maximum, ("h", "zero"), "r"),
        Kernel(np.matmul, ("r", "W2"), "logits"),
        Kernel(np.add, ("logits", "b2"), "logits"),
    ]
    return Recording(("x",), "logits", buffers, kernels)


def record_gaussian(n: int = 6) -> Recording:
    """``y = exp(-(x * x) / 2) * a``: four kernels, one buffer ``t`` reused by three of them.

    Its buffers list ``a`` before ``x``, unlike ``inputs``: a replay must copy the inputs by
    ``recording.inputs``, and one that follows the dict's order (``zip(buffers, inputs)``)
    swaps them here.
    """
    f32 = np.float32
    buffers = {"a": np.zeros(n, f32), "x": np.zeros(n, f32), "half": np.asarray(0.5, f32),
               "t": np.zeros(n, f32), "y": np.zeros(n, f32)}
    kernels = [
        Kernel(np.multiply, ("x", "x"), "t"),
        Kernel(np.multiply, ("t", "half"), "t"),
        Kernel(np.negative, ("t",), "t"),
        Kernel(np.exp, ("t",), "y"),
        Kernel(np.multiply, ("y", "a"), "y"),
    ]
    return Recording(("x", "a"), "y", buffers, kernels)


REPLAY_CASES = [("mlp forward",), ("gaussian",)]
_RECORDINGS: dict[str, Callable[[], Recording]] = {"mlp forward": record_mlp_forward, "gaussian": record_gaussian}


def describe_replay_case(args: tuple[Any, ...]) -> str:
    shown = {"mlp forward": _("mlp forward"), "gaussian": _("gaussian")}.get(args[0], args[0])  # args[0]: a key
    return _("{case}, replayed twice", case=shown)


def _inputs(recording: Recording, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(recording.buffers[n].shape).astype(np.float32) for n in recording.inputs]


def reference_replay(recording: Recording, inputs: list[np.ndarray]) -> np.ndarray:
    """Copy the inputs into their buffers, run every kernel in order into its buffer, return the output buffer."""
    buffers = recording.buffers
    for name, value in zip(recording.inputs, inputs):
        buffers[name][...] = value
    for kernel in recording.kernels:
        kernel.fn(*[buffers[name] for name in kernel.reads], out=buffers[kernel.writes])
    return buffers[recording.output]


@dataclass
class ReplayRecord:
    """Two replays of one recording: the outputs, and whether the buffers stayed the recording's."""

    outputs: list[Any]
    returned_buffer: list[bool]  # per call: was the returned array the output buffer itself?
    buffers_kept: bool  # every buffer still the very array the recording allocated
    out_of_order: np.ndarray  # what the kernels give when run in reverse order (for the hint)
    stale_inputs: np.ndarray  # what they give when the inputs are never copied in (for the hint)
    replaced: tuple[str, ...] = ()  # the buffers that are no longer the recording's arrays
    inputs: tuple[str, ...] = ()  # the recording's input buffers
    variants: tuple[tuple[Any, str], ...] = ()  # (first replay's output of a wrong loop, its hint)

    def __repr__(self) -> str:
        shapes = [getattr(o, "shape", type(o).__name__) for o in self.outputs]
        if self.buffers_kept:
            return _("outputs {shapes}, buffers kept", shapes=shapes)
        return _("outputs {shapes}, buffers replaced", shapes=shapes)


def replay_runs(replay_fn: Callable[[Recording, list[np.ndarray]], Any]) -> Callable[[str], ReplayRecord]:
    """``run(case)``: replay a fresh recording of ``case`` twice (two different inputs) with ``replay_fn``."""

    def run(case: str) -> ReplayRecord:
        recording = _RECORDINGS[case]()
        allocated = dict(recording.buffers)
        outputs, returned = [], []
        for seed in (1, 2):
            out = replay_fn(recording, _inputs(recording, seed))
            returned.append(out is recording.buffers[recording.output] and out is allocated[recording.output])
            outputs.append(np.array(out, copy=True) if isinstance(out, np.ndarray) else out)
        replaced = tuple(k for k, v in allocated.items() if recording.buffers.get(k) is not v)
        reverse = _RECORDINGS[case]()
        reverse.kernels = reverse.kernels[::-1]
        reference_replay(reverse, _inputs(reverse, 1))
        stale = _RECORDINGS[case]()
        reference_replay(stale, [stale.buffers[n].copy() for n in stale.inputs])  # the recording's own inputs
        return ReplayRecord(outputs, returned, not replaced, reverse.buffers[reverse.output].copy(),
                            stale.buffers[stale.output].copy(), replaced, recording.inputs, _wrong_loops(case))

    return run


def _wrong_loops(case: str) -> tuple[tuple[Any, str], ...]:
    """What the first replay of ``case`` gives for loops learners write wrong, each with its hint."""

    def first_replay(change: Callable[[Recording], None]) -> Any:
        recording = _RECORDINGS[case]()
        change(recording)
        try:
            return reference_replay(recording, _inputs(_RECORDINGS[case](), 1)).copy()
        except (ValueError, KeyError):  # this wrong loop does not even fit this recording
            return None

    def by_dict_order(r: Recording) -> None:  # zip(buffers, inputs): the dict's first names get the inputs
        r.inputs = tuple(list(r.buffers)[:len(r.inputs)])

    def without(index: int) -> Callable[[Recording], None]:
        def drop(r: Recording) -> None:
            del r.kernels[index]
        return drop

    return (
        (first_replay(by_dict_order), _("the inputs went into the wrong buffers: recording.buffers also holds "
                                        "weights and intermediates, in its own order; copy the inputs by "
                                        "recording.inputs (for name, value in zip(recording.inputs, inputs))")),
        (first_replay(without(-1)), _("the last kernel did not run: run every kernel of recording.kernels, in the "
                                      "recorded order")),
        (first_replay(without(0)), _("the first kernel did not run: run every kernel of recording.kernels, in the "
                                     "recorded order")),
    )


def replay_hint(got: ReplayRecord, expected: ReplayRecord) -> tuple[bool, str]:
    """``compare``: the first mistake the learner's replays show, named."""
    if any(o is None for o in got.outputs):
        return False, _("returned None: return the output buffer, buffers[recording.output]")
    if not got.buffers_kept:
        if got.replaced and set(got.replaced) <= set(got.inputs):
            return False, _("the input buffer(s) {names} replaced by the new input arrays: copy the values into "
                            "the recording's buffers instead (buffers[name][...] = value); the kernels read those "
                            "buffers", names=", ".join(got.replaced))
        return False, _("a buffer of the recording was replaced by a new array: a replay allocates nothing, it "
                        "writes into the buffers it has (kernel.fn(..., out=buffers[kernel.writes]))")
    for i, (g, e) in enumerate(zip(got.outputs, expected.outputs), 1):
        if not isinstance(g, np.ndarray) or g.shape != e.shape:
            shape = getattr(g, "shape", "")
            return False, _("replay {i} returned {type} {shape}, expected an array of shape {expected}", i=i,
                            type=type(g).__name__, shape=shape, expected=e.shape)
        stale = i == 1 and np.array_equal(g, got.stale_inputs)
        if stale or i == 2 and np.array_equal(g, got.outputs[0]) and not np.array_equal(e, expected.outputs[0]):
            return False, _("replay {i} computed with old inputs: copy each new input into its buffer "
                            "(buffers[name][...] = value) before running the kernels", i=i)
        if not np.array_equal(g, e):
            if i == 1 and np.array_equal(g, got.out_of_order):
                return False, _("the kernels ran in reverse order: run them in the recorded order, first to last")
            for wrong, hint in got.variants if i == 1 else ():
                if wrong is not None and np.array_equal(g, wrong):
                    return False, hint
            return False, _("replay {i}: the output differs from the recorded program's: run every kernel, in the "
                            "recorded order (each one reads what the kernels before it wrote)", i=i)
    if not all(got.returned_buffer):
        return False, _("the right values, but in a new array: return the output buffer itself, not a copy")
    return True, ""


# ---------------------------------------------------------------------- exercise 2: a replayable step
STEP_CASES = [(6,)]


def reference_make_step(model: Any, optimizer: Any) -> Callable[[Any, Any], Any]:
    """The lesson-08 step, replayable: it returns the loss tensor and reads no value."""

    def step(x: Any, y: Any) -> Any:
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        return loss

    return step


def reference_train(step: Callable[[Any, Any], Any], batches: list[tuple[Any, Any]]) -> list[float]:
    """One float per batch, read outside the compiled step."""
    return [step(x, y).item() for x, y in batches]


@dataclass
class StepRecord:
    """What training with a compiled step left: losses, parameters, and how it was compiled."""

    losses: Any
    params: list[np.ndarray]
    error: str  # a GraphBreakError's message, or ""
    replays: int
    moved: bool  # did the parameters change at all?
    returned_none: bool = False  # train failed calling .item() on the None the step returned
    other_optimizers: tuple[str, ...] = ()  # global names of optimizers the step uses instead of its own

    def __repr__(self) -> str:
        return self.error.split(";")[0] if self.error else _("{n} replays", n=self.replays)


def _digits_batches(steps: int) -> list[tuple[Any, Any]]:
    split = minitorch.datasets.load_digits()
    return [(split.X_train[i * 32:(i + 1) * 32], split.y_train[i * 32:(i + 1) * 32]) for i in range(steps)]


def replayable_runs(make_step: Callable[..., Any], train: Callable[..., Any]) -> Callable[[int], StepRecord]:
    """``run(steps)``: the digits MLP trained on ``steps`` batches by ``train(compile(step, fullgraph=True))``."""

    def run(steps: int) -> StepRecord:
        minitorch.manual_seed(0)
        model = make_mlp()
        optimizer = minitorch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        initial = [p.data.copy() for p in model.parameters()]
        step = make_step(model, optimizer)
        compiled = minitorch.compile(step, fullgraph=True)
        returned_none = False
        try:
            losses = train(compiled, _digits_batches(steps))
            error = ""
        except GraphBreakError as exc:
            losses, error = None, str(exc)
        except AttributeError as exc:
            if "'NoneType' object has no attribute" not in str(exc):
                raise
            losses, error, returned_none = None, "", True
        replays = sum(e.replays for e in compiled.entries.values() if e.program is not None)
        params = [p.data.copy() for p in model.parameters()]
        moved = not all(np.array_equal(a, b) for a, b in zip(params, initial))
        return StepRecord(losses, params, error, replays, moved, returned_none, _other_optimizers(step, optimizer))

    return run


def _other_optimizers(step: Any, optimizer: Any) -> tuple[str, ...]:
    """The global names the step's code reads that hold an optimizer other than the one it was made with."""
    code, scope = getattr(step, "__code__", None), getattr(step, "__globals__", {})
    names = code.co_names if code is not None else ()
    return tuple(n for n in names if isinstance(scope.get(n), minitorch.optim.Optimizer) and scope[n] is not optimizer)


# float32 rounding: an answer written differently (nll_loss of log_softmax for cross_entropy)
# ends 6 steps within ~3e-8 of the reference; the wrong steps learners write are off by >1e-3
LOSS_RTOL, PARAM_RTOL, PARAM_ATOL = 1e-5, 1e-4, 1e-6


def replayable_hint(got: StepRecord, expected: StepRecord) -> tuple[bool, str]:
    """``compare``: what keeps the step from being replayed, or where its training differs."""
    if got.returned_none:
        return False, _("the step returned None, so train's .item() failed: end the step with return loss")
    if got.error:
        return False, _graph_break_hint(got.error)
    if not isinstance(got.losses, list) or len(got.losses) != len(expected.losses):
        return False, _("train must return a list of {n} losses, one per batch; got {losses!r}",
                        n=len(expected.losses), losses=got.losses)
    if not all(isinstance(v, float) for v in got.losses):
        return False, _("train's losses must be Python floats: call .item() on the tensor the step returns")
    if got.replays != expected.replays:
        return False, _("the step was replayed {got} times, expected {expected}: call the compiled "
                        "step once per batch", got=got.replays, expected=expected.replays)
    if got.other_optimizers and not got.moved:
        return False, _("the step steps {names}, a global optimizer, not the one make_step received: use its "
                        "argument (optimizer.zero_grad(), optimizer.step())", names=", ".join(got.other_optimizers))
    if not got.moved:
        return False, _("the parameters never changed: call optimizer.step() after loss.backward(), in the step")
    for i, (g, e) in enumerate(zip(got.losses, expected.losses), 1):
        if not np.isclose(g, e, rtol=LOSS_RTOL, atol=0):
            if i > 1:
                return False, _("step {i}: loss {got:.6f}, expected {expected:.6f} (the eager step's) "
                                "(did you clear the gradients with optimizer.zero_grad() in the step?)", i=i, got=g,
                                expected=e)
            return False, _("step {i}: loss {got:.6f}, expected {expected:.6f} (the eager step's)", i=i,
                            got=g, expected=e)
    if not all(np.allclose(a, b, rtol=PARAM_RTOL, atol=PARAM_ATOL) for a, b in zip(got.params, expected.params)):
        return False, _("the losses match but the parameters differ: call optimizer.step() once per step")
    return True, ""


def _graph_break_hint(error: str) -> str:
    """The hint for a step that ``compile(..., fullgraph=True)`` refused, by what it found."""
    if "graph is still to be used" in error:
        return _("the step only runs the forward pass: a compiled step is the whole training step, so call "
                 "loss.backward() and optimizer.step() inside it, then return loss")
    if "returns a Python" in error:
        kind = error.split("returns a Python ")[1].split(",")[0]
        return _("the step returns a Python {kind} (loss.item() or loss.data?): return the loss tensor itself, "
                 "return loss, and call .item() on it in train", kind=kind)
    what = error.split(" reads a value")[0]
    return _("the step still hands a value to Python ({what}): a replay would freeze it. Return the loss tensor "
             "from the step and call .item() on it outside, in train", what=what)


# ---------------------------------------------------------------------- section 1: the arithmetic alone
def numpy_sgd_step(params: list[np.ndarray], x: np.ndarray, y: np.ndarray, lr: float) -> float:
    """One SGD step of the 64-128-10 MLP written out in NumPy: the arithmetic a step needs, no framework.

    ``params`` are (W1, b1, W2, b2) with weights shaped (out, in), as ``nn.Linear`` keeps them.
    """
    W1, b1, W2, b2 = params
    n = x.shape[0]
    h = x @ W1.T + b1
    r = np.maximum(h, 0)
    z = r @ W2.T + b2
    z -= z.max(axis=1, keepdims=True)
    e = np.exp(z)
    s = e.sum(axis=1, keepdims=True)
    loss = float(np.log(s).mean() - z[np.arange(n), y].mean())
    d = e / s
    d[np.arange(n), y] -= 1
    d /= n
    grads = [None, None, d.T @ r, d.sum(axis=0)]
    dr = d @ W2
    dr *= h > 0
    grads[0], grads[1] = dr.T @ x, dr.sum(axis=0)
    for p, g in zip(params, grads):
        p -= lr * g
    return loss


def describe_step_case(args: tuple[Any, ...]) -> str:
    """The table's name for a case ``(steps,)`` of the replayable step."""
    return _("{n} steps of the digits MLP, compiled with fullgraph=True", n=args[0])
