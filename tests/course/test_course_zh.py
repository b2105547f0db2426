"""``make course LANG=zh``: the Chinese nbgrader course, built the same way as the English one.

Every Chinese solution (lessons/solutions/zh) must give a graded cell per exercise: its checks
print Chinese, but their verdict line keeps the English ``<name>: PASSED - `` that
tools/make_course.py finds them by. One lesson is then released, answered and autograded in
``course/zh``'s layout (a temporary copy): full marks solved, none unfilled.
"""

import shutil
import sys
from pathlib import Path

import nbformat
import pytest
from classroom import require
from test_nbgrader import _missing_nbgrader, answered, nbgrader

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # tools/ is a script folder, not a package
from tools import make_course  # noqa: E402

ZH = make_course.SOLUTIONS / "zh"
ZH_LESSONS = sorted(ZH.glob("*.ipynb"))
LESSON = "03_broadcasting_gradients"


@pytest.mark.parametrize("solution", ZH_LESSONS, ids=[p.stem for p in ZH_LESSONS])
def test_each_chinese_exercise_is_a_graded_cell(solution):
    english = nbformat.read(make_course.SOLUTIONS / solution.name, as_version=4)
    source = make_course.source_notebook(solution)
    graded = [c for c in source.cells if c.metadata.get("nbgrader", {}).get("grade")]
    assert len(graded) == len(make_course.exercise_names(english))
    assert any("widgets.set_language(\"zh\")" in c.source for c in source.cells if c.cell_type == "code")


def test_the_chinese_course_has_its_own_folder_and_the_english_configuration(tmp_path, monkeypatch):
    for name in make_course.COURSE_CONFIG:
        shutil.copy(make_course.COURSE / name, tmp_path / name)
    monkeypatch.setattr(make_course, "COURSE", tmp_path)
    assert make_course.main(["--lang", "zh", LESSON]) == 0
    written = tmp_path / "zh" / "source" / LESSON / f"{LESSON}.ipynb"
    assert written.exists() and not (tmp_path / "source").exists()  # the English course is untouched
    assert all((tmp_path / "zh" / name).read_text() == (tmp_path / name).read_text()
               for name in make_course.COURSE_CONFIG)


def test_a_chinese_lesson_is_released_and_graded(tmp_path):
    require(_missing_nbgrader())
    for name in make_course.COURSE_CONFIG:
        shutil.copy(make_course.COURSE / name, tmp_path / name)
    make_course.write_source(course=tmp_path, lessons=[LESSON], solutions=ZH)
    nbgrader(tmp_path, "generate_assignment", LESSON, "--force", "--create")
    release_nb = nbformat.read(tmp_path / "release" / LESSON / f"{LESSON}.ipynb", as_version=4)
    learner = nbformat.read(make_course.ROOT / "lessons" / "zh" / f"{LESSON}.ipynb", as_version=4)
    assert [c.source for c in release_nb.cells] == [c.source for c in learner.cells]  # the Chinese learner copy
    solution_nb = nbformat.read(ZH / f"{LESSON}.ipynb", as_version=4)
    for student, nb in {"unfilled": release_nb, "solved": answered(release_nb, solution_nb)}.items():
        folder = tmp_path / "submitted" / student / LESSON
        folder.mkdir(parents=True)
        nbformat.write(nb, folder / f"{LESSON}.ipynb")
    nbgrader(tmp_path, "autograde", LESSON, "--create")
    nbgrader(tmp_path, "generate_feedback", LESSON)
    feedback = (tmp_path / "feedback" / "solved" / LESSON / f"{LESSON}.html").read_text(encoding="utf-8")
    assert "通过" in feedback  # the graded notebook ran in Chinese
    nbgrader(tmp_path, "export", "--to", str(tmp_path / "grades.csv"))
    rows = (tmp_path / "grades.csv").read_text(encoding="utf-8").splitlines()
    total = make_course.points_per_lesson()[LESSON]
    header = rows[0].split(",")
    scores = {r.split(",")[header.index("student_id")]: float(r.split(",")[header.index("raw_score")])
              for r in rows[1:]}
    assert scores == {"unfilled": 0.0, "solved": float(total)}
