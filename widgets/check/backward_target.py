"""What ``check_backward`` checks, seen the same way whatever it is: a Function class or a function of tensors.

``Target`` runs the op's forward, the learner's backward (their gradients, raw: maybe None
or the wrong shape) and the reference's backward, on the same inputs. ``reference_backwards``
runs a block with every overridden op back on its reference backward.
"""

import inspect
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import minitorch
from minitorch.autograd import Function, overridden_functions
from minitorch.tensor import Tensor
from widgets.check.check_result import to_numpy
from widgets.i18n import _


class reference_backwards:
    """Run a block with every op on its reference backward, then put the overrides back."""

    def __enter__(self) -> "reference_backwards":
        self.saved = {cls: cls.backward for cls in overridden_functions()}
        for cls in self.saved:
            cls.backward = staticmethod(cls.reference_backward)
        return self

    def __exit__(self, *exc: object) -> None:
        for cls, fn in self.saved.items():
            cls.backward = staticmethod(fn)  # an exception in the block still propagates


def _as_tuple(grads: Any) -> tuple[Any, ...]:
    if isinstance(grads, tuple):
        return grads
    if isinstance(grads, list):
        return tuple(grads)
    return (grads,)


class Target:
    """What is checked, seen the same way in all three modes: forward, learner grads, reference grads."""

    def __init__(self, op: Any, backward: Callable[..., Any] | None, reference: Any, args: Sequence[Any]) -> None:
        self.args = tuple(args)
        self.is_function = isinstance(op, type) and issubclass(op, Function)
        self.op = op
        if self.is_function:
            self.learner_backward: Callable[..., Any] | None = backward if backward is not None else op.backward
            self.label = f"{op.__name__}.backward"
            if reference is None:
                if backward is not None or op.__module__.startswith("minitorch."):
                    reference = op  # the built-in's reference_backward
                else:  # a learner's own Function: compare with the built-in of the same name
                    builtin = getattr(minitorch.functions, op.__name__, None)
                    reference = builtin if isinstance(builtin, type) and builtin is not op else None
        else:
            self.learner_backward = None
            self.label = getattr(op, "__name__", "function")
            if self.label == "<lambda>":
                self.label = _("your function")
        self.reference = reference

    def n_tensor_inputs(self) -> int:
        """How many tensors one case needs (for the default ``shapes``).

        The inputs of forward (or of the function) without a default value, less the
        settings given in ``args``, which are passed after the tensors.
        """
        fn = self.op.forward if self.is_function else self.op
        try:
            params = list(inspect.signature(fn).parameters.values())
        except (TypeError, ValueError):
            return 2 if self.is_function else 1
        if self.is_function:
            params = params[1:]  # drop ctx
        positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)]
        required = [p for p in positional if p.default is p.empty and p.kind != p.VAR_POSITIONAL]
        if not self.is_function:
            return len(required) or 1
        return max(min(len(required), len(positional) - len(self.args)), 1)

    def exact_inputs(self) -> int | None:
        """How many tensors forward takes when its signature says so exactly (no defaults, no ``*args``), else None."""
        if not self.is_function:
            return None
        try:
            params = list(inspect.signature(self.op.forward).parameters.values())[1:]
        except (TypeError, ValueError):
            return None
        if any(p.default is not p.empty or p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params):
            return None
        return len(params) - len(self.args)

    def forward(self, tensors: Sequence[Any]) -> Tensor:
        """The op's output for these input tensors."""
        if self.is_function:
            return self.op.apply(*tensors, *self.args)
        return self.op(*tensors, *self.args)

    def learner_grads(self, tensors: Sequence[Any], grad_output: np.ndarray) -> tuple[tuple[Any, ...], str | None]:
        """The learner's gradient per input (raw: may be None, the wrong shape, ...)."""
        out = self.forward(tensors)
        if self.is_function and self.learner_backward is not None:  # a Function always has a backward
            node = out.grad_fn
            assert node is not None  # the output of a Function whose inputs require grad has a node
            given = grad_output.copy()
            returned = self.learner_backward(node, given)
            if not np.array_equal(given, grad_output, equal_nan=True):
                return (None,) * len(tensors), _(
                    "your backward changed grad_output in place (grad_output *= ..., or [...] = ...): the engine "
                    "may pass the same array to other backwards, so compute new arrays (grad_output * f)")
            if returned is None:
                return (None,) * len(tensors), _("your backward returned None: did you forget `return`?")
            if hasattr(returned, "__next__"):  # a generator (a comprehension in parentheses) or another iterator
                return (None,) * len(tensors), _(
                    "your backward returned a generator (a comprehension in round brackets): return a tuple of "
                    "gradients, one per input, e.g. tuple(... for ...) or (grad_a, grad_b)")
            raw = _as_tuple(returned)
            slots = [self._slot(node, t) if isinstance(t, Tensor) else i for i, t in enumerate(tensors)]
            if len(raw) != len(node.next_nodes):
                return raw, _(
                    "backward returned {n} gradient(s) but forward has {inputs} input(s): return one per input "
                    "(None for inputs that need no gradient)", n=len(raw), inputs=len(node.next_nodes))
            return tuple(raw[s] for s in slots), None
        out.backward(Tensor._make(grad_output, None, False))
        return tuple(None if not isinstance(t, Tensor) or t.grad is None else t.grad.data for t in tensors), None

    @staticmethod
    def _slot(node: Any, tensor: Tensor) -> int:
        for i, nxt in enumerate(node.next_nodes):
            if nxt is tensor:
                return i
        raise RuntimeError("input not found in the graph")

    def reference_grads(self, arrays: Sequence[Any], grad_output: np.ndarray) -> tuple[Any, ...] | None:
        """The reference gradient per input, or None when there is no reference."""
        ref = self.reference
        if ref is None:
            return None
        tensors = make_inputs(arrays)
        if isinstance(ref, type) and issubclass(ref, Function):
            out = ref.apply(*tensors, *self.args)
            reference_backward = ref.reference_backward
            if reference_backward is None:
                raise TypeError(f"{ref.__name__} has no backward to use as the reference")
            raw = _as_tuple(reference_backward(out.grad_fn, grad_output.copy()))
            return tuple(to_numpy(raw[self._slot(out.grad_fn, t)]) if isinstance(t, Tensor) else None
                         for t in tensors)
        with reference_backwards():
            ref(*tensors, *self.args).backward(Tensor._make(grad_output, None, False))
        return tuple(to_numpy(t.grad) if isinstance(t, Tensor) else None for t in tensors)


def make_inputs(arrays: Sequence[Any], requires_grad: bool = True) -> list[Any]:
    """A fresh Tensor per array; Python numbers stay numbers."""
    return [Tensor(a.copy(), requires_grad=requires_grad) if isinstance(a, np.ndarray) else a for a in arrays]
