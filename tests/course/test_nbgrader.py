"""nbgrader end to end on the course that ``make course`` builds (tools/make_course.py).

In a temporary course folder: generate the source from lessons/solutions/, release it with
``nbgrader generate_assignment``, hand in three submissions per lesson -- the learner copy
as released (nothing done), every exercise solved, every exercise solved but one wrong --
then ``nbgrader autograde``, ``nbgrader export`` and ``nbgrader generate_feedback``; the
scores must be 0, full marks and full marks minus the wrong exercise's points.

The released notebooks must also be the learner copies in lessons/ (same code and
markdown, cell for cell): nbgrader and ``make lessons`` hand out the same lesson.
"""

import csv
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from classroom import REPO, require, venv_env  # tests/course/classroom.py

# tools/ is a repository script folder, not an installed package.
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tools import make_course  # noqa: E402

# lesson -> (cell id of the exercise answered wrongly, that exercise's name, the wrong answer)
WRONG = {
    "01_tensors": ("l01-09", "storage offset", "return sum(index)  # forgot the strides"),
    "02_graphs_chain_rule": ("l02-22", "Mul.backward",
                             "a, b = ctx.saved_tensors\nreturn grad_output * a, grad_output * b  # swapped"),
    "03_broadcasting_gradients": ("l03-16", "Mul.backward",
                                  "a, b = ctx.saved_tensors\nreturn grad_output * b, grad_output * a  # not reduced"),
}
REGION = re.compile(r"^([ \t]*)### BEGIN SOLUTION.*?### END SOLUTION[^\n]*", re.M | re.S)
SUBMISSIONS = ("unfilled", "solved", "one_wrong")


def _missing_nbgrader():
    try:
        import nbgrader  # noqa: F401
    except ImportError:
        return "nbgrader is not installed (pip install -e '.[course]')"
    if shutil.which("alembic", path=venv_env()["PATH"]) is None:
        return "nbgrader's alembic command is not on PATH"
    return None


def nbgrader(course, *args, timeout=300):
    """Run one nbgrader command in ``course``; its output on failure."""
    proc = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course, env=venv_env(),
                          capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"nbgrader {' '.join(args)} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


def answered(release_nb, solution_nb, wrong=None):
    """The released notebook with every answer cell filled from the solution (one wrongly if asked)."""
    solutions = {cell.id: cell.source for cell in solution_nb.cells}
    nb = nbformat.from_dict(release_nb)
    for cell in nb.cells:
        if not cell.metadata.get("nbgrader", {}).get("solution"):
            continue
        source = solutions[cell.id]
        if wrong and cell.id == wrong[0]:
            source = REGION.sub(lambda m: "\n".join(m[1] + line for line in wrong[2].splitlines()), source)
        cell.source = source
    return nb


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """A graded course: three lessons released, submitted three ways, autograded, with feedback."""
    require(_missing_nbgrader())
    root = tmp_path_factory.mktemp("course")
    for name in ("nbgrader_config.py", "minitorch_grading.py"):  # the config and its plugins
        shutil.copy(REPO / "course" / name, root)
    lessons = make_course.write_source(course=root)  # every lesson: all are compared to lessons/
    nbgrader(root, "generate_assignment", "*", "--force", "--create")
    for lesson in WRONG:
        release_nb = nbformat.read(root / "release" / lesson / f"{lesson}.ipynb", as_version=4)
        solution_nb = nbformat.read(make_course.SOLUTIONS / f"{lesson}.ipynb", as_version=4)
        copies = {"unfilled": release_nb, "solved": answered(release_nb, solution_nb),
                  "one_wrong": answered(release_nb, solution_nb, WRONG[lesson])}
        for student, nb in copies.items():
            folder = root / "submitted" / student / lesson
            folder.mkdir(parents=True)
            nbformat.write(nb, folder / f"{lesson}.ipynb")
    logs = []
    for lesson in WRONG:
        logs.append(nbgrader(root, "autograde", lesson, "--create").stderr)
        nbgrader(root, "generate_feedback", lesson)
    nbgrader(root, "export", "--to", str(root / "grades.csv"))
    with open(root / "grades.csv", newline="") as f:
        grades = {(row["assignment"], row["student_id"]): row for row in csv.DictReader(f)}
    return {"root": root, "lessons": lessons, "grades": grades, "autograde_log": "\n".join(logs)}


def test_course_covers_every_lesson(course):
    assert course["lessons"] == [p.stem for p in sorted(make_course.SOLUTIONS.glob("*.ipynb"))]


@pytest.mark.parametrize("lesson", [p.stem for p in sorted(make_course.SOLUTIONS.glob("*.ipynb"))])
def test_released_notebook_is_the_learner_copy(course, lesson):
    released = nbformat.read(course["root"] / "release" / lesson / f"{lesson}.ipynb", as_version=4)
    learner = nbformat.read(REPO / "lessons" / f"{lesson}.ipynb", as_version=4)
    assert [(c.cell_type, c.source) for c in released.cells] == [(c.cell_type, c.source) for c in learner.cells]
    for cell in released.cells:
        assert "HIDDEN TESTS" not in cell.source and "BEGIN SOLUTION" not in cell.source
        assert cell.get("outputs", []) == []


@pytest.mark.parametrize("lesson", list(WRONG))
def test_each_exercise_is_a_graded_cell(lesson):
    solution = nbformat.read(make_course.SOLUTIONS / f"{lesson}.ipynb", as_version=4)
    source = make_course.source_notebook(make_course.SOLUTIONS / f"{lesson}.ipynb")
    graded = [c for c in source.cells if c.metadata.get("nbgrader", {}).get("grade")]
    assert len(graded) == len(make_course.exercise_names(solution))
    assert all(c.metadata.nbgrader.points == make_course.POINTS for c in graded)
    assert all("### BEGIN HIDDEN TESTS" in c.source for c in graded)


@pytest.mark.parametrize("lesson", list(WRONG))
def test_scores(course, lesson):
    total = make_course.points_per_lesson()[lesson]
    scores = {student: float(course["grades"][(lesson, student)]["raw_score"]) for student in SUBMISSIONS}
    assert float(course["grades"][(lesson, "solved")]["max_score"]) == total
    assert scores == {"unfilled": 0.0, "solved": total, "one_wrong": total - make_course.POINTS}


@pytest.mark.parametrize("lesson", list(WRONG))
def test_feedback_html(course, lesson):
    for student in SUBMISSIONS:
        page = course["root"] / "feedback" / student / lesson / f"{lesson}.html"
        assert page.exists(), f"no feedback for {student}"
        text = page.read_text(encoding="utf-8")
        assert "<html" in text.lower() and "Score" in text
    wrong_name = WRONG[lesson][1]
    # The failed exercise is named in the feedback of the wrong submission, with its check's table.
    text = (course["root"] / "feedback" / "one_wrong" / lesson / f"{lesson}.html").read_text(encoding="utf-8")
    assert f"{wrong_name}: failed" in text and "minitorch-check-failed" in text


def test_autograde_does_not_warn_about_untouched_check_cells(course):
    """The check cells were submitted as released: their hidden tests go back without a warning
    (course/minitorch_grading.py; nbgrader's own OverwriteCells warned for every one)."""
    log = course["autograde_log"]
    assert "Autograding" in log  # the log was captured at all
    assert "has changed" not in log, [line for line in log.splitlines() if "has changed" in line][:3]
