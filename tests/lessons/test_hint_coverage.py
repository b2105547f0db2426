"""Every exercise of lessons 00-18 is tried with at least three wrong answers, and its solution passes.

The wrong answers and the words each hint must contain are the rows of the hint tables
(``test_hint_table``: lessons 00-11, 16 and 17, ``test_sequence_lesson_hints``: 12-13,
``test_late_lesson_hints``: 14-15 and 18, ``test_lesson18_walk``: lesson 18 as learners write
it); this test only counts them. An exercise is a check cell: a cell outside the solutions
that assigns a ``*check*`` variable from a check call.
"""

import re
from pathlib import Path

import nbformat
import pytest
import test_hint_table
import test_late_lesson_hints
import test_lesson18_walk
import test_sequence_lesson_hints

SOLUTIONS = Path(__file__).resolve().parents[2] / "lessons" / "solutions"
LESSONS = [f"{n:02d}" for n in range(19)]
MIN_WRONG_ANSWERS = 3
_CHECK = re.compile(r"^(\w*check\w*) = (?:widgets\.)?\w*check\w*\(", re.M)


def exercises(lesson):
    """The check variables of ``lesson``'s check cells, in notebook order."""
    path = next(SOLUTIONS.glob(f"{lesson}_*.ipynb"))
    found = []
    for cell in nbformat.read(path, as_version=4).cells:
        if cell.cell_type == "code" and "### BEGIN SOLUTION" not in cell.source:
            found += [v for v in _CHECK.findall(cell.source) if v not in found]
    return found


def _rows():
    """(lesson, check variable, words) of every row of the tables (None words: a right answer)."""
    tables = (test_hint_table.TABLE, test_sequence_lesson_hints.TABLE, test_late_lesson_hints.TABLE)
    walk = [("18", var, words) for var, _label, _source, words in test_lesson18_walk.ROWS]
    return [(row[0], row[1], row[-1]) for table in tables for row in table] + walk


ALL_EXERCISES = [(lesson, var) for lesson in LESSONS for var in exercises(lesson)]


def test_every_lesson_has_exercises():
    for lesson in LESSONS:
        assert exercises(lesson), f"lesson {lesson}: no check cell found"


@pytest.mark.parametrize("lesson, var", ALL_EXERCISES, ids=[f"{lesson}-{var}" for lesson, var in ALL_EXERCISES])
def test_exercise_has_three_wrong_answers_with_hints(lesson, var):
    words = [w for (l_, v, w) in _rows() if (l_, v) == (lesson, var) and w is not None]
    assert len(words) >= MIN_WRONG_ANSWERS, (
        f"lesson {lesson} {var}: {len(words)} wrong answer(s) with a named hint in the tables, "
        f"need {MIN_WRONG_ANSWERS}")
    assert all(isinstance(w, str) and w.strip() for w in words)


@pytest.mark.parametrize("lesson, var", ALL_EXERCISES, ids=[f"{lesson}-{var}" for lesson, var in ALL_EXERCISES])
def test_the_solution_passes(lesson, var):
    if lesson in ("12", "13"):
        result = test_sequence_lesson_hints.run_solution(lesson, var)
    elif lesson in ("14", "15", "18"):
        result = test_late_lesson_hints.run_row(lesson, var, [])
    else:
        result = test_hint_table.run_row(lesson, var, [])
    assert result.passed, repr(result)
