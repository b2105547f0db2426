"""The scoreboard: which exercises of this lesson pass, fail or are not done yet.

Every ``check_backward`` / ``check_function`` call records its latest result here under
its name. At the end of a lesson::

    from widgets import lesson_score
    lesson_score(["Mul.backward", "broadcast shape", "topological sort"])

shows one line per exercise (those never checked count as "not done"). ``progress()``
shows every lesson's exercises at once, from the check results saved in the notebooks.
"""

import ast
import html
import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from widgets import style
from widgets.i18n import _, check_name

if TYPE_CHECKING:  # only for the hints: check_result records here, so importing it would be a cycle
    from widgets.check.check_result import CheckResult

# exercise name -> the latest CheckResult, in the order exercises were first checked
_RESULTS: dict[str, "CheckResult"] = {}


def record(result: "CheckResult") -> None:
    """Remember ``result`` as the latest attempt at exercise ``result.name``."""
    _RESULTS[result.name] = result


def _label(status: str) -> str:
    """A status as the learner reads it ("passed" in English, "通过" in Chinese); the keys stay English."""
    return {"passed": _("passed"), "failed": _("failed"), "not done": _("not done")}.get(status, status)


def reset() -> None:
    """Forget every recorded result (a fresh start for the lesson)."""
    _RESULTS.clear()


class Scoreboard:
    """Passed / failed / not done per exercise; shows as a small table in a notebook."""

    def __init__(self, expected: Iterable[str] | None = None) -> None:
        if isinstance(expected, str) or (expected is not None and not hasattr(expected, "__iter__")):
            raise TypeError(_("lesson_score: expected must be a list of exercise names, got {expected}; "
                              "for one exercise write lesson_score([{expected}])", expected=repr(expected)))
        names = list(expected) if expected is not None else list(_RESULTS)
        bad = [n for n in names if not isinstance(n, str)]
        if bad:
            raise TypeError(_("lesson_score: exercise names must be strings (as given to the checks), got {name}",
                              name=repr(bad[0])))
        self.statuses = {n: (_RESULTS[n].status if n in _RESULTS else "not done") for n in names}

    def count(self, status: str) -> int:
        """How many exercises have ``status`` ("passed", "failed" or "not done")."""
        return sum(1 for s in self.statuses.values() if s == status)

    @property
    def summary(self) -> str:
        return _("{passed} of {total} exercises passed, {failed} failed, {not_done} not done",
                 passed=self.count("passed"), total=len(self.statuses), failed=self.count("failed"),
                 not_done=self.count("not done"))

    def __repr__(self) -> str:
        return "\n".join([self.summary] + [f"  {_label(s):>8}  {check_name(n)}" for n, s in self.statuses.items()])

    def _repr_html_(self) -> str:
        colours = {"passed": style.PASS_COLOUR, "failed": style.FAIL_COLOUR, "not done": style.TODO_COLOUR}
        rows = "".join(
            f'<tr><td style="padding:2px 8px">{html.escape(check_name(n))}</td>'
            f'<td style="padding:2px 8px;color:{colours.get(s, "#000")};font-weight:bold">{_label(s)}</td></tr>'
            for n, s in self.statuses.items()
        )
        return (f'<div class="minitorch-scoreboard" style="font-family:sans-serif"><b>{self.summary}</b>'
                f'<table style="border-collapse:collapse">{rows}</table></div>')


def lesson_score(expected: Iterable[str] | None = None) -> Scoreboard:
    """A ``Scoreboard`` of the exercises in ``expected`` (default: every exercise checked so far)."""
    return Scoreboard(expected)


# ---------------------------------------------------------------------- the whole course
# A check's text form starts "name: PASSED - ..." (CheckResult.__repr__); notebooks keep it
# in their saved outputs, so progress() needs no server and no extra file.
_SAVED_RESULT = re.compile(r"^(?P<name>.+?): (?P<status>PASSED|FAILED|NOT DONE) - ", re.M)


def _lesson_exercises(cells: list[dict[str, Any]]) -> list[str] | None:
    """The exercise names given to the notebook's last ``lesson_score([...])`` call, or None."""
    names = None
    for cell in cells:
        if cell.get("cell_type") != "code":
            continue
        try:
            tree = ast.parse("".join(cell.get("source", "")))
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            called = getattr(node, "func", None)
            if (isinstance(node, ast.Call) and getattr(called, "attr", getattr(called, "id", "")) == "lesson_score"
                    and node.args and isinstance(node.args[0], (ast.List, ast.Tuple))):
                names = [e.value for e in node.args[0].elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return names


def _saved_statuses(cells: list[dict[str, Any]]) -> dict[str, str]:
    """Exercise name -> status of the last check result saved in the notebook's outputs."""
    statuses: dict[str, str] = {}
    for cell in cells:
        for output in cell.get("outputs", []) or []:
            text = output.get("data", {}).get("text/plain", "")
            text = "".join(text) if isinstance(text, list) else text
            for match in _SAVED_RESULT.finditer(text):
                statuses[match["name"]] = match["status"].lower()
    return statuses


def _default_folder() -> Path:
    """The folder of the lessons: the current one when it holds them (a notebook's), else ``lessons/``."""
    for folder in (Path.cwd(), Path.cwd() / "lessons", Path(__file__).resolve().parents[2] / "lessons"):
        if any(folder.glob("[0-9][0-9]_*.ipynb")):
            return folder
    return Path.cwd()


class Progress:
    """Every lesson's exercises: passed / failed / not done, as saved in the notebooks on disk."""

    def __init__(self, folder: str | Path | None = None) -> None:
        self.folder = Path(folder) if folder is not None else _default_folder()
        self.lessons: dict[str, dict[str, str]] = {}  # notebook name -> {exercise: status}
        for path in sorted(self.folder.glob("[0-9][0-9]_*.ipynb")):
            try:
                cells = json.loads(path.read_text(encoding="utf-8")).get("cells", [])
            except (OSError, ValueError):
                continue
            names = _lesson_exercises(cells)
            if names is None:  # a lesson without exercises
                continue
            saved = _saved_statuses(cells)
            self.lessons[path.stem] = {n: saved.get(n, "not done") for n in names}

    def count(self, status: str) -> int:
        """How many exercises of the whole course have ``status``."""
        return sum(1 for lesson in self.lessons.values() for s in lesson.values() if s == status)

    @property
    def summary(self) -> str:
        total = sum(len(lesson) for lesson in self.lessons.values())
        return _("{passed} of {total} exercises passed, {failed} failed, {not_done} not done "
                 "(as saved in the notebooks: save a notebook to update it)", passed=self.count("passed"),
                 total=total, failed=self.count("failed"), not_done=self.count("not done"))

    def __repr__(self) -> str:
        lines = [self.summary]
        for lesson, statuses in self.lessons.items():
            done = sum(1 for s in statuses.values() if s == "passed")
            lines.append("  " + _("{lesson}: {done}/{total} passed", lesson=lesson, done=done, total=len(statuses)))
            lines += [f"      {_label(s):>8}  {check_name(n)}" for n, s in statuses.items() if s != "passed"]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        colours = {"passed": style.PASS_COLOUR, "failed": style.FAIL_COLOUR, "not done": style.TODO_COLOUR}
        rows = []
        for lesson, statuses in self.lessons.items():
            marks = ", ".join(f'<span style="color:{colours.get(s, "#000")}">'
                              f"{html.escape(check_name(n))} ({_label(s)})</span>" for n, s in statuses.items())
            done = sum(1 for s in statuses.values() if s == "passed")
            rows.append(f'<tr><td style="padding:2px 8px">{html.escape(lesson)}</td>'
                        f'<td style="padding:2px 8px">{done}/{len(statuses)}</td>'
                        f'<td style="padding:2px 8px">{marks}</td></tr>')
        return (f'<div class="minitorch-progress" style="font-family:sans-serif"><b>{html.escape(self.summary)}</b>'
                f'<table style="border-collapse:collapse">{"".join(rows)}</table></div>')


def progress(folder: str | Path | None = None) -> Progress:
    """Every lesson's exercises, passed / failed / not done, read from the saved notebooks in ``folder``."""
    return Progress(folder)
