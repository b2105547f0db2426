"""The browser's drawing path (no Graphviz ``dot``): what the kernel sends, and the layout the browser picks.

``widgets/draw/browser_view.py`` sends the candidate pictures to ``browser/graph_view.js``, which
measures them with Graphviz compiled to WebAssembly (viz.js) and picks one by the rules of
``widgets/draw/layout.py``. The kernel side is tested here in Python; the choice itself is run in
Node with the package's own viz.js and graph_view.js (``choose_layout.mjs``) and compared with
the choice the ``dot`` program makes on the same graphs. The real browser test is
``tests/browser/test_text_size.py::test_graphs_drawn_in_the_browser_are_readable``.
"""

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import minitorch
from widgets import BackwardStepper, draw_graph
from widgets.draw import browser_view, layout, recorder

HERE = Path(__file__).resolve().parent
NODE = shutil.which("node")


@pytest.fixture(autouse=True)
def _recorder():
    recorder.install()


@pytest.fixture
def no_dot(monkeypatch):
    """Draw as on a machine without Graphviz's dot program."""
    monkeypatch.setattr(browser_view, "dot_program", lambda: None)


@pytest.fixture
def views(monkeypatch):
    """The GraphView widgets made during the test, in order."""
    made = []
    original = browser_view.graph_view

    def recording(*args, **kwargs):
        made.append(original(*args, **kwargs))
        return made[-1]

    monkeypatch.setattr(browser_view, "graph_view", recording)
    return made


def chain(length):
    x = minitorch.randn(2, 3, requires_grad=True)
    y = x
    for i in range(length):
        y = (y * 1.5).tanh() if i % 2 else y + 1.0
    return y.sum(), x


def wide():
    x = minitorch.randn(2, 3, requires_grad=True)
    return sum(((x * float(i)).exp().sum() for i in range(12)), minitorch.tensor(0.0))


def test_without_dot_draw_graph_sends_every_candidate_layout(no_dot):
    loss, x = chain(3)
    loss.backward()
    picture = draw_graph(loss, names={"x": x})
    plan = picture.browser_plan
    assert plan["fit"] == {
        "width_in": layout.NOTEBOOK_WIDTH_IN,
        "min_scale": layout.MIN_SCALE,
        "show_all": False,
        "fixed": False,
    }
    boxes = [level["boxes"] for level in plan["levels"]]
    assert boxes == layout.summary_sizes(picture.node_count())
    for level in plan["levels"]:
        assert [p["rankdir"] for p in level["pictures"]] == ["LR", "TB"]
        for p in level["pictures"]:
            assert f"rankdir={p['rankdir']}" in p["dot"] and not re.search(r"(?<![\w-])size=", p["dot"])
    assert plan["levels"][0]["pictures"][0]["dot"] == picture.source  # the picture returned is the first one
    assert "|grad|" in picture.source  # the same labels as on the dot path


def test_without_dot_a_notebook_gets_the_widget_and_the_same_text(no_dot, views):
    loss, _ = chain(2)
    picture = draw_graph(loss)
    data, _metadata = picture._repr_mimebundle_()
    assert (
        data["text/plain"] == repr(picture) == f"<computation graph: {picture.node_count()} nodes, "
        f"{picture.source.count(' -> ')} edges>"
    )
    (widget,) = views
    assert data["application/vnd.jupyter.widget-view+json"]["model_id"] == widget.model_id
    assert widget.levels == picture.browser_plan["levels"] and widget.fit["fixed"] is False
    assert widget.library is browser_view.library()  # viz.js goes to the browser once per kernel
    assert widget.library.code.startswith("/*!\nViz.js " + browser_view.VIZ_PIN["version"])
    assert "image/svg+xml" not in data


def test_an_explicit_size_or_a_changed_picture_is_drawn_as_it_is(no_dot, views):
    loss, _ = chain(12)
    picture = draw_graph(loss, rankdir="LR", size="10,30")
    assert picture.browser_plan is None
    picture._repr_mimebundle_()
    widget = views[-1]
    assert widget.fit == {"fixed": True} and widget.levels[0]["pictures"][0]["dot"] == picture.source
    fitted = draw_graph(loss)
    fitted.attr(bgcolor="white")  # changed after draw_graph chose: its candidates no longer apply
    fitted._repr_mimebundle_()
    widget = views[-1]
    assert widget.fit == {"fixed": True} and "bgcolor=white" in widget.levels[0]["pictures"][0]["dot"]


def test_with_dot_nothing_changes():
    if browser_view.dot_program() is None:
        pytest.skip("Graphviz's dot is not installed here")
    loss, _ = chain(2)
    picture = draw_graph(loss)
    assert picture.browser_plan is None
    data = picture._repr_mimebundle_()
    assert set(data) == {"image/svg+xml"} and data["image/svg+xml"].lstrip().startswith("<?xml")


def test_minitorch_draw_browser_takes_the_browser_path_with_dot_installed(monkeypatch):
    monkeypatch.setenv(browser_view.FORCE_ENV, "browser")
    loss, _ = chain(2)
    assert draw_graph(loss).browser_plan is not None


def test_the_stepper_sends_each_step_in_every_candidate_direction(no_dot):
    loss, _ = chain(4)
    stepper = BackwardStepper(loss)
    panel = stepper.graph_panel
    assert panel.fit["show_all"] is True and len(panel.levels) == 1  # every node stays, as on the dot path
    assert sorted(panel.frame) == ["LR", "TB"] and panel.step == 0
    stepper.next_button.click()
    assert panel.step == 1 and panel.frame["TB"] == stepper.show(1, "TB").source
    assert "rankdir=TB" in panel.frame["TB"] and "rankdir=LR" in panel.frame["LR"]
    fixed = BackwardStepper(chain(4)[0], rankdir="TB")
    assert list(fixed.graph_panel.frame) == ["TB"]


def test_without_dot_and_without_viz_js_the_error_says_what_to_do(no_dot, monkeypatch, tmp_path):
    monkeypatch.setattr(browser_view, "VIZ_FILE", tmp_path / "viz.js")
    loss, _ = chain(2)
    with pytest.raises(browser_view.BrowserRendererMissing, match="not installed.*doctor.*wheel.*tools.fetch_viz"):
        draw_graph(loss)
    with pytest.raises(browser_view.BrowserRendererMissing):
        BackwardStepper(loss)


# ------------------------------------------------------------------ the choice, in Node with viz.js
def choose_in_node(plans, tmp_path):
    """The browser path's choice for each plan, computed by graph_view.js's ``choose`` in Node."""
    if NODE is None:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail("CI=true, so this test must run, but node is not installed")
        pytest.skip("node is not installed")
    if not browser_view.VIZ_FILE.is_file():
        pytest.fail(f"{browser_view.VIZ_FILE} is missing: run python -m tools.fetch_viz (make setup does)")
    viz = tmp_path / "viz.mjs"
    view = tmp_path / "graph_view.mjs"
    shutil.copy(browser_view.VIZ_FILE, viz)
    shutil.copy(browser_view.BROWSER_DIR / "graph_view.js", view)
    done = subprocess.run(
        [NODE, str(HERE / "choose_layout.mjs"), str(viz), str(view)],
        input=json.dumps(plans),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["results"]


CASES = {  # name: (loss, draw_graph keywords, the choice both paths must make)
    "short chain": (lambda: chain(1)[0], {}, ("LR", "full size")),
    "long chain": (lambda: chain(12)[0], {}, ("TB", "full size")),
    "wide graph": (wide, {"max_nodes": 200}, (None, "summarised")),
    "wide graph, show_all": (wide, {"max_nodes": 200, "show_all": True}, (None, "shrunk below min_scale")),
}


def test_the_browser_picks_the_layout_the_dot_program_picks(monkeypatch, tmp_path):
    names = list(CASES)
    losses = {name: CASES[name][0]() for name in names}
    with monkeypatch.context() as m:
        m.setattr(browser_view, "dot_program", lambda: None)
        plans = [draw_graph(losses[name], **CASES[name][1]).browser_plan for name in names]
    chosen = choose_in_node(plans, tmp_path)
    for name, plan, browser in zip(names, plans, chosen):
        direction, how = CASES[name][2]
        everything = plan["levels"][0]["boxes"]
        if direction:
            assert browser["rankdir"] == direction, name
        if how == "full size":
            assert browser["size"] is None and browser["scale"] == 1 and browser["boxes"] == everything, name
            assert browser["width_in"] <= layout.NOTEBOOK_WIDTH_IN, name
        elif how == "summarised":
            assert browser["boxes"] < everything and browser["scale"] >= layout.MIN_SCALE, name
        else:
            assert browser["boxes"] == everything and browser["scale"] < layout.MIN_SCALE, name
            assert browser["width_in"] <= layout.NOTEBOOK_WIDTH_IN + 0.01, name
        if browser_view.dot_program() is not None:  # the dot program's choice on the same graph
            fitted = layout.fit_to_notebook(
                lambda d, n, name=name: _make(losses[name], d, n, CASES[name][1]),
                everything,
                "auto",
                CASES[name][1].get("show_all", False),
            )
            assert (fitted.rankdir, fitted.size is None) == (browser["rankdir"], browser["size"] is None), name
            if how != "summarised":  # the summary size depends on each Graphviz's measures; both must summarise
                assert fitted.max_nodes == browser["boxes"], name
            else:
                assert fitted.max_nodes < everything, name


def _make(loss, direction, boxes, kwargs):
    """draw_graph's picture of ``loss`` in ``direction`` with ``boxes`` boxes, at full size (as layout's make)."""
    return draw_graph(
        loss,
        rankdir=direction,
        size=None,
        max_nodes=boxes,
        **{k: v for k, v in kwargs.items() if k not in ("max_nodes", "show_all")},
    )
