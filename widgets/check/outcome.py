"""A function's result kept with the inputs it got, so a ``compare`` can compute wrong versions from them.

    check_function("rnn cell forward", keep_inputs(rnn_cell), keep_inputs(reference_rnn_cell),
                   cases=..., compare=my_hint)      # my_hint(got, expected): expected.args are the inputs

A compare sees only the two results; lessons whose hints recompute the usual wrong answers
(a missing transpose, the gates in the wrong order) need the inputs as well.
"""

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from widgets.check.check_result import format_value


class Outcome:
    """One call: ``args`` (the inputs, as given) and ``value`` (what the function returned)."""

    def __init__(self, args: tuple[Any, ...], value: Any) -> None:
        self.args = args
        self.value = value

    def __repr__(self) -> str:
        return format_value(self.value)


def _copy(value: Any) -> Any:
    return value.copy() if isinstance(value, np.ndarray) else value


def keep_inputs(fn: Callable[..., Any]) -> Callable[..., Outcome]:
    """``fn`` returning an ``Outcome`` that keeps copies of the inputs as they were before the call.

    ``fn`` gets the inputs themselves, so ``check_function`` still sees a function that changes
    one in place; the hints compute from the copies.
    """
    @functools.wraps(fn)  # its signature too: a hint names the argument by its name
    def run(*args: Any) -> Outcome:
        kept = tuple(_copy(a) for a in args)
        return Outcome(kept, fn(*args))
    return run
