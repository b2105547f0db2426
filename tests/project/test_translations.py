"""The Chinese course is never stale: every lesson translated, and the Chinese notebooks what `make lessons` makes.

A lesson's English solution is its only source. This fails when an English markdown cell
changed and its translation did not (stale or fuzzy), when a cell has no translation, when
a translation altered the English's code or math, when a generated Chinese notebook
(``lessons/solutions/zh``, ``lessons/zh``) differs from what the generator makes, or when a
Chinese solution's stored outputs are not from its present code.
"""

import sys
from pathlib import Path

import nbformat
import polib
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # tools/ is a repository script folder, not an installed package
from tools import make_learner_copies, translated_notebooks, translations  # noqa: E402

LESSONS = translations.solution_notebooks()
LESSON_COUNT = 19  # 00_welcome .. 18_model_parallel: every one is translated


def _ids(paths):
    return [p.stem for p in paths]


def test_every_lesson_is_here():
    assert len(LESSONS) == LESSON_COUNT, [p.name for p in LESSONS]


@pytest.mark.parametrize("english", LESSONS, ids=_ids(LESSONS))
def test_every_markdown_cell_has_a_current_translation(english):
    trouble = translations.problems("zh", english)
    assert not trouble, (f"{len(trouble)} cells of {english.name} need translating "
                         "(python -m tools.translations status zh):\n" + "\n".join(map(str, trouble[:10])))


@pytest.mark.parametrize("english", LESSONS, ids=_ids(LESSONS))
def test_the_chinese_notebooks_are_what_make_lessons_makes(english):
    try:
        generated = make_learner_copies.translated("zh", english)
    except ValueError as exc:  # an incomplete translation: nothing to compare with
        pytest.fail(f"the Chinese {english.stem} cannot be generated: {exc}")
    for path, text in generated:
        assert path.exists(), f"{path.relative_to(ROOT)} missing: run `make lessons`"
        assert path.read_text(encoding="utf-8") == text, (
            f"{path.relative_to(ROOT)} differs from what `make lessons` generates from {english.name} and its "
            "translation")


@pytest.mark.parametrize("english", LESSONS, ids=_ids(LESSONS))
def test_the_chinese_solution_outputs_come_from_its_code(english):
    path = translated_notebooks.solution_path("zh", english)
    nb = nbformat.read(path, as_version=4)
    assert not translated_notebooks.outputs_stale(nb), (
        f"{path.relative_to(ROOT)}: its code changed since its outputs were stored: "
        f"python -m tools.refresh_outputs {path.relative_to(ROOT)}")
    first = next(cell for cell in nb.cells if cell.cell_type == "code" and "set_language" in cell.source)
    assert 'widgets.set_language("zh")' in first.source


# ---------------------------------------------------------------------- the machinery, on a small lesson
def _lesson(tmp_path, monkeypatch, markdown="Broadcasting adds `a + b` as $a_i + b_i$.", code="x = 1"):
    """A one-lesson course in ``tmp_path``: its solution (markdown, imports, code) and its Chinese PO file."""
    solutions = tmp_path / "solutions"
    solutions.mkdir(exist_ok=True)
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell(markdown), nbformat.v4.new_code_cell("import widgets\n\nprint(1)"),
                nbformat.v4.new_code_cell(code)]
    for i, cell in enumerate(nb.cells):
        cell.id = f"cell{i}"
    path = solutions / "99_demo.ipynb"
    nbformat.write(nb, path)
    monkeypatch.setattr(translations, "I18N", tmp_path / "i18n")
    return path


def _translate(path, text):
    po = translations.sync("zh", path)
    po[0].msgstr = text
    po[0].flags = []
    translations.write_po("zh", path, po)


def test_a_changed_english_cell_makes_its_translation_stale(tmp_path, monkeypatch):
    path = _lesson(tmp_path, monkeypatch)
    assert [p.why for p in translations.problems("zh", path)] == ["missing"]
    _translate(path, "广播把 `a + b` 算作 $a_i + b_i$。")
    assert translations.problems("zh", path) == []
    nb = nbformat.read(path, as_version=4)
    nb.cells[0].source += " Then it sums."
    nbformat.write(nb, path)
    assert [p.why.split(":")[0] for p in translations.problems("zh", path)] == ["stale"]
    translations.write_po("zh", path, translations.sync("zh", path))  # `update`: kept, but marked fuzzy
    assert [p.why.split(":")[0] for p in translations.problems("zh", path)] == ["fuzzy"]
    assert "fuzzy" in polib.pofile(str(translations.po_path("zh", path)))[0].flags


def test_a_translation_must_keep_the_code_and_math(tmp_path, monkeypatch):
    path = _lesson(tmp_path, monkeypatch)
    _translate(path, "广播把 `a - b` 算作 $a_i + b_i$。")
    (problem,) = translations.problems("zh", path)
    assert problem.why.startswith("code/math changed") and "`a + b`" in problem.why


def test_an_incomplete_translation_is_not_generated(tmp_path, monkeypatch):
    path = _lesson(tmp_path, monkeypatch)
    with pytest.raises(ValueError, match="99_demo.ipynb have no current zh translation"):
        translated_notebooks.render("zh", path)


def test_generated_solution_speaks_chinese_and_keeps_outputs_of_unchanged_code(tmp_path, monkeypatch):
    path = _lesson(tmp_path, monkeypatch)
    _translate(path, "广播把 `a + b` 算作 $a_i + b_i$。")
    english = nbformat.read(path, as_version=4)
    first = translated_notebooks.translated_solution(english, "zh", translations.translated_cells("zh", path))
    assert first.cells[0].source == "广播把 `a + b` 算作 $a_i + b_i$。"
    assert first.cells[1].source.splitlines()[:3] == [
        "import widgets", 'widgets.set_language("zh")  # 提示、检查结果和图表都用中文', ""]
    assert translated_notebooks.outputs_stale(first)  # never run yet
    # as refresh_outputs leaves it: outputs of its own run, and the code they came from
    for cell in first.cells[1:]:
        cell.outputs = [nbformat.v4.new_output("stream", text="1\n")]
    first.metadata[translated_notebooks.OUTPUTS_KEY] = {"code": translated_notebooks.code_hash(first)}
    _translate(path, "广播把 `a + b` 逐元素算作 $a_i + b_i$。")  # a markdown change: no rerun needed
    again = translated_notebooks.translated_solution(english, "zh", translations.translated_cells("zh", path), first)
    assert not translated_notebooks.outputs_stale(again)
    assert [c.outputs for c in again.cells[1:]] == [c.outputs for c in first.cells[1:]]
    english.cells[2].source = "x = 2"  # a code change: that cell's outputs go, and the notebook needs a rerun
    changed = translated_notebooks.translated_solution(english, "zh", translations.translated_cells("zh", path),
                                                       again)
    assert changed.cells[1].outputs == again.cells[1].outputs and changed.cells[2].outputs == []
    assert translated_notebooks.outputs_stale(changed)


def test_set_language_goes_after_the_imports_of_the_cell_that_imports_widgets():
    source = "import numpy as np\nfrom widgets import (\n    check_function,\n)\nx = np.ones(3)"
    assert translated_notebooks.with_language(source, "zh").splitlines() == [
        "import numpy as np", "from widgets import (", "    check_function,", ")", "import widgets",
        'widgets.set_language("zh")  # 提示、检查结果和图表都用中文', "", "x = np.ones(3)"]
    assert translated_notebooks.with_language("import widgets", "zh").splitlines() == [
        "import widgets", 'widgets.set_language("zh")  # 提示、检查结果和图表都用中文']


def test_refresh_outputs_fills_a_translated_solution_and_records_its_code(tmp_path):
    from tools import refresh_outputs

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("print('你好')"),
                nbformat.v4.new_code_cell("# NBVAL_IGNORE_OUTPUT\nprint(2)")]
    nb.metadata[translated_notebooks.OUTPUTS_KEY] = {"code": ""}  # as make lessons writes a new one
    path = tmp_path / "99_demo.ipynb"
    nbformat.write(nb, path)
    assert refresh_outputs.refresh(path) == 2  # the ignored cell too: a translation has no outputs to keep
    done = nbformat.read(path, as_version=4)
    assert [c.outputs[0]["text"] for c in done.cells] == ["你好\n", "2\n"]
    assert not translated_notebooks.outputs_stale(done)
