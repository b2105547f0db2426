"""Lesson 17 (Gradients of gradients) in a real JupyterLab: Run All on the learner's copy and on the solution.

The learner's copy leaves the four exercises unfilled, so each check must say "not done", the
lesson must fall back to the reference double backward, hvp, gradient penalty and jvp, and still
draw the graph of a gradient, train the critic and measure the cost. The solution must pass all
four, with the double-backward node drawn as the learner's (purple). Screenshots go to
``tests/browser/screenshots/``.
"""

import shutil
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser
LESSONS = Path(__file__).resolve().parents[2] / "lessons"
NAME = "17_gradients_of_gradients.ipynb"


def output_of(page, cell_text):
    """The output area of the first code cell whose source contains ``cell_text``."""
    cell = page.locator(".jp-CodeCell", has=page.locator(".jp-InputArea", has_text=cell_text)).first
    return cell.locator(".jp-OutputArea")


def no_errors(page):
    errors = page.locator(".jp-RenderedText[data-mime-type='application/vnd.jupyter.error']")
    assert errors.count() == 0, "a cell raised: " + " | ".join(errors.all_inner_texts())


def common_outputs(page, screenshot, prefix):
    """What both copies show the same way: the graph of a gradient, the cut graph's error, the critic."""
    gradient = output_of(page, 'draw_graph(g, names={"x": x})')
    gradient.locator("img, svg").first.wait_for()
    screenshot(gradient.first, f"{prefix}_graph_of_a_gradient")
    assert "grad_fn: <MulBackward>" in output_of(page, "(plain,) = autograd.grad").inner_text()
    assert "DoubleBackwardError: derivative for CubeSavingTheSlopeBackward is not implemented" in output_of(
        page, "class CubeSavingTheSlope").inner_text()
    trained = output_of(page, "def train_critic")
    assert "within 0.2 of 1: True" in trained.inner_text() and "above 10: True" in trained.inner_text()
    plot = output_of(page, "fig, (left, right)")
    plot.locator("img").first.wait_for()
    screenshot(plot, f"{prefix}_critic")
    assert "ratio" in output_of(page, "def peak_bytes").inner_text()


def test_lesson_17_learner_copy_falls_back_to_the_references(run_notebook, screenshot):
    page = run_notebook(LESSONS / NAME, timeout_s=300)
    no_errors(page)
    screenshot(page, "lesson17_page")
    assert page.locator(".minitorch-check-not-done").count() == 4
    assert "the reference double backward" in output_of(page, "TanhGrad runs").inner_text()
    assert "the reference hvp" in output_of(page, "hvp_fn = hvp if").inner_text()
    assert "the reference gradient_penalty" in output_of(page, "penalty_fn = gradient_penalty if").inner_text()
    assert "the reference jvp" in output_of(page, "jvp_fn = jvp if").inner_text()
    common_outputs(page, screenshot, "lesson17_learner")
    board = page.locator(".minitorch-scoreboard")
    assert "0 of 4 exercises passed, 0 failed, 4 not done" in board.inner_text()


def test_lesson_17_solution_passes_every_check(run_notebook, screenshot, tmp_path):
    solution = tmp_path / NAME.replace(".ipynb", "_solution.ipynb")  # not the learner copy's name
    shutil.copy(LESSONS / "solutions" / NAME, solution)
    page = run_notebook(solution, timeout_s=300)
    no_errors(page)
    assert page.locator(".minitorch-check-not-done").count() == 0
    assert "YOUR double backward" in output_of(page, "TanhGrad runs").inner_text()
    yours = output_of(page, "(g,) = autograd.grad(parts.Tanh.apply(x).sum()")
    yours.locator("img, svg").first.wait_for()
    screenshot(yours.first, "lesson17_solution_your_double_backward")
    common_outputs(page, screenshot, "lesson17_solution")
    board = page.locator(".minitorch-scoreboard")
    assert "4 of 4 exercises passed, 0 failed, 0 not done" in board.inner_text()
    screenshot(board, "lesson17_solution_score")
