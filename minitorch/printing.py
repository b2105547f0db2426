"""``repr`` of a Tensor, following PyTorch's print rules so outputs compare line by line.

    tensor([1.5000, 2.0000], requires_grad=True)
    tensor([1.0000e-03, 1.0000e+03, 5.0000e+00])         (a wide range: scientific)
    tensor([-0.0045,  0.6565, -1.2884,  ...,  0.1250])   (over 1,000 elements: summarised)

The rules (``set_printoptions`` changes the numbers): 4 decimals; floats that are all whole
numbers print as ``1.``; scientific notation when the largest finite non-zero magnitude is
over 1e8, or over 1,000 times the smallest, or (for non-whole numbers) the smallest is
below 1e-4; every element padded to one width; lines wrapped at 80 characters; more than
1,000 elements shown as the first and last 3 of each dimension around ``...``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minitorch import backends
from minitorch.dtypes import default_float


class _PrintOptions:
    """The print options (``set_printoptions``)."""

    __slots__ = ("precision", "threshold", "edgeitems", "linewidth", "sci_mode")

    def __init__(self) -> None:
        self.precision = 4  # decimals of floats
        self.threshold: float = 1000  # more elements than this: summarise (math.inf: never)
        self.edgeitems = 3  # elements kept at each end of a summarised dimension
        self.linewidth = 80  # characters per line
        self.sci_mode: bool | None = None  # None: decided by the values


PRINT_OPTS = _PrintOptions()


def set_printoptions(
    precision: int | None = None,
    threshold: int | None = None,
    edgeitems: int | None = None,
    linewidth: int | None = None,
    profile: str | None = None,
    sci_mode: bool | None = None,
) -> None:
    """Change how tensors print, as ``torch.set_printoptions`` (profile: default, short, full)."""
    if profile is not None:
        presets = {"default": (4, 1000, 3, 80), "short": (2, 1000, 2, 80), "full": (4, math.inf, 3, 80)}
        if profile not in presets:
            raise ValueError(f"set_printoptions: profile must be one of {sorted(presets)}, got {profile!r}")
        PRINT_OPTS.precision, PRINT_OPTS.threshold, PRINT_OPTS.edgeitems, PRINT_OPTS.linewidth = presets[profile]
    for name, value in (("precision", precision), ("threshold", threshold), ("edgeitems", edgeitems),
                        ("linewidth", linewidth)):
        if value is not None:
            setattr(PRINT_OPTS, name, value)
    PRINT_OPTS.sci_mode = sci_mode


class _Formatter:
    """Decides how every element of one tensor prints (one style and one width for all)."""

    def __init__(self, values: np.ndarray) -> None:
        self.floating = values.dtype.kind == "f"
        self.whole = True  # every finite float is a whole number: print as "3."
        self.sci = False
        self.width = 1
        flat = values.reshape(-1)
        if not self.floating:
            self.width = max([len(self._plain(v)) for v in flat.tolist()], default=1)
            return
        finite = flat[np.isfinite(flat) & (flat != 0)].astype(np.float64)
        if finite.size:
            magnitudes = np.abs(finite)
            low, high = float(magnitudes.min()), float(magnitudes.max())
            self.whole = bool(np.all(finite == np.ceil(finite)))
            wide = high / low > 1000.0 or high > 1.0e8
            self.sci = wide if self.whole else (wide or low < 1.0e-4)
        if PRINT_OPTS.sci_mode is not None:
            self.sci = PRINT_OPTS.sci_mode
        if finite.size:  # widths come from the finite values; inf and nan take what they need
            self.width = max(len(self._text(v)) for v in finite.tolist())

    @staticmethod
    def _plain(value: Any) -> str:
        return str(value)

    def _text(self, value: float) -> str:
        if self.sci:
            return f"{value:.{PRINT_OPTS.precision}e}"
        if self.whole:
            return f"{value:.0f}" if not math.isfinite(value) else f"{value:.0f}."
        return f"{value:.{PRINT_OPTS.precision}f}"

    def format(self, value: Any) -> str:
        """One element, right-aligned to the common width."""
        text = self._text(float(value)) if self.floating else self._plain(value)
        return text.rjust(self.width)


def _summarised(values: np.ndarray, edge: int) -> np.ndarray:
    """The elements a summarised print shows (the first and last ``edge`` of every dim)."""
    for axis in range(values.ndim):
        if values.shape[axis] > 2 * edge:
            keep = list(range(edge)) + list(range(values.shape[axis] - edge, values.shape[axis]))
            values = np.take(values, keep, axis=axis)
    return values


def _body(values: np.ndarray, indent: int, summarise: bool, fmt: _Formatter) -> str:
    """The nested brackets, ``indent`` columns in (each level adds one)."""
    edge = PRINT_OPTS.edgeitems
    if values.ndim == 0:
        return fmt.format(values.item())
    n = values.shape[0]
    cut = summarise and n > 2 * edge
    if values.ndim == 1:
        if cut:  # the first and last few, around " ..." (padded like an element)
            items = [fmt.format(v) for v in values[:edge].tolist()] + [" ..."]
            items += [fmt.format(v) for v in values[-edge:].tolist()]
        else:
            items = [fmt.format(v) for v in values.tolist()]
        per_line = max(1, (PRINT_OPTS.linewidth - indent) // (fmt.width + 2))
        lines = [", ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    rows = range(n) if not cut else [*range(edge), -1, *range(n - edge, n)]
    parts = ["..." if i == -1 else _body(values[i], indent + 1, summarise, fmt) for i in rows]
    return "[" + ("," + "\n" * (values.ndim - 1) + " " * (indent + 1)).join(parts) + "]"


def format_values(data: Any, indent: int = len("tensor(")) -> str:
    """The values as text, as PyTorch prints them (without ``tensor(`` and the suffixes)."""
    values = backends.to_device(data, "cpu")
    if values.size == 0:
        return "[]"
    summarise = values.size > PRINT_OPTS.threshold
    fmt = _Formatter(_summarised(values, PRINT_OPTS.edgeitems) if summarise else values)
    return _body(values, indent, summarise, fmt)


def tensor_repr(t: Any) -> str:
    """The full repr, with size, dtype, device, grad_fn or requires_grad when not default."""
    prefix = "tensor("
    data = t.data
    suffixes = []
    if data.size == 0 and data.ndim != 1:
        suffixes.append(f"size={tuple(data.shape)}")
    default_dtypes = {default_float().name, "int64", "bool"} if data.size else {default_float().name}
    if t.dtype.name not in default_dtypes:
        suffixes.append(f"dtype={t.dtype}")
    if t.device != "cpu":
        suffixes.append(f"device='{t.device}:0'")
    if t.grad_fn is not None:
        suffixes.append(f"grad_fn=<{type(t.grad_fn).__name__}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    text = prefix + format_values(data, len(prefix))
    last_line = len(text) - text.rfind("\n") + 1  # as PyTorch counts it
    for suffix in suffixes:
        if last_line + len(suffix) + 2 > PRINT_OPTS.linewidth:
            text += ",\n" + " " * len(prefix) + suffix
            last_line = len(prefix) + len(suffix)
        else:
            text += ", " + suffix
            last_line += len(suffix) + 2
    return text + ")"
