"""Lesson 08 (Training) in a real JupyterLab: Run All on the learner's copy, as a newcomer would.

The exercise is left unfilled, so the lesson must say "not done", fall back to the
reference training step, and still train the digits MLP to 97% with the live
TrainingMonitor showing its figure. Screenshots go to ``tests/browser/screenshots/``.
"""

from pathlib import Path

import pytest

pytestmark = pytest.mark.browser
LESSON = Path(__file__).resolve().parents[2] / "lessons" / "08_training.ipynb"


def output_of(page, cell_text):
    """The output area of the first code cell whose source contains ``cell_text``."""
    cell = page.locator(".jp-CodeCell", has=page.locator(".jp-InputArea", has_text=cell_text)).first
    return cell.locator(".jp-OutputArea")


def test_lesson_08_runs_with_live_monitor(run_notebook, screenshot):
    page = run_notebook(LESSON, timeout_s=240)
    errors = page.locator(".jp-RenderedText[data-mime-type='application/vnd.jupyter.error']")
    assert errors.count() == 0, "a cell raised: " + " | ".join(errors.all_inner_texts())
    screenshot(page, "lesson08_page")

    # the unfilled exercises say so, and the lesson says which step it trains with
    assert page.locator(".minitorch-check-not-done").count() == 2  # the training step and the accumulated step
    assert "the reference step" in output_of(page, "step = training_step if").inner_text()

    # the training monitor left its figure (a PNG) in the training cell's output
    monitor = output_of(page, "monitor = TrainingMonitor(")
    image = monitor.locator(".jp-RenderedImage img")
    image.wait_for()
    assert image.count() == 1
    box = image.bounding_box()
    assert box["width"] > 600 and box["height"] > 150, box
    screenshot(monitor, "lesson08_training_monitor")
    assert "test accuracy at least 97%: True" in output_of(page, "test_acc = accuracy(").inner_text()

    # the decision boundary figure, and the closing scoreboard
    boundary = output_of(page, "decision_boundary(spiral_model")
    assert boundary.locator(".jp-RenderedImage img").count() == 1
    screenshot(boundary, "lesson08_decision_boundary")
    board = page.locator(".minitorch-scoreboard")
    assert "0 of 2 exercises passed, 0 failed, 2 not done" in board.inner_text()
