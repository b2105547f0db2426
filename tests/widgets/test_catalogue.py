"""The widgets' message catalogue: every message the code shows has a Chinese entry, with the same fields.

The code's messages are found by reading the source (``tools.widget_catalogue``: every
``_("...")`` call), so a new hint without a translation fails here, not in a learner's notebook.
"""

import numpy as np
import polib
import pytest

import widgets
from minitorch.functions import Mul, unbroadcast
from tools import widget_catalogue
from widgets import check_backward, i18n
from widgets.check import scoreboard


@pytest.fixture(autouse=True)
def _english_after(monkeypatch):
    """Each test starts with no language chosen and MINITORCH_LANG unset, and leaves it so."""
    monkeypatch.delenv("MINITORCH_LANG", raising=False)
    monkeypatch.setattr(i18n, "_chosen", None)
    scoreboard.reset()
    yield
    widgets.style.use_language_fonts("en")  # matplotlib's fonts as English has them


def test_every_call_passes_a_string_literal_and_its_fields():
    messages = widget_catalogue.messages()  # raises NotALiteral naming the file and line otherwise
    assert len(messages) > 200, "the checks, the graph, the monitor and the stepper all speak through _()"
    wrong = [m for m in messages
             if m.keywords is not None and m.keywords != {name for name, _c, _s in widget_catalogue.fields(m.msgid)}]
    assert not wrong, "\n".join(f"{m.where}: {m.msgid!r} given {sorted(m.keywords)}" for m in wrong)


def test_a_call_that_is_not_a_literal_is_named(tmp_path):
    source = tmp_path / "hint.py"
    source.write_text('from widgets.i18n import _\nname = "x"\nhint = _(f"got {name}")\n')
    with pytest.raises(widget_catalogue.NotALiteral, match=r"hint.py:3: .*string literal"):
        _calls_outside_root(source)


def _calls_outside_root(path):
    """``_calls`` on a file outside the repository (its location is only used to name it)."""
    original = widget_catalogue.ROOT
    widget_catalogue.ROOT = path.parent
    try:
        return widget_catalogue._calls(path)
    finally:
        widget_catalogue.ROOT = original


def test_every_message_has_a_chinese_entry_with_the_same_fields_and_none_is_unused():
    assert widget_catalogue.problems("zh") == []


def test_the_catalogue_file_is_what_update_writes(tmp_path, monkeypatch):
    """Each entry lists where it is used: the PO file is in step with the code (run `update zh` if not)."""
    committed = polib.pofile(str(widget_catalogue.catalogue_path("zh")), wrapwidth=0)
    monkeypatch.setattr(widget_catalogue, "LOCALE", tmp_path)
    (tmp_path / "zh.po").write_text(committed.__unicode__(), encoding="utf-8")
    fresh = widget_catalogue.update("zh")
    assert [(e.msgid, e.occurrences) for e in fresh] == [(e.msgid, e.occurrences) for e in committed]


def test_fields_differ_is_reported(tmp_path, monkeypatch):
    po = polib.pofile(str(widget_catalogue.catalogue_path("zh")), wrapwidth=0)
    entry = po.find("input {k}")
    entry.msgstr = "输入 {j}"
    monkeypatch.setattr(widget_catalogue, "LOCALE", tmp_path)
    po.save(str(tmp_path / "zh.po"))
    found = widget_catalogue.problems("zh")
    assert any(line.startswith("fields differ: 'input {k}'") for line in found), found


def _mul_backward_twice(ctx, grad):
    a, b = ctx.saved_tensors
    return 2 * unbroadcast(grad * b, np.shape(a)), 2 * unbroadcast(grad * a, np.shape(b))


def test_set_language_switches_a_check_to_chinese_and_back():
    english = check_backward(Mul, _mul_backward_twice, shapes=[((3,), (3,))])
    widgets.set_language("zh")
    chinese = check_backward(Mul, _mul_backward_twice, shapes=[((3,), (3,))])
    assert i18n.get_language() == "zh"
    assert "两倍于正确值" in chinese.rows[0].hint and "checks failed" in english.message
    assert "项检查中有" in chinese.message
    page = chinese._repr_html_()
    assert "未通过" in page and "提示" in page and "与有限差分的误差" in page
    # the line progress() reads back from saved notebooks keeps its English status word
    assert repr(chinese).startswith("Mul.backward: FAILED - ")
    widgets.set_language("en")
    assert check_backward(Mul, _mul_backward_twice, shapes=[((3,), (3,))]).message == english.message


def test_minitorch_lang_chooses_the_language_until_set_language(monkeypatch):
    monkeypatch.setenv("MINITORCH_LANG", "zh_CN.UTF-8")
    assert i18n.get_language() == "zh"
    assert i18n._("the sign is flipped") == "符号反了"
    widgets.set_language("en")
    assert i18n._("the sign is flipped") == "the sign is flipped"


def test_an_unknown_minitorch_lang_warns_once_and_keeps_english(monkeypatch):
    monkeypatch.setenv("MINITORCH_LANG", "klingon")
    with pytest.warns(UserWarning, match="MINITORCH_LANG: unknown language 'klingon'"):
        assert i18n._("the sign is flipped") == "the sign is flipped"


def test_a_message_missing_from_the_catalogue_shows_in_english():
    widgets.set_language("zh")
    assert i18n._("a message no catalogue has {n}", n=3) == "a message no catalogue has 3"


def test_unknown_language_is_refused_with_the_choices():
    with pytest.raises(ValueError, match=r"set_language: unknown language 'fr'; choose one of en, zh"):
        widgets.set_language("fr")


def test_chinese_figures_fall_back_to_a_cjk_font():
    import matplotlib

    widgets.set_language("zh")
    assert matplotlib.rcParams["font.family"] == ["sans-serif", widgets.style.CJK_FONT]
    assert widgets.style.graph_font(widgets.get_language()) == widgets.style.CJK_FONT
    widgets.set_language("en")
    assert matplotlib.rcParams["font.family"] == ["sans-serif"]
    assert widgets.style.graph_font(widgets.get_language()) == "Helvetica"



def test_the_solution_notebooks_calls_and_check_names_are_in_the_catalogue():
    found = {m.msgid: m.where for m in widget_catalogue.notebook_messages()}
    assert found["topological sort"].startswith("lessons/solutions/04_engine.ipynb:cell ")  # check_function's name
    assert "Linear.forward" in found and "Mul.backward" in found  # lesson_score's list
    assert "a leaf used along two paths" in found  # a _() call in a notebook cell
    assert not any("/zh/" in where for where in found.values()), "the Chinese copies run the same code"


def test_a_check_name_shows_translated_but_the_verdict_line_keeps_the_english_name():
    widgets.set_language("zh")
    result = widgets.check_function("topological sort", abs, abs, [(-1.0,)])
    board = widgets.lesson_score(["topological sort", "backward pass"])
    assert "拓扑排序" in result._repr_html_() and "topological sort" not in result._repr_html_()
    assert repr(result).startswith("topological sort: PASSED - ")  # progress() and make course read it back
    assert "拓扑排序" in board._repr_html_() and "反向传播" in repr(board)
    assert board.statuses == {"topological sort": "passed", "backward pass": "not done"}  # keyed in English
    widgets.set_language("en")
    assert "topological sort" in result._repr_html_()
