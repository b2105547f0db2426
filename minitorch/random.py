"""The random number generator behind ``rand``, ``randn``, weight init and dropout.

One NumPy ``Generator`` for the whole process, replaced by ``manual_seed``: the same
seed gives the same numbers on every machine, whatever device the tensors end up on
(random tensors are drawn on the host and then moved). Dropout on a GPU draws its masks
with CuPy's generator instead, which ``manual_seed`` seeds too (through a seed hook the
CUDA backend adds once it finds a GPU).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


class _GeneratorHolder:
    """Holds the current generator (a named field rather than a one-element list)."""

    __slots__ = ("generator", "seed", "hooks")

    def __init__(self) -> None:
        self.generator = np.random.default_rng()
        self.seed: int | None = None  # the last manual_seed, for hooks added later
        self.hooks: list[Callable[[int], object]] = []


_HOLDER = _GeneratorHolder()


def manual_seed(seed: int) -> np.random.Generator:
    """Make ``rand``, ``randn``, ``randint``, weight init and dropout repeatable."""
    seed = _seed_as_int(seed)
    _HOLDER.generator = np.random.default_rng(seed)
    _HOLDER.seed = seed
    for hook in _HOLDER.hooks:
        hook(seed)
    return _HOLDER.generator


def _seed_as_int(seed: object) -> int:
    """The seed as PyTorch takes it: ``int(seed)`` ("42" and 42.0 are 42), a negative one wrapped to 64 bits.

    A string that is no integer is a ValueError, anything else a TypeError, as in PyTorch;
    both name what was given.
    """
    try:
        value = int(seed)  # type: ignore[call-overload]
    except ValueError:
        raise ValueError(
            f"manual_seed: the seed must be an integer, e.g. manual_seed(0), got the string {seed!r}"
        ) from None
    except TypeError:
        raise TypeError(
            f"manual_seed: the seed must be an integer, e.g. manual_seed(0), got {type(seed).__name__} {seed!r}"
        ) from None
    if not -(2**63) <= value < 2**64:
        raise ValueError(f"manual_seed: the seed must fit 64 bits (from -2**63 to 2**64 - 1), got {value}")
    return value % 2**64  # as PyTorch: -5 is the seed 2**64 - 5


def add_seed_hook(hook: Callable[[int], object]) -> None:
    """Call ``hook(seed)`` on every ``manual_seed`` (now too, if a seed was set): device generators."""
    if hook not in _HOLDER.hooks:
        _HOLDER.hooks.append(hook)
    if _HOLDER.seed is not None:
        hook(_HOLDER.seed)


def remove_seed_hook(hook: Callable[[int], object]) -> None:
    """Stop calling ``hook`` on ``manual_seed``."""
    if hook in _HOLDER.hooks:
        _HOLDER.hooks.remove(hook)


def default_generator() -> np.random.Generator:
    """The NumPy Generator behind the random factories."""
    return _HOLDER.generator
