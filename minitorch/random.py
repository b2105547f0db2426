"""The random number generator behind ``rand``, ``randn``, weight init and dropout.

One NumPy ``Generator`` for the whole process, replaced by ``manual_seed``: the same
seed gives the same numbers on every machine, whatever device the tensors end up on
(random tensors are drawn on the host and then moved).
"""

from __future__ import annotations

import numpy as np


class _GeneratorHolder:
    """Holds the current generator (a named field rather than a one-element list)."""

    __slots__ = ("generator",)

    def __init__(self) -> None:
        self.generator = np.random.default_rng()


_HOLDER = _GeneratorHolder()


def manual_seed(seed: int) -> np.random.Generator:
    """Make ``rand``, ``randn``, ``randint``, weight init and dropout repeatable."""
    _HOLDER.generator = np.random.default_rng(seed)
    return _HOLDER.generator


def default_generator() -> np.random.Generator:
    """The NumPy Generator behind the random factories."""
    return _HOLDER.generator
