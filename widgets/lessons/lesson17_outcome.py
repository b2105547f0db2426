"""Lesson 17's checks share this: what one call of a learner's function gave, and the hints
every check of a function built on ``autograd.grad`` gives.

A check runs the learner's function on fresh inputs and keeps what came out in an
``Outcome`` (the value, or what else it returned, or the error it raised); the reference's
``Outcome`` also holds the values of the wrong answers learners write, by name, and
``named_wrong`` finds the one the learner's value equals.
"""

from dataclasses import dataclass, field
from typing import Any

import numpy as np

import minitorch
from minitorch.tensor import Tensor
from widgets.i18n import _

F64 = minitorch.float64


@dataclass
class Outcome:
    """What one call of a learner's function gave: an array (``value``), or what else it returned or raised.

    ``kind`` is the type of a result that is not one tensor (``"tuple"``, ``"NoneType"``...;
    ``count`` its length for a tuple or list), ``error`` the message of an exception it
    raised, ``graph`` whether the result was in a graph, ``grads`` gradients its backward
    gave (the penalty's critic); ``wrong`` (reference side only) holds the values of typical
    wrong answers, by name.
    """

    value: Any = None
    kind: str = ""
    count: int = 0
    error: str = ""
    graph: bool = False
    grads: list[Any] = field(default_factory=list)
    wrong: dict[str, Any] = field(default_factory=dict)

    def __repr__(self) -> str:
        if self.error:
            return _("error: {error}", error=self.error.splitlines()[0][:80])
        if self.kind:
            return self.kind
        return np.array2string(np.asarray(self.value), precision=4, threshold=6)


def outcome_of(result: Any) -> Outcome:
    """An ``Outcome`` for a learner's result that should be one tensor."""
    if isinstance(result, Tensor):
        return Outcome(value=result.detach().numpy().copy(), graph=result.requires_grad)
    count = len(result) if isinstance(result, (tuple, list)) else 0
    return Outcome(kind=type(result).__name__, count=count)


def common_hint(got: Outcome, expected: Outcome) -> tuple[bool, str] | None:
    """The hint for a result that is not one tensor of the right shape, or None to go on."""
    if got.kind in ("tuple", "list"):
        return False, _("returned a {type} of {n}: autograd.grad returns a tuple with one gradient per input; "
                        "unpack it, (g,) = autograd.grad(...)", type=got.kind, n=got.count)
    if got.kind == "NoneType":
        return False, _("returned None: did you forget `return`?")
    if got.kind:
        return False, _("returned a {type}: return the tensor", type=got.kind)
    if got.value.shape != expected.value.shape:
        return False, _("shape {got}, expected {expected}", got=got.value.shape, expected=expected.value.shape)
    return None


def named_wrong(got: Outcome, expected: Outcome, texts: dict[str, str]) -> str | None:
    """The text of the first wrong answer (by name, in ``texts``' order) that the learner's value equals."""
    for name, text in texts.items():
        value = expected.wrong.get(name)
        if value is not None and np.shape(value) == got.value.shape and np.allclose(got.value, value, rtol=1e-6,
                                                                                   atol=1e-9):
            return text
    return None


def as_tensor(values: Any, requires_grad: bool = False) -> Tensor:
    """A float64 tensor of ``values`` (a leaf that requires grad if asked)."""
    return minitorch.tensor(np.asarray(values, dtype=np.float64), dtype=F64, requires_grad=requires_grad)


def grad_error_hint(error: str, scalar: str = "") -> str | None:
    """What an error of ``autograd.grad`` means in these exercises, or None. ``scalar``: the hint for
    a non-scalar output given no grad_outputs."""
    if "does not have a grad_fn" in error:
        return _("the first gradient has no graph: call the first autograd.grad with create_graph=True, so that "
                 "its backward is recorded and can be differentiated again (and never .detach() it)")
    if "only for scalar outputs" in error and scalar:
        return scalar
    return None


__all__ = ["F64", "Outcome", "as_tensor", "common_hint", "grad_error_hint", "named_wrong", "outcome_of"]
