"""What a check found, and how it shows in a notebook: shared by ``check_backward`` and ``check_function``.

A ``CheckResult`` has ``.passed``, ``.status`` ("passed" / "failed" / "not done"),
``.rows`` (one ``CheckRow`` per line of the table), ``.message``, ``.note`` and ``.error``.
Its HTML and text contain no timings or addresses, so notebooks compare cleanly under nbval.
The helpers below turn values, errors and exceptions into the short text of a table cell.
"""

import html
import linecache
import os
import sys
import sysconfig
from collections.abc import Callable, Sequence
from types import FrameType
from typing import Any

import numpy as np

import minitorch
from minitorch.tensor import Tensor
from widgets import style
from widgets.i18n import _, check_name

PASSED, FAILED, NOT_DONE = "passed", "failed", "not done"
# A check's ``compare(got, expected) -> (ok, hint)``.
Compare = Callable[[Any, Any], tuple[bool, str]]
# Table cells: left-aligned, top-aligned (JupyterLab's default right-aligns table cells)
_CELL = "text-align:left;vertical-align:top;padding:2px 8px"


class CheckRow:
    """One line of the table: one input of one case (``check_backward``) or one case."""

    def __init__(self, case: str, ok: bool, hint: str = "", cells: dict[str, Any] | None = None,
                 **values: Any) -> None:
        self.case = case
        self.ok = ok
        self.hint = hint
        self.cells = dict(cells or {}, case=case)  # column name -> shown text
        for key, value in values.items():  # raw values a test can assert on (input, error_fd, ...)
            setattr(self, key, value)

    def __repr__(self) -> str:
        return f"CheckRow({self.case}, ok={self.ok}, hint={self.hint!r})"


class CheckResult:
    """What a check found: ``status``, ``rows``, ``message``; shows itself as a table."""

    def __init__(self, name: str, columns: Sequence[str], rows: list[CheckRow], status: str, message: str,
                 note: str = "", error: str = "") -> None:
        self.name = name
        self.columns = columns
        self.rows = rows
        self.status = status
        self.message = message
        self.note = note  # e.g. which backward is now in use
        self.error = error  # a learner's exception, formatted for reading

    @property
    def passed(self) -> bool:
        """True when every row passed."""
        return self.status == PASSED

    def __bool__(self) -> bool:
        return self.passed

    def __repr__(self) -> str:
        # "name: PASSED - " stays English in every language (the name too): progress() and make course read
        # it back from saved notebooks. The HTML, what the learner sees, shows the name translated.
        lines = [f"{self.name}: {self.status.upper()} - {self.message}"]
        for row in self.rows:
            mark = "ok  " if row.ok else "FAIL"
            what = row.case + (f", {row.cells['input']}" if row.cells.get("input", "-") != "-" else "")
            lines.append(f"  [{mark}] {what}" + (f": {row.hint}" if row.hint and not row.ok else ""))
        if self.error:
            lines.append(self.error)
        if self.note:
            lines.append(self.note)
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        colour = {PASSED: style.PASS_COLOUR, FAILED: style.FAIL_COLOUR}.get(self.status, style.TODO_COLOUR)
        icon = {PASSED: "&#10004;", FAILED: "&#10008;"}.get(self.status, "&#8230;")
        e = html.escape
        parts = [
            f'<div class="minitorch-check minitorch-check-{self.status.replace(" ", "-")}" '
            f'style="border-left:6px solid {colour};padding:6px 10px;margin:4px 0;font-family:sans-serif">',
            f'<div style="font-size:1.1em;color:{colour};font-weight:bold">{icon} {e(check_name(self.name))}: '
            f"{e(status_label(self.status))}</div>",
            f'<div style="margin:4px 0">{e(self.message)}</div>',
        ]
        if self.error:
            parts.append(
                f'<pre style="background:#fff3f3;border:1px solid #f0c0c0;padding:6px;white-space:pre-wrap">'
                f"{e(self.error)}</pre>"
            )
        if self.rows:
            parts.append(self._table_html())
        if self.note:
            parts.append(f'<div style="margin-top:4px;font-style:italic">{e(self.note)}</div>')
        parts.append("</div>")
        return "".join(parts)

    def _table_html(self) -> str:
        """The rows as an HTML table: the columns, then the verdict and the hint."""
        e = html.escape
        titles = [column_title(c) for c in self.columns] + [_("result"), _("hint")]
        head = "".join(f'<th style="{_CELL}">{e(c)}</th>' for c in titles)
        parts = [f'<table style="border-collapse:collapse;font-size:0.9em"><tr>{head}</tr>']
        for row in self.rows:
            cells = "".join(f'<td style="{_CELL};font-family:monospace;white-space:nowrap">'
                            f'{e(str(row.cells.get(c, "")))}</td>' for c in self.columns)
            verdict = (f'<td style="{_CELL};color:{style.PASS_COLOUR}">{e(_("pass"))}</td>' if row.ok
                       else f'<td style="{_CELL};color:{style.FAIL_COLOUR};font-weight:bold">{e(_("FAIL"))}</td>')
            parts.append(f'<tr>{cells}{verdict}<td style="{_CELL}">{e(row.hint)}</td></tr>')
        parts.append("</table>")
        return "".join(parts)


def status_label(status: str) -> str:
    """"passed" / "failed" / "not done" as the learner reads it (``status`` itself stays English)."""
    return {PASSED: _("passed"), FAILED: _("failed"), NOT_DONE: _("not done")}.get(status, status)


def column_title(column: str) -> str:
    """A table column's heading in the learner's language (the column's key in ``cells`` stays English)."""
    titles = {"case": _("case"), "expected": _("expected"), "got": _("got"), "input": _("input"),
              "input shape": _("input shape"), "your grad shape": _("your grad shape"),
              "error vs finite diff": _("error vs finite diff"), "error vs reference": _("error vs reference")}
    return titles.get(column, column)


# ---------------------------------------------------------------------- formatting
# Frames from these directories are library code, not the learner's: MiniTorch, the widgets,
# NumPy, the standard library and installed packages.
_LIBRARY_DIRS = tuple(
    os.path.dirname(str(module.__file__)) + os.sep for module in (minitorch, np, sys.modules["widgets"])
) + tuple(
    os.path.realpath(sysconfig.get_paths()[key]) + os.sep for key in ("stdlib", "purelib", "platlib")
)


def _own_frames(exc: BaseException) -> list[tuple[FrameType, int]]:
    """The traceback's (frame, line number) pairs that are the learner's code, oldest first."""
    pairs = []
    tb = exc.__traceback__
    while tb is not None:
        filename = os.path.realpath(tb.tb_frame.f_code.co_filename)
        if not filename.startswith(_LIBRARY_DIRS) and not filename.startswith("<frozen"):
            pairs.append((tb.tb_frame, tb.tb_lineno))
        tb = tb.tb_next
    return pairs


def learner_frames(exc: BaseException) -> list[str]:
    """The names (``MySGD.step``) of the learner's functions ``exc`` went through, oldest first."""
    names = [getattr(frame.f_code, "co_qualname", frame.f_code.co_name) for frame, _ in _own_frames(exc)]
    return [name.split("<locals>.")[-1] for name in names]


def describe_exception(exc: BaseException) -> str:
    """``TypeError: message`` plus the line of the learner's code it came from (never library code)."""
    text = f"{type(exc).__name__}: {exc}"
    own = _own_frames(exc)
    if own:
        frame, lineno = own[-1]
        where = _("line {lineno} in {function}", lineno=lineno, function=frame.f_code.co_name)
        line = linecache.getline(frame.f_code.co_filename, lineno, frame.f_globals).strip()
        if line:
            where += f":  {line}"
        text += f"\n  ({where})"
    return text


def fmt_err(err: float | None) -> str:
    """Worst error, 2 digits; rounding noise shows as '< 1e-08' (its exact value varies by machine)."""
    if err is None:
        return "-"
    if not np.isfinite(err):
        return "NaN/Inf"
    return "< 1e-08" if err < 1e-8 else f"{err:.2g}"


def short(value: Any, limit: int = 60) -> str:
    """A value on one line, cut to ``limit`` characters; numbers in 4 significant digits (``style.format_number``)."""
    text = " ".join(format_value(value.data if isinstance(value, Tensor) else value).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


_MAX_ITEMS = 20  # a list is shown cut to a table cell anyway: format no more of it than fits


def format_value(value: Any) -> str:
    """A value as text for a table, with every number in it as a learner reads it (containers too)."""
    if isinstance(value, (bool, int, float, np.bool_, np.integer, np.floating)):
        return style.format_number(value)
    if isinstance(value, np.ndarray):
        if value.ndim == 0 and value.dtype.kind in "biuf":
            return style.format_number(value.item())
        return np.array2string(value, precision=4, separator=", ", threshold=12)
    if type(value) in (list, tuple):  # exactly: a named tuple (return_types) keeps its own repr
        items = [format_value(v) for v in value[:_MAX_ITEMS]] + (["..."] if len(value) > _MAX_ITEMS else [])
        if isinstance(value, list):
            return "[" + ", ".join(items) + "]"
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    if type(value) is dict:
        pairs = [f"{k!r}: {format_value(v)}" for k, v in list(value.items())[:_MAX_ITEMS]]
        return "{" + ", ".join(pairs + (["..."] if len(value) > _MAX_ITEMS else [])) + "}"
    return repr(value)  # a Tensor inside a container prints itself (4 decimals, as PyTorch's)


def to_numpy(g: Any) -> np.ndarray | None:
    """A gradient (array, Tensor, CuPy array or None) as a NumPy array, or None."""
    if g is None:
        return None
    if isinstance(g, Tensor):
        g = g.data
    if hasattr(g, "get") and not isinstance(g, np.ndarray):
        g = g.get()
    return np.asarray(g)
