"""Learning-rate schedules: change each group's ``lr`` once per ``scheduler.step()``.

Call ``optimizer.step()`` for every batch and ``scheduler.step()`` once per epoch, as in
PyTorch. Building a scheduler records each group's ``initial_lr`` (``base_lrs``) and takes
step 0.

The schedulers are *chainable*, as PyTorch's: each ``step()`` computes the new rate from the
group's current ``group["lr"]`` (``get_lr()``), not from ``base_lrs`` by a formula. So a
manual change of ``lr`` carries on (StepLR keeps halving the new value), and two
schedulers on one optimizer multiply their effects. Each class's docstring gives the
closed form it follows when used alone; ``step(epoch)`` (deprecated in PyTorch) jumps to
that closed form.

``ReduceLROnPlateau`` is different: ``step(metric)`` lowers the rate when a validation
metric stops improving.
"""

from __future__ import annotations

import math
import types
import warnings
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from minitorch.errors import check_int
from minitorch.optim.optimizer import Optimizer, check_number
from minitorch.trace_hooks import replay_methods, replayed

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated where possible. "
    "Please use `scheduler.step()` to step the scheduler. During the deprecation, if epoch is different "
    "from None, the closed form is used instead of the new chainable form, where available."
)


def _check_int(owner: str, name: str, value: Any, low: int) -> None:
    """A TypeError unless ``value`` is an int (``check_int``'s rules), a ValueError unless it is >= ``low``."""
    if check_int(owner, name, value) < low:
        raise ValueError(f"{owner}: {name} must be >= {low}, got {value}")


def _check_not_nan(owner: str, name: str, value: Any) -> Any:
    value = check_number(owner, name, value)
    if math.isnan(value):
        raise ValueError(f"{owner}: {name} is NaN: check the computation that produced it")
    return value


def _check_optimizer(name: str, optimizer: Any) -> None:
    if not isinstance(optimizer, Optimizer):
        raise TypeError(
            f"{name}: {type(optimizer).__name__} is not an Optimizer: build the optimizer first and pass "
            f"it, e.g. {name}(minitorch.optim.SGD(model.parameters(), lr=0.1), ...)"
        )


class LRScheduler:
    """Base class: subclasses write ``get_lr()``, the next rates from the current ``group["lr"]``s.

    ``get_lr()`` runs inside ``step()`` after ``last_epoch`` was advanced; ``_is_initial`` is
    True during the step the constructor takes. An optional ``_get_closed_form_lr()`` gives
    the rates at ``last_epoch`` from ``base_lrs`` alone (used by ``step(epoch)``).
    """

    _get_lr_called_within_step = False
    _is_initial = False
    _state_keys: tuple[str, ...] = ("last_epoch", "base_lrs")  # what load_state_dict requires

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        replay_methods(cls, "step")  # a subclass's own step is replayed by minitorch.compile too

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        name = type(self).__name__
        _check_optimizer(name, optimizer)
        _check_int(name, "last_epoch", last_epoch, low=-1)
        self.optimizer = optimizer
        for i, group in enumerate(optimizer.param_groups):
            if last_epoch == -1:
                group.setdefault("initial_lr", group["lr"])
            elif "initial_lr" not in group:
                raise KeyError(
                    f"{name}: param 'initial_lr' is not specified in param_groups[{i}] when resuming a scheduler "
                    f"with last_epoch={last_epoch}: load the optimizer's state_dict first (or use last_epoch=-1)"
                )
        self.base_lrs: list[float] = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        self._initial_step()

    def _initial_step(self) -> None:
        """Step 0, taken by the constructor (``get_lr`` sees ``_is_initial``)."""
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def get_lr(self) -> list[float]:
        """The next learning rate of each group (called by ``step()``; to read the rate, use ``get_last_lr()``)."""
        raise NotImplementedError

    def _group_lrs(self) -> list[float]:
        return [group["lr"] for group in self.optimizer.param_groups]

    def _warn_if_outside_step(self) -> None:
        if not self._get_lr_called_within_step:
            warnings.warn(
                "To get the last learning rate computed by the scheduler, please use `get_last_lr()`.",
                UserWarning,
                stacklevel=3,
            )

    @replayed  # minitorch.compile makes this call again on every replay: the rate changes
    def step(self, epoch: int | None = None) -> None:
        """Advance one epoch and set every group's learning rate (``epoch``: deprecated, jump there)."""
        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._get_lr_called_within_step = True
        try:
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                self.last_epoch = epoch
                closed_form = getattr(self, "_get_closed_form_lr", None)
                values = closed_form() if closed_form is not None else self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values):
            group["lr"] = lr
        self._last_lr = self._group_lrs()

    def get_last_lr(self) -> list[float]:
        """The learning rates set by the latest ``step()``, one per group."""
        return list(self._last_lr)

    def state_dict(self) -> dict[str, Any]:
        """Everything but the optimizer (numbers only)."""
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore what ``state_dict()`` returned."""
        name = f"{type(self).__name__}.load_state_dict"
        if not isinstance(state_dict, Mapping):
            raise TypeError(
                f"{name}: expected a dict (what scheduler.state_dict() returned), got {type(state_dict).__name__}"
            )
        missing = [k for k in self._state_keys if k not in state_dict]
        if missing:
            looks = " (this is an optimizer's state_dict)" if "param_groups" in state_dict else ""
            raise ValueError(f"{name}: the dict has no {missing} entry: expected a scheduler's state_dict{looks}")
        self.__dict__.update(state_dict)


class LambdaLR(LRScheduler):
    """``lr = base_lr * lr_lambda(epoch)``; ``lr_lambda`` is one function, or a list with one per group.

    Not chainable (PyTorch's isn't either): it sets the rate from ``base_lrs`` every step.
    ``state_dict()`` saves the ``__dict__`` of callable objects, not plain functions (None).
    """

    def __init__(
        self,
        optimizer: Optimizer,
        lr_lambda: Callable[[int], float] | list[Callable[[int], float]],
        last_epoch: int = -1,
    ) -> None:
        _check_optimizer("LambdaLR", optimizer)
        n = len(optimizer.param_groups)
        if isinstance(lr_lambda, (list, tuple)):
            if len(lr_lambda) != n:
                raise ValueError(f"LambdaLR: Expected {n} lr_lambdas, but got {len(lr_lambda)}")
            self.lr_lambdas = list(lr_lambda)
        else:
            self.lr_lambdas = [lr_lambda] * n
        for fn in self.lr_lambdas:
            if not callable(fn):
                raise TypeError(
                    f"LambdaLR: lr_lambda must be a function of the epoch (e.g. lambda epoch: 0.95 ** epoch), "
                    f"got {type(fn).__name__} {fn!r}"
                )
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        self._warn_if_outside_step()
        return [base_lr * self._factor(fn) for fn, base_lr in zip(self.lr_lambdas, self.base_lrs)]

    def _factor(self, fn: Callable[[int], float]) -> Any:
        """``fn(epoch)``, which must be a number: a string or None would fail later inside ``*``."""
        factor = fn(self.last_epoch)
        try:
            return check_number("LambdaLR", "lr_lambda(epoch)", factor)
        except TypeError:
            raise TypeError(
                f"LambdaLR: lr_lambda({self.last_epoch}) returned {type(factor).__name__} {factor!r}; it must "
                "return a number, the factor the initial lr is multiplied by (e.g. lambda epoch: 0.95 ** epoch)"
            ) from None

    def state_dict(self) -> dict[str, Any]:
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "lr_lambdas")}
        state["lr_lambdas"] = [None if isinstance(fn, types.FunctionType) else fn.__dict__.copy()
                               for fn in self.lr_lambdas]
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        state = dict(state_dict)
        lr_lambdas = state.pop("lr_lambdas", [None] * len(self.lr_lambdas))
        super().load_state_dict(state)
        for fn, saved in zip(self.lr_lambdas, lr_lambdas):
            if saved is not None:
                fn.__dict__.update(saved)


class StepLR(LRScheduler):
    """Multiply the lr by ``gamma`` every ``step_size`` epochs: ``base_lr * gamma ** (epoch // step_size)``.

    ``step_size`` may be a float, as in PyTorch: the lr decays at the epochs that are whole
    multiples of it (2.5 decays at epochs 5, 10, ...).
    """

    def __init__(self, optimizer: Optimizer, step_size: float, gamma: float = 0.1, last_epoch: int = -1) -> None:
        step_size = _check_not_nan("StepLR", "step_size", step_size)
        if isinstance(step_size, bool) or not step_size > 0:
            raise ValueError(f"StepLR: step_size must be a number > 0 (epochs between decays), got {step_size!r}")
        self.step_size, self.gamma = step_size, _check_not_nan("StepLR", "gamma", gamma)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        self._warn_if_outside_step()
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return self._group_lrs()
        return [lr * self.gamma for lr in self._group_lrs()]

    def _get_closed_form_lr(self) -> list[float]:
        return [base_lr * self.gamma ** (self.last_epoch // self.step_size) for base_lr in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Multiply the lr by ``gamma`` at each milestone: ``base_lr * gamma ** (milestones passed by epoch)``.

    A milestone listed twice multiplies by ``gamma ** 2`` there, as in PyTorch.
    """

    def __init__(
        self, optimizer: Optimizer, milestones: Iterable[int], gamma: float = 0.1, last_epoch: int = -1
    ) -> None:
        if not isinstance(milestones, Iterable) or isinstance(milestones, (str, bytes)):
            raise TypeError(f"MultiStepLR: milestones must be a list of epochs, e.g. [30, 80], got {milestones!r}")
        milestones = list(milestones)
        for i, m in enumerate(milestones):
            _check_int("MultiStepLR", f"milestones[{i}]", m, low=0)
        self.milestones = Counter(milestones)
        self.gamma = _check_not_nan("MultiStepLR", "gamma", gamma)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        self._warn_if_outside_step()
        if self.last_epoch not in self.milestones:
            return self._group_lrs()
        return [lr * self.gamma ** self.milestones[self.last_epoch] for lr in self._group_lrs()]

    def _get_closed_form_lr(self) -> list[float]:
        milestones = sorted(self.milestones.elements())
        return [base_lr * self.gamma ** bisect_right(milestones, self.last_epoch) for base_lr in self.base_lrs]


class ExponentialLR(LRScheduler):
    """Multiply the lr by ``gamma`` every epoch: ``base_lr * gamma ** epoch``."""

    def __init__(self, optimizer: Optimizer, gamma: float, last_epoch: int = -1) -> None:
        self.gamma = _check_not_nan("ExponentialLR", "gamma", gamma)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        self._warn_if_outside_step()
        if self._is_initial:  # resuming from a checkpoint: don't step one epoch ahead
            return self._group_lrs()
        return [lr * self.gamma for lr in self._group_lrs()]

    def _get_closed_form_lr(self) -> list[float]:
        return [base_lr * self.gamma**self.last_epoch for base_lr in self.base_lrs]


class LinearLR(LRScheduler):
    """Scale the lr by a factor going linearly from ``start_factor`` to ``end_factor`` in ``total_iters`` epochs.

    ``lr = base_lr * (start_factor + (end_factor - start_factor) * min(epoch, total_iters) / total_iters)``,
    a warm-up with the defaults (1/3 of the rate, rising to all of it after 5 epochs).
    """

    def __init__(
        self,
        optimizer: Optimizer,
        start_factor: float = 1.0 / 3,
        end_factor: float = 1.0,
        total_iters: int = 5,
        last_epoch: int = -1,
    ) -> None:
        start_factor = check_number("LinearLR", "start_factor", start_factor)
        end_factor = check_number("LinearLR", "end_factor", end_factor)
        if not 0 < start_factor <= 1.0:
            raise ValueError(
                "LinearLR: Starting multiplicative factor expected to be greater than 0 and less or equal to 1, "
                f"got start_factor={start_factor}"
            )
        if not 0 <= end_factor <= 1.0:
            raise ValueError(
                f"LinearLR: Ending multiplicative factor expected to be between 0 and 1, got end_factor={end_factor}"
            )
        _check_int("LinearLR", "total_iters", total_iters, low=0)
        self.start_factor, self.end_factor, self.total_iters = start_factor, end_factor, total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        self._warn_if_outside_step()
        if self.last_epoch == 0:
            return [lr * self.start_factor for lr in self._group_lrs()]
        if self._is_initial or self.last_epoch > self.total_iters:
            return self._group_lrs()
        change = self.end_factor - self.start_factor
        ratio = 1.0 + change / (self.total_iters * self.start_factor + (self.last_epoch - 1) * change)
        return [lr * ratio for lr in self._group_lrs()]

    def _get_closed_form_lr(self) -> list[float]:
        change = self.end_factor - self.start_factor
        factor = self.start_factor + change * min(self.total_iters, self.last_epoch) / self.total_iters
        return [base_lr * factor for base_lr in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """Half a cosine from ``base_lr`` down to ``eta_min`` over ``T_max`` epochs (then back up, and so on).

    ``lr = eta_min + (base_lr - eta_min) * (1 + cos(pi * epoch / T_max)) / 2``; each step
    applies the ratio of two consecutive values of that curve to the current ``group["lr"]``.
    """

    def __init__(self, optimizer: Optimizer, T_max: int, eta_min: float = 0.0, last_epoch: int = -1) -> None:
        _check_int("CosineAnnealingLR", "T_max", T_max, low=1)
        self.T_max, self.eta_min = T_max, _check_not_nan("CosineAnnealingLR", "eta_min", eta_min)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        self._warn_if_outside_step()
        epoch, t_max, eta_min = self.last_epoch, self.T_max, self.eta_min
        if self._is_initial:
            return self._group_lrs()
        if self._step_count == 1 and epoch > 0:
            return [eta_min + (base_lr - eta_min) * (1 + math.cos(epoch * math.pi / t_max)) / 2
                    for base_lr in self.base_lrs]
        if (epoch - 1 - t_max) % (2 * t_max) == 0:  # at the bottom: climb back up
            return [lr + (base_lr - eta_min) * (1 - math.cos(math.pi / t_max)) / 2
                    for base_lr, lr in zip(self.base_lrs, self._group_lrs())]
        ratio = (1 + math.cos(math.pi * epoch / t_max)) / (1 + math.cos(math.pi * (epoch - 1) / t_max))
        return [ratio * (lr - eta_min) + eta_min for lr in self._group_lrs()]

    def _get_closed_form_lr(self) -> list[float]:
        cosine = (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
        return [self.eta_min + (base_lr - self.eta_min) * cosine for base_lr in self.base_lrs]


class ReduceLROnPlateau(LRScheduler):
    """Multiply the lr by ``factor`` when ``step(metric)`` has not improved for ``patience`` epochs.

    Improvement, in ``mode="min"`` (a loss): ``metric < best * (1 - threshold)`` with
    ``threshold_mode="rel"``, ``metric < best - threshold`` with ``"abs"``; ``mode="max"`` (an
    accuracy) mirrors them. After more than ``patience`` epochs without one:
    ``lr = max(lr * factor, min_lr)`` (skipped when that changes lr by no more than ``eps``),
    then ``cooldown`` epochs in which bad epochs are not counted.
    """

    _state_keys = ("last_epoch", "best")

    def __init__(
        self,
        optimizer: Optimizer,
        mode: str = "min",
        factor: float = 0.1,
        patience: int = 10,
        threshold: float = 1e-4,
        threshold_mode: str = "rel",
        cooldown: int = 0,
        min_lr: list[float] | float = 0,
        eps: float = 1e-8,
    ) -> None:
        name = "ReduceLROnPlateau"
        factor = _check_not_nan(name, "factor", factor)
        if factor >= 1.0:
            raise ValueError(f"{name}: Factor should be < 1.0, got factor={factor} (the lr is multiplied by it)")
        _check_optimizer(name, optimizer)
        _check_int(name, "patience", patience, low=0)
        _check_int(name, "cooldown", cooldown, low=0)
        self.factor, self.optimizer = factor, optimizer
        n = len(optimizer.param_groups)
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != n:
                raise ValueError(f"{name}: expected {n} min_lrs, got {len(min_lr)}")
            self.default_min_lr: float | None = None
            self.min_lrs = [_check_not_nan(name, "min_lr", v) for v in min_lr]
        else:
            self.default_min_lr = _check_not_nan(name, "min_lr", min_lr)
            self.min_lrs = [self.default_min_lr] * n
        self.patience, self.cooldown, self.eps = patience, cooldown, _check_not_nan(name, "eps", eps)
        self.last_epoch = 0
        self._last_lr = self._group_lrs()
        self._init_is_better(mode, _check_not_nan(name, "threshold", threshold), threshold_mode)
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    def _init_is_better(self, mode: str, threshold: float, threshold_mode: str) -> None:
        if mode not in ("min", "max"):
            raise ValueError(f"ReduceLROnPlateau: mode {mode} is unknown! (use 'min' for a loss, 'max' for accuracy)")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError(f"ReduceLROnPlateau: threshold mode {threshold_mode} is unknown! (use 'rel' or 'abs')")
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.mode, self.threshold, self.threshold_mode = mode, threshold, threshold_mode

    def _is_better(self, a: float, best: float) -> bool:
        if self.mode == "min":
            return a < (best * (1.0 - self.threshold) if self.threshold_mode == "rel" else best - self.threshold)
        return a > (best * (self.threshold + 1.0) if self.threshold_mode == "rel" else best + self.threshold)

    @property
    def in_cooldown(self) -> bool:
        return self.cooldown_counter > 0

    def step(self, metrics: Any, epoch: int | None = None) -> None:  # type: ignore[override]
        """Record this epoch's ``metrics`` (a number or a one-element Tensor) and lower the lr on a plateau."""
        current = float(metrics)
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self.last_epoch = epoch
        if self._is_better(current, self.best):
            self.best, self.num_bad_epochs = current, 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0  # bad epochs in cooldown don't count
        if self.num_bad_epochs > self.patience:
            self._reduce_lr()
            self.cooldown_counter, self.num_bad_epochs = self.cooldown, 0
        self._last_lr = self._group_lrs()

    def _reduce_lr(self) -> None:
        groups = self.optimizer.param_groups
        if len(groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise RuntimeError(
                    f"ReduceLROnPlateau: the optimizer has {len(groups)} param groups, but min_lr had "
                    f"{len(self.min_lrs)} values when the scheduler was built (a group was added): set "
                    "scheduler.min_lrs to one value per group"
                )
            self.min_lrs = [self.default_min_lr] * len(groups)
        for group, min_lr in zip(groups, self.min_lrs):
            old_lr = float(group["lr"])
            new_lr = max(old_lr * self.factor, min_lr)
            if old_lr - new_lr > self.eps:
                group["lr"] = new_lr

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        super().load_state_dict(state_dict)
        self._init_is_better(self.mode, self.threshold, self.threshold_mode)
