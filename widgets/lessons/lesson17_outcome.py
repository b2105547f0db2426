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
from widgets.check.mistakes import constant_factor, factor_hint
from widgets.i18n import _

F64 = minitorch.float64


@dataclass
class Outcome:
    """What one call of a learner's function gave: an array (``value``), or what else it returned or raised.

    ``kind`` is the type of a result that is not one tensor (``"tuple"``, ``"NoneType"``...;
    ``count`` its length for a tuple or list), ``error`` the message of an exception it
    raised, ``graph`` whether the result was in a graph, ``grads`` gradients its backward
    gave (the penalty's critic), ``touched_grad`` whether the call itself left gradients in
    the critic's ``.grad`` (a ``backward()`` inside the function), ``changed`` the name of an
    argument the function changed in place (``real.mul_(eps)``); ``wrong`` (reference side
    only) holds the values of typical wrong answers, by name, and ``sizes`` the counts a
    stray mean would divide by.
    """

    value: Any = None
    kind: str = ""
    count: int = 0
    error: str = ""
    graph: bool = False
    grads: list[Any] = field(default_factory=list)
    touched_grad: bool = False
    changed: str = ""
    wrong: dict[str, Any] = field(default_factory=dict)
    sizes: tuple[int, ...] = ()

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
    kind = type(result).__name__
    if isinstance(result, (np.ndarray, np.generic)):  # np.float64 is a float too: NumPy's name says more
        kind = "numpy." + kind
    return Outcome(kind=kind, count=count)


def snapshot(**tensors: Tensor) -> dict[str, np.ndarray]:
    """A copy of each argument's values, by name, to find out later whether the function changed one."""
    return {name: t.detach().numpy().copy() for name, t in tensors.items()}


def changed_in_place(before: dict[str, np.ndarray], **tensors: Tensor) -> str:
    """The name of the first argument whose values differ from ``before`` (an in-place write), or ""."""
    for name, t in tensors.items():
        if not np.array_equal(before[name], t.detach().numpy(), equal_nan=True):
            return name
    return ""


def common_hint(got: Outcome, expected: Outcome) -> tuple[bool, str] | None:
    """The hint for a result that is not one tensor of the right shape and dtype, or None to go on."""
    if got.changed:
        return False, _("your function changed its argument `{name}` in place (an in-place method such as mul_ "
                        "or add_, or +=): the caller still uses it; compute a new tensor instead", name=got.changed)
    if got.kind in ("tuple", "list"):
        return False, _("returned a {type} of {n}: return one tensor (autograd.grad returns a tuple with one "
                        "gradient per input; unpack it, (g,) = autograd.grad(...))", type=got.kind, n=got.count)
    if got.kind == "NoneType":
        return False, _("returned None: did you forget `return`?")
    if got.kind in ("float", "int"):
        return False, _("returned a Python {type}: .item() or float() turned the tensor into a number, which has "
                        "no graph; return the tensor", type=got.kind)
    if got.kind.startswith("numpy."):
        return False, _("returned a {type}: return the tensor itself (.data, .numpy() and NumPy functions give "
                        "NumPy values, which carry no graph)", type=got.kind)
    if got.kind:
        return False, _("returned a {type}: return the tensor", type=got.kind)
    if got.value.shape != expected.value.shape:
        return False, _("shape {got}, expected {expected}", got=got.value.shape, expected=expected.value.shape)
    if got.value.dtype != expected.value.dtype:
        return False, _("the result is {got} where the inputs are {expected}: a tensor made without dtype= "
                        "(minitorch.zeros, ones and randn make float32) took part; give it dtype=x.dtype",
                        got=got.value.dtype, expected=expected.value.dtype)
    return None


def factor_or_none(got: Outcome, expected: Outcome) -> str | None:
    """A hint for a value off by a constant factor (the sign, 2, 1/n for a stray mean...), or None.

    One number is always some multiple of another: for a scalar only a whole factor or its
    inverse (2, 1/2, -1, 10...) says anything about how it was written.
    """
    if got.value.size == 1:
        c = constant_factor(got.value, expected.value)
        if c is None or not any(np.isclose(abs(c), k, rtol=1e-6) or np.isclose(abs(c), 1 / k, rtol=1e-6)
                                for k in range(1, 1001)):
            return None
    return factor_hint(got.value, expected.value, sizes=expected.sizes)


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
                 "its backward is recorded and can be differentiated again; keep it in the graph (no .detach() or "
                 ".data), and compute f(x) outside minitorch.no_grad()")
    if "only for scalar outputs" in error and scalar:
        return scalar
    if "must be a Tensor or a sequence of Tensors, got float" in error:
        return _("autograd.grad was given a Python number: .item() or float() turned the tensor into one, and a "
                 "number has no graph; differentiate the tensor itself")
    if "unexpected keyword argument 'axis'" in error or "unexpected keyword argument 'keepdims'" in error:
        return _("MiniTorch's tensor methods take dim= and keepdim=, not NumPy's axis= and keepdims=: "
                 ".sum(dim=1)")
    # tuple * tensor asks the tensor for an index; tuple * tuple, tuple.sum ... name the tuple
    if "'tuple'" in error or "converted to an index" in error:
        return _("autograd.grad returns a tuple with one gradient per input: unpack it, (g,) = autograd.grad(...), "
                 "before computing with g")
    return None


__all__ = ["F64", "Outcome", "as_tensor", "changed_in_place", "common_hint", "factor_or_none", "grad_error_hint",
           "named_wrong", "outcome_of", "snapshot"]
