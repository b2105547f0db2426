"""The learner notebooks in lessons/ are exactly what tools.make_learner_copies generates.

A teacher edits only the solution notebook; a learner copy that was hand-edited or not
regenerated would silently drift from it (or, worse, still contain a solution).
"""

import re
import sys
from pathlib import Path

import nbformat
import pytest

# tools/ is a repository script folder, not an installed package.
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tools import make_learner_copies as tool  # noqa: E402

SOLUTIONS = sorted(tool.SOLUTIONS.glob("*.ipynb"))
MARKER = re.compile(r"### (BEGIN|END) SOLUTION")


def _ids(paths):
    return [p.name for p in paths]


@pytest.mark.parametrize("solution", SOLUTIONS, ids=_ids(SOLUTIONS))
def test_learner_copy_is_up_to_date(solution):
    copy = tool.LESSONS / solution.name
    assert copy.exists(), f"{copy} missing: run `make lessons`"
    assert copy.read_text(encoding="utf-8") == tool.render(solution), (
        f"{copy.name} differs from what `make lessons` generates from its solution"
    )


@pytest.mark.parametrize("solution", SOLUTIONS, ids=_ids(SOLUTIONS))
def test_markers_balanced_and_exercises_present(solution):
    nb = nbformat.read(solution, as_version=4)
    regions = 0
    for index, cell in enumerate(nb.cells):
        markers = MARKER.findall(cell.source)
        if markers and cell.cell_type != "code":
            pytest.fail(f"{solution.name} cell {index}: solution markers in a {cell.cell_type} cell")
        # BEGIN, END, BEGIN, END ...: never nested, never left open.
        expected = ["BEGIN", "END"] * (len(markers) // 2)
        assert markers == expected, f"{solution.name} cell {index}: unbalanced markers {markers}"
        regions += len(markers) // 2
    assert regions >= 1, f"{solution.name} has no exercise (### BEGIN SOLUTION region)"


@pytest.mark.parametrize("solution", SOLUTIONS, ids=_ids(SOLUTIONS))
def test_learner_copy_has_no_solution_and_no_outputs(solution):
    copy = tool.learner_copy(nbformat.read(solution, as_version=4))
    assert "widgets" not in copy.metadata  # no widget state from the solution's run
    for cell in copy.cells:
        if cell.cell_type == "code":
            assert not MARKER.search(cell.source)
            assert cell.outputs == [] and cell.execution_count is None


def test_strip_keeps_indentation_and_surrounding_code():
    source = (
        "def f(x):\n"
        "    y = 1\n"
        "    ### BEGIN SOLUTION\n"
        "    return x + y\n"
        "    ### END SOLUTION\n"
        "\n"
        "print(f(1))"
    )
    assert tool.strip_solutions(source) == (
        "def f(x):\n"
        "    y = 1\n"
        "    # YOUR CODE HERE\n"
        "    raise NotImplementedError()\n"
        "\n"
        "print(f(1))"
    )


def test_strip_handles_several_regions_and_region_at_end():
    source = "a = 1\n### BEGIN SOLUTION\nb = 2\n### END SOLUTION\n  ### BEGIN SOLUTION\n  c = 3\n  ### END SOLUTION"
    assert tool.strip_solutions(source) == (
        "a = 1\n# YOUR CODE HERE\nraise NotImplementedError()\n"
        "  # YOUR CODE HERE\n  raise NotImplementedError()"
    )


def test_check_mode_reports_stale_copy(tmp_path, monkeypatch, capsys):
    solutions = tmp_path / "solutions"
    solutions.mkdir()
    nb = nbformat.v4.new_notebook()
    nb.cells.append(nbformat.v4.new_code_cell("x = 1\n### BEGIN SOLUTION\nx = 2\n### END SOLUTION"))
    nbformat.write(nb, solutions / "99_demo.ipynb")
    monkeypatch.setattr(tool, "LESSONS", tmp_path)
    monkeypatch.setattr(tool, "SOLUTIONS", solutions)
    # only the English copies here; the translated ones: tests/project/test_translations.py
    monkeypatch.setattr(tool.translated_notebooks, "LANGUAGES", ())
    assert tool.main(["--check"]) == 1
    assert "99_demo.ipynb" in capsys.readouterr().out
    assert tool.main([]) == 0
    assert tool.main(["--check"]) == 0
    written = Path(tmp_path / "99_demo.ipynb").read_text()
    assert "NotImplementedError" in written and "x = 2" not in written
