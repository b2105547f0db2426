"""Shared colours and small formatting helpers, so every widget speaks the same visual language.

One palette for the whole course: a learner who has seen "blue box = parameter" in the
graph sees the same blue in the gradient-flow chart and the stepper.
"""

import math
import os
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from minitorch.hints import Array

# Tensor nodes
PARAM_FILL = "#cfe2ff"  # a leaf that requires grad (a parameter or an input you differentiate)
PARAM_BORDER = "#1f5fbf"
CONST_FILL = "#eeeeee"  # an input that needs no gradient (data, a constant, a Python number)
CONST_BORDER = "#9e9e9e"
TENSOR_FILL = "#fff4d6"  # a non-leaf tensor: the result of an op
TENSOR_BORDER = "#b8860b"
ROOT_FILL = "#d4f5d4"  # the tensor backward starts from (usually the loss)
ROOT_BORDER = "#2e7d32"

# Op nodes
OP_FILL = "#ffffff"
OP_BORDER = "#555555"
YOURS_FILL = "#f3e0ff"  # an op whose backward is the learner's code
YOURS_BORDER = "#8e24aa"

# Gradients
BAD_GRAD = "#d32f2f"  # NaN or Inf
NO_GRAD_EDGE = "#b0b0b0"
# Light to dark: small to large gradient norm (relative to the largest in the graph).
GRAD_RAMP = ["#9ecae1", "#6baed6", "#4292c6", "#2171b5", "#08519c", "#08306b"]

# Stepper states
CURRENT_FILL = "#ffd54f"
CURRENT_BORDER = "#e65100"
PENDING_FILL = "#f5f5f5"
PENDING_FONT = "#b0b0b0"

# Gradient-flow thresholds (norm of a parameter's gradient)
VANISHING = 1e-6
EXPLODING = 1e3
OK_BAR = "#4292c6"
VANISH_BAR = "#ff9800"
EXPLODE_BAR = BAD_GRAD

# Checker verdicts
PASS_COLOUR = "#2e7d32"
FAIL_COLOUR = "#c62828"
TODO_COLOUR = "#8d6e00"


def fmt_shape(shape: Sequence[int]) -> str:
    """``(128, 64)``; ``()`` for a scalar."""
    return "(" + ", ".join(str(int(s)) for s in shape) + ("," if len(shape) == 1 else "") + ")"


def fmt_dtype(dtype: Any) -> str:
    """``float32`` from a NumPy dtype, a MiniTorch dtype or a string."""
    name = getattr(dtype, "name", None) or str(dtype)
    return name.replace("minitorch.", "")


def format_number(value: Any, digits: int = 4) -> str:
    """A number as a learner reads it: ``2.294`` (4 significant digits), ``2.0``, ``-1.25``, ``7``, ``nan``.

    Tables and hints never show a float's every digit (``2.2942323684692383``): the last ones
    are rounding noise that differs between CPUs, and the checks compare with a tolerance
    anyway. A whole float is shown whole, with its point (``2.0``, ``65536.0``), so it never
    reads as an integer.
    """
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    value = float(value)
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if value.is_integer() and abs(value) < 1e16:
        return f"{value:.1f}"  # a whole number is exact, not noise: 65536.0, not 6.554e+04
    text = f"{value:.{digits}g}"
    return text if any(c in text for c in ".e") else text + ".0"


def format_pair(got: Any, expected: Any, digits: int = 4) -> tuple[str, str]:
    """``(got, expected)`` as text with the fewest digits (at least ``digits``, at most 10) that tell them apart."""
    for n in range(digits, 11):
        pair = format_number(got, n), format_number(expected, n)
        if pair[0] != pair[1]:
            return pair
    return pair


def fmt_norm(value: float | None) -> str:
    """A gradient norm in 3 significant digits; 'nan'/'inf' spelled out."""
    if value is None:
        return "-"
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Inf"
    return f"{value:.3g}"


def array_norm(array: Array | None) -> float | None:
    """The L2 norm of a NumPy or CuPy array as a Python float (NaN/Inf preserved)."""
    if array is None:
        return None
    a = array
    if not isinstance(a, np.ndarray) and hasattr(a, "get"):
        a = a.get()  # CuPy -> host; only a norm is taken, so the copy is brief
    a = np.asarray(a, dtype=np.float64)
    return float(np.sqrt(np.sum(a * a))) if a.size else 0.0


def grad_colour(norm: float | None, lo: float | None, hi: float | None) -> str:
    """Edge colour for a gradient norm, on a log scale between the graph's ``lo`` and ``hi``."""
    if norm is None:
        return NO_GRAD_EDGE
    if not math.isfinite(norm):
        return BAD_GRAD
    return GRAD_RAMP[_ramp_index(norm, lo, hi, len(GRAD_RAMP))]


def grad_width(norm: float | None, lo: float | None, hi: float | None) -> float:
    """Edge thickness (graphviz penwidth) for a gradient norm: 1 (smallest) to 4 (largest)."""
    if norm is None:
        return 1.0
    if not math.isfinite(norm):
        return 3.0
    return 1.0 + 3.0 * _ramp_index(norm, lo, hi, 7) / 6


def _ramp_index(norm: float, lo: float | None, hi: float | None, n: int) -> int:
    """Position of ``norm`` on an ``n``-step log scale from ``lo`` to ``hi`` (positive norms)."""
    if norm <= 0 or lo is None or hi is None:
        return 0
    if hi <= lo:
        return n - 1
    t = (math.log10(norm) - math.log10(lo)) / (math.log10(hi) - math.log10(lo))
    return int(round(min(max(t, 0.0), 1.0) * (n - 1)))


# ---------------------------------------------------------------------- fonts per language
# Debian's fonts-noto-cjk (installed by `make system-deps`) under its fontconfig name. Listed
# after the usual family, it is a fallback: matplotlib draws each character in the first family
# that has it, so Latin text looks as it does in English and only Chinese comes from this font.
CJK_FONT = "Noto Sans CJK SC"


def use_language_fonts(language: str) -> None:
    """Make matplotlib (every figure from now on, pyplot's too) able to draw ``language``'s characters."""
    import matplotlib

    families = [f for f in matplotlib.rcParams["font.family"] if f != CJK_FONT]
    if language == "zh":
        _find_cjk_font()
        families.append(CJK_FONT)
    matplotlib.rcParams["font.family"] = families


def _find_cjk_font() -> None:
    """Make sure matplotlib knows ``CJK_FONT``: its font list is cached, and may predate the font's install."""
    from matplotlib import font_manager

    if any(f.name == CJK_FONT for f in font_manager.fontManager.ttflist):
        return
    files = [f for f in font_manager.findSystemFonts() if os.path.basename(f).startswith("NotoSansCJK")]
    for path in files:
        font_manager.fontManager.addfont(path)
    if not files:
        warnings.warn(f"Chinese text needs the font {CJK_FONT!r}, which is not installed: run `make system-deps` "
                      "(or: sudo apt-get install fonts-noto-cjk); until then Chinese characters show as boxes",
                      stacklevel=3)


def graph_font(language: str) -> str:
    """The font Graphviz lays labels out in: Helvetica, or for Chinese a CJK font that has the Latin letters too."""
    return CJK_FONT if language == "zh" else "Helvetica"
