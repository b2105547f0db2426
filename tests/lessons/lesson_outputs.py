"""What a solution notebook says and what its stored outputs show, for the promise tests.

    lesson = Lesson("13")
    lesson.text("6161c69e")                 # a markdown cell's source, on one line
    lesson.output("2983ccb7")               # everything a code cell printed (streams and text/plain)
    number(r"val loss ([\\d.]+)", text)      # the first match, as a float; fails naming the pattern

The promise tests compare the two: a number the text promises with the number the stored
output shows, so that neither can change without the other.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat

SOLUTIONS = Path(__file__).resolve().parents[2] / "lessons" / "solutions"


class Lesson:
    """One solution notebook, its cells by id."""

    def __init__(self, number: str) -> None:
        (path,) = SOLUTIONS.glob(f"{number}_*.ipynb")
        self.name = path.name
        self.cells = {cell.id: cell for cell in nbformat.read(path, as_version=4).cells}

    def _cell(self, cell_id: str, kind: str) -> nbformat.NotebookNode:
        assert cell_id in self.cells, f"{self.name}: no cell with id {cell_id!r}"
        cell = self.cells[cell_id]
        assert cell.cell_type == kind, f"{self.name}: cell {cell_id} is {cell.cell_type}, not {kind}"
        return cell

    def text(self, cell_id: str) -> str:
        """The source of markdown cell ``cell_id``, every run of whitespace one space (lines rewrap freely)."""
        return " ".join(self._cell(cell_id, "markdown").source.split())

    def output(self, cell_id: str) -> str:
        """What code cell ``cell_id`` printed when its outputs were stored: streams, then text/plain values."""
        parts = []
        for out in self._cell(cell_id, "code").outputs:
            if out.output_type == "stream":
                parts.append(out.text)
            elif out.output_type == "error":
                parts.append(f"{out.ename}: {out.evalue}")
            elif "text/plain" in out.get("data", {}):
                parts.append(out.data["text/plain"])
        text = "\n".join(parts)
        assert text, f"{self.name}: cell {cell_id} has no stored text output"
        return text


def number(pattern: str, text: str, group: int = 1) -> float:
    """The first match of ``pattern`` in ``text``, group ``group`` as a float (commas dropped)."""
    found = re.search(pattern, text)
    assert found, f"{pattern!r} not found in:\n{text}"
    return float(found.group(group).replace(",", ""))


def numbers(pattern: str, text: str) -> list[float]:
    """Every match of ``pattern`` (its first group) in ``text``, as floats."""
    found = [float(m.replace(",", "")) for m in re.findall(pattern, text)]
    assert found, f"{pattern!r} not found in:\n{text}"
    return found


def says_true(label: str, text: str) -> bool:
    """True if ``text`` has ``label`` followed (on its line) by ``True``; fails if the label is missing."""
    found = re.search(re.escape(label) + r"[^\n]*?\b(True|False)\b", text)
    assert found, f"{label!r} not found in:\n{text}"
    return found.group(1) == "True"
