"""Build the nbgrader course ``course/source/`` from ``lessons/solutions/``.

Each lesson becomes one nbgrader assignment of the same name holding one notebook. The
solution notebooks are not touched: this script copies them and adds nbgrader's cell
metadata, so nothing has to be kept in sync by hand.

- A cell with a ``### BEGIN SOLUTION`` region becomes an *autograded answer* cell.
- The cell that runs an exercise's check (``check_backward`` / ``check_function``) becomes
  an *autograder test* cell worth ``POINTS`` points. A hidden-test region is appended to
  it: it asserts that the check the learner saw passed (through ``widgets.lesson_score``,
  so it reads the very result the table showed). nbgrader removes the region from the
  released copy, so the learner sees the lesson's own cell, and puts it back at autograde
  time, where a failed or unfinished exercise raises and scores 0.

Which cell checks which exercise is read from the solution's stored outputs: a check
prints ``<name>: PASSED - ...`` as its plain-text output, and the names are those listed
in the lesson's ``lesson_score([...])`` call.

    python -m tools.make_course            # write course/source/
    python -m tools.make_course --release  # ... and run nbgrader generate_assignment
    python -m tools.make_course --lang zh --release   # the Chinese course, in course/zh/

The Chinese course is built the same way from ``lessons/solutions/zh/`` (``make lessons``
writes them) into its own nbgrader course folder ``course/zh/``, with the English course's
configuration (``nbgrader_config.py``, ``minitorch_grading.py``) copied beside it. Its checks
print Chinese, but the verdict line ``<name>: PASSED - `` stays English, so the same cells
are found and graded.
"""

import argparse
import ast
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS = ROOT / "lessons" / "solutions"
COURSE = ROOT / "course"
COURSE_CONFIG = ("nbgrader_config.py", "minitorch_grading.py")  # what another language's course copies
LANGUAGES = ("en", "zh")
POINTS = 1  # per exercise
SCORE_CALL = re.compile(r"lesson_score\((\[.*?\])\)", re.S)
SCHEMA_VERSION = 3  # nbgrader's cell metadata schema


class CourseError(Exception):
    """A solution notebook that cannot be turned into a graded assignment."""


def exercise_names(nb):
    """The exercise names in the lesson's ``lesson_score([...])`` call, in order."""
    for cell in nb.cells:
        match = SCORE_CALL.search(cell.source) if cell.cell_type == "code" else None
        if match:
            return ast.literal_eval(match.group(1))
    raise CourseError("no lesson_score([...]) call with a literal list of exercise names")


def _plain_text(cell):
    for output in cell.get("outputs", []):
        if output.get("output_type") == "stream":
            yield output.get("text", "")
        else:
            yield output.get("data", {}).get("text/plain", "")


def check_cell_index(nb, name):
    """Index of the first cell whose stored output is the result of the check called ``name``."""
    verdict = re.compile(rf"^{re.escape(name)}: (PASSED|FAILED|NOT DONE) - ", re.M)
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "code" and any(verdict.search(text) for text in _plain_text(cell)):
            return index
    raise CourseError(f"no cell shows the result of the check {name!r} (re-execute the solution notebook)")


def grade_id(text):
    """An nbgrader grade id (letters, digits, _ and -) readable in the gradebook."""
    return re.sub(r"[^A-Za-z0-9_-]+", "_", text).strip("_")


def hidden_test(source, name):
    """``source`` with the graded assertion for exercise ``name`` appended as hidden tests."""
    lines = ["### BEGIN HIDDEN TESTS", "# Graded by nbgrader: the check above must have passed.",
             "import widgets  # the module itself, whatever names the lesson imported from it"]
    last = ast.parse(source).body[-1]
    if isinstance(last, ast.Expr) and isinstance(last.value, ast.Name):
        # Code after the cell's last expression stops it from displaying: show it explicitly.
        lines.append(f"display({last.value.id})")
    lines += [
        f"_status = widgets.lesson_score([{name!r}]).statuses[{name!r}]",
        f"assert _status == 'passed', {name!r} + ': ' + _status",
        "### END HIDDEN TESTS",
    ]
    return source.rstrip("\n") + "\n" + "\n".join(lines)


def nbgrader_metadata(grade_id_, *, solution=False, points=None):
    meta = {"grade_id": grade_id_, "locked": points is not None, "schema_version": SCHEMA_VERSION,
            "solution": solution, "grade": points is not None}
    if points is not None:
        meta["points"] = points
    return meta


def source_notebook(solution_path):
    """The nbgrader source notebook for one solution notebook (a new NotebookNode)."""
    nb = nbformat.read(solution_path, as_version=4)
    names = exercise_names(nb)
    checks = {}
    for name in names:
        index = check_cell_index(nb, name)
        if index in checks:
            raise CourseError(f"cell {index} checks both {checks[index]!r} and {name!r}: one grade per cell")
        checks[index] = name
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        if index in checks:
            name = checks[index]
            cell.source = hidden_test(cell.source, name)
            cell.metadata["nbgrader"] = nbgrader_metadata("check_" + grade_id(name), points=POINTS)
        elif "### BEGIN SOLUTION" in cell.source:
            cell.metadata["nbgrader"] = nbgrader_metadata("answer_" + grade_id(cell.get("id", str(index))),
                                                          solution=True)
    return nb


def points_per_lesson():
    """lesson name -> total points, for every solution notebook."""
    return {p.stem: POINTS * len(exercise_names(nbformat.read(p, as_version=4)))
            for p in sorted(SOLUTIONS.glob("*.ipynb"))}


def write_source(course=COURSE, lessons=None, solutions=SOLUTIONS):
    """Write ``course/source/<lesson>/<lesson>.ipynb`` for each lesson of ``solutions`` (all by default)."""
    source = course / "source"
    paths = sorted(solutions.glob("*.ipynb"))
    if lessons:
        paths = [p for p in paths if p.stem in lessons or p.stem[:2] in lessons]
    for path in paths:
        target = source / path.stem / path.name
        if target.parent.exists():
            shutil.rmtree(target.parent)  # a lesson's folder holds only what this script writes
        target.parent.mkdir(parents=True)
        nbformat.write(source_notebook(path), target)
    return [p.stem for p in paths]


def venv_env():
    """os.environ with this Python's bin/ first on PATH: nbgrader runs ``alembic`` by name."""
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    return env


def generate_assignments(assignments, course=COURSE):
    """Run ``nbgrader generate_assignment`` (into ``course/release``); ``["*"]`` means every one."""
    nbgrader = [sys.executable, "-m", "nbgrader", "generate_assignment", "--force", "--create"]
    for assignment in assignments:  # one nbgrader start per pattern: "*" releases them all at once
        subprocess.run(nbgrader + [assignment], cwd=course, check=True, env=venv_env())


def course_of(lang):
    """(nbgrader course folder, solutions folder) of ``lang``: ``course/`` for English, else ``course/<lang>/``."""
    if lang == "en":
        return COURSE, SOLUTIONS
    course = COURSE / lang
    course.mkdir(parents=True, exist_ok=True)
    for name in COURSE_CONFIG:  # the same grading setup as the English course
        shutil.copy(COURSE / name, course / name)
    return course, SOLUTIONS / lang


def main(argv=None):
    """The command line: write the course's source notebooks (``--release``: and release them)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("lessons", nargs="*", help="lesson names or numbers (default: all)")
    parser.add_argument("--release", action="store_true", help="also run nbgrader generate_assignment")
    parser.add_argument("--lang", choices=LANGUAGES, default="en", help="the course's language (default: en)")
    args = parser.parse_args(argv)
    course, solutions = course_of(args.lang)
    if not any(solutions.glob("*.ipynb")):
        raise CourseError(f"no solution notebooks in {os.path.relpath(solutions, ROOT)}: run `make lessons` first")
    written = write_source(course=course, lessons=args.lessons, solutions=solutions)
    print(f"{os.path.relpath(course / 'source', ROOT)}: {len(written)} assignments written")
    if args.release:
        generate_assignments(written if args.lessons else ["*"], course=course)
    return 0


if __name__ == "__main__":
    sys.exit(main())
