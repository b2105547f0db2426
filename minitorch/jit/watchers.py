"""The recording versions of the methods a trace swaps in (``Tracer._install``).

Each takes the tracer and the original, and returns a function that does what the
original does, after telling the tracer. Inside a recorded op (``tracer.in_op``) or a
replayed call (``tracer.in_call``: an optimizer step, the engine's backward) they only
pass through, since that whole op or call runs again on replay.
"""

from __future__ import annotations

import functools
import sys
from typing import Any

from minitorch.tensor_base import TensorBase

# Where minitorch makes a tensor outside an op from Python values or shapes only (a constant
# the replay may keep): (file inside minitorch/, function or None for any). Everything else
# made outside an op (comparisons, argmax's indices, nonzero, a .grad) depends on values.
CONSTANT_MAKERS = (
    ("factories.py", None),
    ("functions/arithmetic.py", "as_operand"),
    ("functions/arithmetic.py", "where"),
    ("functions/clamping.py", None),
    ("functions/attention.py", None),
    ("functions/rearranging.py", "repeat_interleave"),
)


def _makes_constants(code: Any) -> bool:
    path = code.co_filename.replace("\\", "/")
    return any(path.endswith("minitorch/" + file) and name in (None, code.co_name) for file, name in CONSTANT_MAKERS)


def traced_apply(tracer: Any, apply: Any) -> Any:
    """``Function.apply`` that records each op called from the step."""

    def apply_recorded(cls: type, *args: Any) -> Any:
        if tracer.in_op or tracer.in_call:
            return apply(cls, *args)
        return tracer.record_op(cls, args, apply)

    return apply_recorded


def traced_backward(tracer: Any, backward: Any) -> Any:
    """``Tensor.backward`` that records the pass's plan."""

    def backward_recorded(self: TensorBase, gradient: Any = None, retain_graph: bool = False) -> None:
        if tracer.in_op or tracer.in_call:
            return backward(self, gradient, retain_graph)
        tracer.record_backward(self, gradient, retain_graph, backward)
        return None

    backward_recorded.__doc__ = backward.__doc__
    return backward_recorded


def value_reader(tracer: Any, name: str, original: Any) -> Any:
    """A method that hands a tensor's value to Python: a graph break outside ops and calls."""

    def read(self: TensorBase, *args: Any, **kwargs: Any) -> Any:
        if not (tracer.in_op or tracer.in_call):
            what = {
                "__bool__": "bool(tensor)",
                "item": ".item() (or float(t), int(t), f'{t:.3f}')",
                "__index__": "using a tensor as an index",
                "__repr__": "printing a tensor",
                "__array__": "NumPy reading a tensor",
            }.get(name, f".{name}()")
            tracer.graph_break(
                f"{what} reads a value during the step: a replay would freeze the value of the trace, "
                "so this step runs eagerly"
            )
            tracer.in_call += 1  # item() calls _on_host, __float__ calls item(): one break is enough
            try:
                return original(self, *args, **kwargs)
            finally:
                tracer.in_call -= 1
        return original(self, *args, **kwargs)

    read.__name__ = name
    return read


def version_bump(tracer: Any, original: Any) -> Any:
    """``_bump_version``: an in-place change outside an op is not in the recording."""

    def bump(self: TensorBase) -> None:
        if not (tracer.in_op or tracer.in_call):
            tracer.graph_break("an in-place change of a tensor outside an op (+=, add_, t[i] = v ...) is not traced")
        original(self)

    return bump


def traced_make(tracer: Any, original: Any) -> Any:
    """``TensorBase._make``: remember tensors made from arrays outside any op (comparisons, argmax, ...)."""

    def make(data: Any, grad_fn: Any, requires_grad: bool) -> Any:
        t = original(data, grad_fn, requires_grad)
        if not tracer.in_op and id(data) not in tracer.slot_of:
            caller = sys._getframe(1).f_code
            if _makes_constants(caller):
                tracer.made[id(t)] = t  # a constant, but not a leaf a gradient may flow into
            else:
                where = caller.co_filename.replace("\\", "/").rsplit("minitorch/", 1)[-1]
                tracer.foreign[id(t)] = f"made by {caller.co_name} in {where}"
                tracer.keep.append(t)
        return t

    return make


def traced_from_data(tracer: Any, original: Any) -> Any:
    """``TensorBase._from_data`` (``minitorch.tensor(...)``): remember the tensors the step creates."""

    def from_data(*args: Any, **kwargs: Any) -> Any:
        t = original(*args, **kwargs)
        if not (tracer.in_op or tracer.in_call):
            tracer.made[id(t)] = t
        return t

    return from_data


def traced_grad_property(tracer: Any, prop: property) -> property:
    """``Tensor.grad``: ``p.grad = None`` in the step is a call to replay; another value breaks.

    Reading ``.grad`` in the step's own code breaks too: what it does with the gradient's
    array (``g *= c``) would not be in the recording.
    """

    def get_grad(self: TensorBase) -> Any:
        if not (tracer.in_op or tracer.in_call):
            tracer.graph_break("reading .grad inside the step: what is done with it is not traced")
        assert prop.fget is not None
        return prop.fget(self)

    def set_grad(self: TensorBase, value: Any) -> None:
        if not (tracer.in_op or tracer.in_call):
            if value is None:
                tracer.record_call(_set_grad_none, self, (), {})
            else:
                tracer.graph_break("assigning .grad a tensor inside the step is not traced")
        assert prop.fset is not None
        prop.fset(self, value)

    return property(get_grad, set_grad, None, prop.__doc__)


def _set_grad_none(tensor: TensorBase) -> None:
    """``tensor.grad = None`` (what a replay runs for it)."""
    tensor._grad = None


def _recorded(tracer: Any, function: Any, prepare: Any = None) -> Any:
    """``function`` wrapped so that a call from the step is recorded for the replay to make again.

    Calls made inside an op or inside another recorded call are part of that op or call and
    are not recorded again. ``prepare`` turns the first argument into what is recorded.
    """

    @functools.wraps(function)
    def call(first: Any, *args: Any, **kwargs: Any) -> Any:
        if tracer.in_op or tracer.in_call:
            return function(first, *args, **kwargs)
        if prepare is not None:
            first = prepare(first)
        tracer.record_call(function, first, args, kwargs)
        tracer.in_call += 1
        try:
            return function(first, *args, **kwargs)
        finally:
            tracer.in_call -= 1

    return call


def replayed_call(tracer: Any, method: Any) -> Any:
    """An optimizer's ``step``, ``zero_grad``..., recorded as a call the replay makes again."""
    return _recorded(tracer, method)


def random_draw(tracer: Any, uniform: Any) -> Any:
    """``Backend.uniform``: random numbers inside an op are drawn afresh by each replay."""

    def draw(self: Any, shape: Any, dtype: Any) -> Any:
        if tracer.in_op:
            tracer.program.random_ops.append(f"{type(self).__name__}.uniform")
        elif not tracer.in_call:
            tracer.graph_break("random numbers drawn outside an op would be frozen")
        return uniform(self, shape, dtype)

    return draw


def replayed_function(tracer: Any, function: Any) -> Any:
    """A function the replay calls again (``nn.utils.clip_grad_norm_``): its first argument,
    the parameters, is made a list first (a generator would be used up by the trace)."""
    return _recorded(tracer, function, _parameter_list)


def _parameter_list(parameters: Any) -> list[Any]:
    return [parameters] if isinstance(parameters, TensorBase) else list(parameters)


def breaking(tracer: Any, method: Any, reason: str) -> Any:
    """A method whose use makes the step unreplayable (GradScaler.scale: its scale changes)."""

    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        if not (tracer.in_op or tracer.in_call):
            tracer.graph_break(f"{reason} between steps: a replay would freeze it")
        return method(self, *args, **kwargs)

    return call
