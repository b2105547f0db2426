"""Lesson 08's gradient accumulation exercise: a step over k micro-batches, checked against one big-batch step.

    check_function("accumulated step", accumulation.runner(accumulated_step),
                   accumulation.runner(accumulation.big_batch_step, mistakes=True),
                   accumulation.cases(train_set), compare=accumulation.compare, describe=accumulation.describe)

Each case trains a small MLP for a few batches with the step function and records the
returned losses and every parameter after each step. The reference is one ordinary step
on the whole batch (not a copy of the solution); with ``mistakes=True`` the reference run
also records the typical wrong answers (no 1/k, zero_grad inside the loop, a step per
micro-batch, no zero_grad at all), so ``compare`` can name the one a learner made.
"""

from collections.abc import Callable
from typing import Any

import numpy as np

import minitorch
from minitorch import nn, optim
from minitorch.data import DataLoader
from minitorch.nn import functional as F
from minitorch.tensor import Tensor
from widgets.i18n import _
from widgets.style import format_number, format_pair

BATCH = 32
# step(model, xb, yb, optimizer, loss_fn, k) -> the batch's loss as a Python float
StepFn = Callable[[nn.Module, Tensor, Tensor, optim.Optimizer, Callable[..., Tensor], int], Any]


def big_batch_step(model: nn.Module, xb: Tensor, yb: Tensor, optimizer: optim.Optimizer,
                   loss_fn: Callable[..., Tensor], k: int) -> float:
    """The reference: one ordinary step on the whole batch (``k`` plays no part)."""
    optimizer.zero_grad()
    loss = loss_fn(model(xb), yb)
    loss.backward()
    optimizer.step()
    return loss.item()


def reference_step(model: nn.Module, xb: Tensor, yb: Tensor, optimizer: optim.Optimizer,
                   loss_fn: Callable[..., Tensor], k: int) -> float:
    """A correct accumulated step, used by the lesson when the learner's is not finished."""
    total = 0.0
    for x, y in zip(xb.chunk(k), yb.chunk(k)):
        loss = loss_fn(model(x), y) / k
        loss.backward()
        total += loss.item()
    optimizer.step()
    optimizer.zero_grad()
    return total


def _mistake(scale: bool = True, zero_inside: bool = False, step_inside: bool = False,
             zero_after: bool = True) -> StepFn:
    """A wrong accumulated step, made in one of the ways the switches describe."""

    def step(model: nn.Module, xb: Tensor, yb: Tensor, optimizer: optim.Optimizer,
             loss_fn: Callable[..., Tensor], k: int) -> float:
        total = 0.0
        for x, y in zip(xb.chunk(k), yb.chunk(k)):
            if zero_inside:
                optimizer.zero_grad()
            loss = loss_fn(model(x), y)
            if scale:
                loss = loss / k
            loss.backward()
            total += loss.item()
            if step_inside:
                optimizer.step()
        if not step_inside:
            optimizer.step()
        if zero_after:
            optimizer.zero_grad()
        return total
    return step


def _k_too_large(k: int) -> str:
    return _("the update is k times too large (k = {k}): divide each micro-batch's loss by k before "
             "backward(); the big batch's loss is the mean over all its samples, not the sum of k means", k=k)


def _last_only(k: int) -> str:
    return _("only the last micro-batch counted: zero_grad() inside the loop throws away the gradients "
             "accumulated so far; zero them once per step, after optimizer.step()")


def _k_steps(k: int) -> str:
    return _("k steps instead of one (k = {k}): optimizer.step() runs inside the loop; accumulate the k "
             "backward() calls first, then step once after the loop", k=k)


def _no_zero(k: int) -> str:
    return _("step 1 matched but the next steps did not: the gradients of the previous step were still in "
             ".grad; call optimizer.zero_grad() after optimizer.step() (or before the first backward)")


# (name, wrong step, hint(k)): checked in this order, the first whose parameters match names the mistake;
# the hint is made when it is shown, in the learner's language then
MISTAKES = [
    ("no 1/k", _mistake(scale=False), _k_too_large),
    ("zero inside", _mistake(zero_inside=True), _last_only),
    ("zero inside, no 1/k", _mistake(scale=False, zero_inside=True), _last_only),
    ("step inside", _mistake(zero_inside=True, step_inside=True), _k_steps),
    ("step inside, accumulating", _mistake(step_inside=True), _k_steps),
    ("step inside, no 1/k", _mistake(scale=False, zero_inside=True, step_inside=True), _k_steps),
    ("no zero_grad", _mistake(zero_after=False), _no_zero),
    ("no zero_grad, no 1/k", _mistake(scale=False, zero_after=False), _k_too_large),
]


class Trajectory:
    """What a few steps did: the returned values and the flattened parameters after each step."""

    def __init__(self, k: int, returned: list[Any], params: list[np.ndarray], initial: np.ndarray,
                 mistakes: dict[str, "Trajectory"] | None = None) -> None:
        self.k, self.returned, self.params, self.initial = k, returned, params, initial
        self.mistakes = mistakes or {}
        self.loss_sizes: list[int] = []  # the batch size of every loss computed, in order

    def __repr__(self) -> str:
        losses = ", ".join(format_number(r) if isinstance(r, float) else type(r).__name__ for r in self.returned)
        return _("{n} steps, losses [{losses}]", n=len(self.params), losses=losses)


def _optimizer(name: str, params: Any) -> optim.Optimizer:
    if name == "SGD":
        return optim.SGD(params, lr=0.5)
    if name == "SGD momentum":
        return optim.SGD(params, lr=0.2, momentum=0.9)
    return optim.Adam(params, lr=0.01)


def _flat(model: nn.Module) -> np.ndarray:
    return np.concatenate([p.detach().numpy().astype(np.float64).ravel() for p in model.parameters()])


def _trajectory(step_fn: StepFn, dataset: Any, k: int, n_steps: int, opt_name: str) -> Trajectory:
    minitorch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 16), nn.ReLU(), nn.Linear(16, 10))
    opt = _optimizer(opt_name, model.parameters())
    initial = _flat(model)
    returned: list[Any] = []
    params: list[np.ndarray] = []
    batches = DataLoader(dataset, batch_size=BATCH, shuffle=True, seed=0)
    sizes: list[int] = []
    for _step, (xb, yb) in zip(range(n_steps), batches):
        returned.append(step_fn(model, xb, yb, opt, _recording(F.cross_entropy, sizes), k))
        params.append(_flat(model))
    result = Trajectory(k, returned, params, initial)
    result.loss_sizes = sizes
    return result


def _recording(loss_fn: Callable[..., Tensor], sizes: list[int]) -> Callable[..., Tensor]:
    """``loss_fn`` that notes the batch size of every call (one micro-batch each)."""
    def loss(output: Tensor, target: Tensor) -> Tensor:
        sizes.append(int(target.shape[0]))
        return loss_fn(output, target)
    return loss


def runner(step_fn: StepFn, mistakes: bool = False) -> Callable[[Any, int, int, str], Trajectory]:
    """A function of one case, ``(dataset, k, n_steps, optimizer name)`` -> ``Trajectory``."""
    def run(dataset: Any, k: int, n_steps: int, opt_name: str) -> Trajectory:
        result = _trajectory(step_fn, dataset, k, n_steps, opt_name)
        if mistakes:
            result.mistakes = {name: _trajectory(fn, dataset, k, n_steps, opt_name) for name, fn, _hint in MISTAKES}
        return result
    return run


def cases(dataset: Any) -> list[tuple[Any, int, int, str]]:
    """Batches of 32 as k micro-batches: plain SGD (where a wrong scale shows most), momentum, Adam."""
    return [(dataset, 4, 3, "SGD"), (dataset, 2, 3, "SGD momentum"), (dataset, 8, 3, "Adam")]


def describe(args: tuple[Any, ...]) -> str:
    """The table's name for one case."""
    _dataset, k, n_steps, opt_name = args
    return _("batch of {batch} as {k} micro-batches of {size}, {n_steps} steps of {optimizer}", batch=BATCH, k=k,
             size=BATCH // k, n_steps=n_steps, optimizer=opt_name)


def _close(a: list[np.ndarray], b: list[np.ndarray]) -> bool:
    return len(a) == len(b) and all(np.allclose(x, y, rtol=1e-4, atol=1e-5) for x, y in zip(a, b))


def compare(got: Trajectory, expected: Trajectory) -> tuple[bool, str]:
    """(ok, hint): the parameters after every step, then the returned losses; names the mistake made."""
    k = expected.k
    for r in got.returned:
        if r is None:
            return False, _("returned None: did you forget `return`? (return the batch's loss as a Python float)")
        if isinstance(r, (Tensor, np.ndarray)):
            return False, _("returned a {type}; return a Python number (add up loss.item() of each scaled "
                            "micro-batch loss)", type=type(r).__name__)
    if k > 1 and got.loss_sizes and max(got.loss_sizes) > BATCH // k:
        return False, _("a loss was computed on {n} samples at once: split the batch into k = {k} micro-batches "
                        "of {size} (xb.chunk(k)) and backward() each; one ordinary step on the whole batch gives "
                        "the same numbers but needs the memory accumulation saves", n=max(got.loss_sizes), k=k,
                        size=BATCH // k)
    if not _close(got.params, expected.params):
        for name, _fn, hint in MISTAKES:
            wrong = expected.mistakes.get(name)
            if wrong is not None and _close(got.params, wrong.params):
                return False, hint(k)
        first_got, first_exp = got.params[0] - got.initial, expected.params[0] - expected.initial
        if not np.any(first_got):
            return False, _("the parameters did not change at step 1: is optimizer.step() called after the "
                            "backward() calls, before zero_grad()?")
        for step, (g, e) in enumerate(zip(got.params, expected.params), 1):
            if not np.allclose(g, e, rtol=1e-4, atol=1e-5):
                c = float(np.sum(first_got * first_exp) / np.sum(first_exp * first_exp))
                if step == 1:
                    return False, _("the parameters differ from one big-batch step at step 1 (step 1's update is "
                                    "{c:.3g} times the big-batch update): every micro-batch's loss / k, backward() "
                                    "for each, then one step() and zero_grad()", c=c)
                return False, _("the parameters differ from one big-batch step at step {step}: every "
                                "micro-batch's loss / k, backward() for each, then one step() and zero_grad()",
                                step=step)
    for step, (r, e) in enumerate(zip(got.returned, expected.returned), 1):
        if not isinstance(r, (int, float)) or not np.isclose(r, e, rtol=1e-4, atol=1e-5):
            shown, want = format_pair(r, e) if isinstance(r, (int, float)) else (type(r).__name__, format_number(e))
            if isinstance(r, (int, float)) and np.isclose(r, k * e, rtol=1e-4):
                return False, _("the parameters are right, but the returned loss is k times too large (k = {k}): "
                                "add up the scaled losses (loss / k), not the micro-batch means", k=k)
            return False, _("the parameters are right, but step {step} returned {got}, expected {expected}: return "
                            "the whole batch's loss, the sum of the k scaled micro-batch losses (each .item())",
                            step=step, got=shown, expected=want)
    return True, ""


# ---------------------------------------------------------------------- exercise 1: one training step
# step(model, xb, yb, optimizer, loss_fn) -> the batch's loss as a Python float
TrainingStep = Callable[[nn.Module, Tensor, Tensor, optim.Optimizer, Callable[..., Tensor]], Any]


def training_runner(step_fn: TrainingStep, dataset: Any) -> Callable[[int, Callable[..., optim.Optimizer]], Trajectory]:
    """``run(n_steps, make_optimizer)`` -> ``Trajectory``: ``step_fn`` on a fresh MLP, batches of 32."""
    def run(n_steps: int, make_optimizer: Callable[..., optim.Optimizer]) -> Trajectory:
        minitorch.manual_seed(0)
        model = nn.Sequential(nn.Linear(64, 16), nn.ReLU(), nn.Linear(16, 10))
        opt = make_optimizer(model.parameters())
        initial = _flat(model)
        returned: list[Any] = []
        params: list[np.ndarray] = []
        for _step, (xb, yb) in zip(range(n_steps), DataLoader(dataset, batch_size=BATCH, shuffle=True, seed=0)):
            returned.append(step_fn(model, xb, yb, opt, F.cross_entropy))
            params.append(_flat(model))
        return Trajectory(1, returned, params, initial)
    return run


def training_compare(got: Trajectory, expected: Trajectory) -> tuple[bool, str]:
    """(ok, hint) for one training step: what was returned, then which part of the step is missing."""
    for r in got.returned:
        if r is None:
            return False, _("returned None: did you forget `return`? (return loss.item())")
        if isinstance(r, (Tensor, np.ndarray)):
            return False, _("returned a {type}; return a Python number (loss.item(): a tensor would keep the whole "
                            "graph alive)", type=type(r).__name__)
    if not _close(got.params, expected.params):
        if np.array_equal(got.params[0], got.initial):
            return False, _("the parameters did not change at step 1: call optimizer.step() after loss.backward() "
                            "(and optimizer.zero_grad() before backward, not between backward and step)")
        if _close(got.params[:1], expected.params[:1]):
            return False, _("step 1 matched but the next steps did not: the previous step's gradients were still "
                            "in .grad; call optimizer.zero_grad() at the start of every step")
        return False, _("the parameters differ from the reference already after step 1: zero_grad, forward, loss, "
                        "backward, step, in that order")
    for step, (r, e) in enumerate(zip(got.returned, expected.returned), 1):
        if not isinstance(r, (int, float)) or not np.isclose(r, e, rtol=1e-4, atol=1e-5):
            shown, want = format_pair(r, e) if isinstance(r, (int, float)) else (type(r).__name__, format_number(e))
            return False, _("the parameters are right, but step {step} returned {got}, expected {expected}: return "
                            "the loss of this batch computed before the step (loss.item())", step=step, got=shown,
                            expected=want)
    return True, ""


def describe_training_case(args: tuple[Any, ...]) -> str:
    """The table's name for a case ``(n_steps, make_optimizer)`` of the training step: "5 step(s) of SGD"."""
    n_steps, make_optimizer = args
    kind = type(make_optimizer([nn.Parameter(minitorch.zeros(1))])).__name__  # the class the case makes
    return _("{n} step(s) of {optimizer}", n=n_steps, optimizer=kind)
