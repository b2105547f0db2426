"""Which of a backward's own variables turned a float32 gradient into float64, for the hint.

NumPy 2 keeps an array's dtype when it meets a Python number, but not when it meets a
NumPy float64 scalar or array: ``grad32 / np.sqrt(4)`` is float64 (``np.sqrt`` of a Python
int is a NumPy float64), ``grad32 / math.sqrt(4)`` stays float32. ``locals_at_return`` runs
a backward once and keeps its local variables; ``float64_hint`` names the ones to blame.
"""

import dis
import sys
from collections.abc import Callable
from types import FrameType
from typing import Any

import numpy as np

from widgets.i18n import _


def locals_at_return(fn: Any, call: Callable[[], Any]) -> tuple[Any, dict[str, Any]]:
    """``call()``'s result, and the local variables of ``fn``'s frame when it returned ({} if unknown)."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return call(), {}
    captured: dict[str, Any] = {}
    previous = sys.getprofile()

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        if event == "return" and frame.f_code is code:
            captured.update(frame.f_locals)

    sys.setprofile(profile)
    try:
        result = call()
    finally:
        sys.setprofile(previous)
    return result, captured


def calls_np_sqrt(fn: Any) -> bool:
    """True when ``fn``'s code calls ``np.sqrt`` (or ``numpy.sqrt``): read from its bytecode, no source needed."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return False
    steps = list(dis.get_instructions(code))
    return any(a.opname in ("LOAD_GLOBAL", "LOAD_NAME") and a.argval in ("np", "numpy")
               and b.opname in ("LOAD_ATTR", "LOAD_METHOD") and b.argval == "sqrt"
               for a, b in zip(steps, steps[1:]))


def float64_hint(local_values: dict[str, Any], np_sqrt: bool = False) -> str:
    """Why a gradient came out float64 for a float32 input, naming the backward's variables that are float64.

    ``np_sqrt`` (the backward calls ``np.sqrt``) names a NumPy float64 number made inline,
    where no variable holds it: ``grad_s / np.sqrt(d)``.
    """
    scalars = [n for n, v in local_values.items() if isinstance(v, np.floating) and v.dtype == np.float64]
    arrays = [n for n, v in local_values.items()
              if isinstance(v, np.ndarray) and v.dtype == np.float64 and n != "grad_output"]
    start = _("your gradient is float64 for a float32 input: keep the input's dtype. ")
    if not scalars and np_sqrt:
        names = ", ".join(f"`{n}`" for n in arrays[:3]) or _("The gradient")
        return start + _("{names} became float64 because np.sqrt(...) of a Python number (the shape's d) is a "
                         "NumPy float64, and a float32 array times it becomes float64: use math.sqrt (a Python "
                         "float keeps the array's dtype)", names=names)
    if scalars:
        names = ", ".join(f"`{n}`" for n in scalars[:3])
        return start + _("{names} is a NumPy float64 number (np.sqrt of a Python int gives one), and a float32 "
                         "array times it becomes float64: use math.sqrt (a Python float keeps the array's dtype) "
                         "or float(...)", names=names)
    if arrays:
        names = ", ".join(f"`{n}`" for n in arrays[:3])
        return start + _("{names} is a float64 array (np.ones/np.zeros make float64 unless given dtype=, and so "
                         "do integer counts divided): make it with dtype=a.dtype or convert with .astype(a.dtype)",
                         names=names)
    counts = [n for n, v in local_values.items() if isinstance(v, np.ndarray) and v.ndim and v.dtype.kind in "iu"]
    if counts:
        names = ", ".join(f"`{n}`" for n in counts[:3])
        return start + _("{names} is an integer array (a count from .sum(), say), and a float32 array divided by "
                         "it becomes float64: convert the result with .astype(a.dtype)", names=names)
    return start + _("np.ones/np.zeros, bool masks and NumPy float64 numbers such as np.sqrt(d) of a Python int give "
                     "float64: use math.sqrt, dtype=a.dtype, or convert with .astype(a.dtype)")
