"""Lesson 02 in a real JupyterLab: Run All draws the graphs and the checks, for both versions.

- the solution notebook: every check passes, the final graph shows the learner's backwards
  (purple "your backward" ops), the score says 6 of 6;
- the learner copy, exercises unfilled: it still runs to the end, every check says "not
  done", the graphs are still drawn (on the reference backwards), the score says 0 of 6.

Screenshots go to tests/browser/screenshots/lesson02_*.png for a human to look at.
"""

import base64
import re
import urllib.parse
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser
LESSONS = Path(__file__).resolve().parents[2] / "lessons"
NAME = "02_graphs_chain_rule.ipynb"
EXERCISES = ("Add", "Sub", "Mul", "Div", "Neg", "Pow")


def output_of(page, cell_text):
    """The output area of the first code cell whose source contains ``cell_text``."""
    cell = page.locator(".jp-CodeCell", has=page.locator(".jp-InputArea", has_text=cell_text)).first
    return cell.locator(".jp-OutputArea")


def svg_text(img):
    """The SVG behind ``<img src="data:image/svg+xml,...">`` (how JupyterLab shows an SVG output)."""
    head, _, data = img.get_attribute("src").partition(",")
    return base64.b64decode(data).decode() if head.endswith(";base64") else urllib.parse.unquote(data)


def assert_no_errors(page):
    errors = page.locator(".jp-RenderedText[data-mime-type='application/vnd.jupyter.error']")
    assert errors.count() == 0, "a cell raised: " + " | ".join(errors.all_inner_texts())


def final_graph_svg(page):
    img = output_of(page, 'widgets.draw_graph(out, names={"a": a, "b": b}, rankdir="TB")')
    img = img.locator(".jp-RenderedSVG img")
    img.wait_for()
    box = img.bounding_box()
    assert box["width"] > 400 and box["height"] > 500, f"the final graph is too small to read: {box}"
    return img, svg_text(img)


def test_lesson02_solution_in_jupyterlab(run_notebook, screenshot):
    page = run_notebook(LESSONS / "solutions" / NAME)
    assert_no_errors(page)
    # the first graph, then one after each exercise, then the final one
    assert page.locator(".jp-RenderedSVG img").count() == 8
    img, svg = final_graph_svg(page)
    ops = re.findall(r"(\w+)Backward", svg)
    for op in EXERCISES:
        assert op in ops, op
    assert svg.count("(your backward)") >= 9  # every op of f but the final sum ran the learner's code
    screenshot(img, "lesson02_final_graph")
    # six exercise checks pass; the demo of a wrong Mul.backward fails with the chain-rule hint
    assert page.locator(".minitorch-check-passed").count() == 6
    failed = page.locator(".minitorch-check-failed")
    assert failed.count() == 1 and "did you multiply by grad_output?" in failed.inner_text()
    screenshot(output_of(page, "check_mul = widgets.check_backward("), "lesson02_check_mul")
    screenshot(failed, "lesson02_failed_demo")
    board = page.locator(".minitorch-scoreboard")
    assert "6 of 6 exercises passed" in board.inner_text()
    screenshot(board, "lesson02_score")


def test_lesson02_learner_copy_runs_to_the_end(run_notebook, screenshot):
    page = run_notebook(LESSONS / NAME)
    assert_no_errors(page)
    not_done = page.locator(".minitorch-check-not-done")
    assert not_done.count() == 6
    assert "reference Add.backward is used from here on" in not_done.first.inner_text()
    screenshot(not_done.first, "lesson02_learner_not_done")
    assert page.locator(".jp-RenderedSVG img").count() == 8
    _, svg = final_graph_svg(page)
    assert "(your backward)" not in svg  # nothing installed: the reference backwards drew it
    assert "0 of 6 exercises passed, 0 failed, 6 not done" in page.locator(".minitorch-scoreboard").inner_text()
