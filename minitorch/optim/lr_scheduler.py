"""Learning-rate schedules: change each group's ``lr`` once per ``scheduler.step()``.

Call ``optimizer.step()`` for every batch and ``scheduler.step()`` once per epoch, as in
PyTorch. Building a scheduler records each group's ``initial_lr`` and sets epoch 0.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from typing import Any

from minitorch.optim.optimizer import Optimizer, check_number


def _check_int(owner: str, name: str, value: Any, low: int) -> None:
    """A TypeError unless ``value`` is an int (not a bool), a ValueError unless it is >= ``low``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{owner}: {name} must be an int, got {type(value).__name__} {value!r}")
    if value < low:
        raise ValueError(f"{owner}: {name} must be >= {low}, got {value}")


def _check_not_nan(owner: str, name: str, value: Any) -> Any:
    value = check_number(owner, name, value)
    if math.isnan(value):
        raise ValueError(f"{owner}: {name} is NaN: check the computation that produced it")
    return value


class LRScheduler:
    """Base class: subclasses give ``lr_at(base_lr, epoch)``, the lr after ``epoch`` steps."""

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        name = type(self).__name__
        if not isinstance(optimizer, Optimizer):
            raise TypeError(
                f"{name}: {type(optimizer).__name__} is not an Optimizer: build the optimizer first and pass "
                f"it, e.g. {name}(minitorch.optim.SGD(model.parameters(), lr=0.1), ...)"
            )
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
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        self.step()

    def lr_at(self, base_lr: float, epoch: int) -> float:
        """The learning rate of a group with ``base_lr`` after ``epoch`` scheduler steps."""
        raise NotImplementedError

    def step(self) -> None:
        """Advance one epoch and set every group's learning rate."""
        self.last_epoch += 1
        for group, base_lr in zip(self.optimizer.param_groups, self.base_lrs):
            group["lr"] = self.lr_at(base_lr, self.last_epoch)
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

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
        missing = [k for k in ("last_epoch", "base_lrs") if k not in state_dict]
        if missing:
            looks = " (this is an optimizer's state_dict)" if "param_groups" in state_dict else ""
            raise ValueError(f"{name}: the dict has no {missing} entry: expected a scheduler's state_dict{looks}")
        self.__dict__.update(state_dict)


class StepLR(LRScheduler):
    """Multiply the lr by ``gamma`` every ``step_size`` epochs: base_lr * gamma ** (epoch // step_size)."""

    def __init__(self, optimizer: Optimizer, step_size: int, gamma: float = 0.1, last_epoch: int = -1) -> None:
        _check_int("StepLR", "step_size", step_size, low=1)
        self.step_size, self.gamma = step_size, _check_not_nan("StepLR", "gamma", gamma)
        super().__init__(optimizer, last_epoch)

    def lr_at(self, base_lr: float, epoch: int) -> float:
        return base_lr * self.gamma ** (epoch // self.step_size)


class CosineAnnealingLR(LRScheduler):
    """Half a cosine from ``base_lr`` down to ``eta_min`` over ``T_max`` epochs.

    lr = eta_min + (base_lr - eta_min) * (1 + cos(pi * epoch / T_max)) / 2
    """

    def __init__(self, optimizer: Optimizer, T_max: int, eta_min: float = 0.0, last_epoch: int = -1) -> None:
        _check_int("CosineAnnealingLR", "T_max", T_max, low=1)
        self.T_max, self.eta_min = T_max, _check_not_nan("CosineAnnealingLR", "eta_min", eta_min)
        super().__init__(optimizer, last_epoch)

    def lr_at(self, base_lr: float, epoch: int) -> float:
        return self.eta_min + (base_lr - self.eta_min) * (1 + math.cos(math.pi * epoch / self.T_max)) / 2
