"""Lesson 16 (Trace once, replay fast) in a real JupyterLab: Run All on the learner's copy.

Both exercises are left unfilled, so the lesson must say "not done" for each, fall back to
the reference replay and the reference step, and still show the compiled step's kernel
list, its picture and the lesson-08 loop trained to the same bits eagerly and compiled.
Screenshots go to ``tests/browser/screenshots/``.
"""

from pathlib import Path

import pytest

pytestmark = pytest.mark.browser
LESSON = Path(__file__).resolve().parents[2] / "lessons" / "16_trace_replay.ipynb"


def output_of(page, cell_text):
    """The output area of the first code cell whose source contains ``cell_text``."""
    cell = page.locator(".jp-CodeCell", has=page.locator(".jp-InputArea", has_text=cell_text)).first
    return cell.locator(".jp-OutputArea")


def test_lesson_16_runs_and_falls_back_to_the_references(run_notebook, screenshot):
    page = run_notebook(LESSON, timeout_s=240)
    errors = page.locator(".jp-RenderedText[data-mime-type='application/vnd.jupyter.error']")
    assert errors.count() == 0, "a cell raised: " + " | ".join(errors.all_inner_texts())
    screenshot(page, "lesson16_page")

    assert page.locator(".minitorch-check-not-done").count() == 2  # the replay loop and the replayable step
    assert "the reference replay" in output_of(page, "replay_fn = replay if").inner_text()
    assert "the reference step" in output_of(page, "make_step_fn = make_step if").inner_text()

    # the compiled step: its kernel list as text and as a picture (SVG)
    assert "SoftmaxCrossEntropy.backward" in output_of(page, "print(listing(program))").inner_text()
    picture = output_of(page, "draw_graph(step)")
    picture.locator("svg").first.wait_for()
    screenshot(picture, "lesson16_compiled_program")

    trained = output_of(page, "runs = {").inner_text()
    assert "every parameter equal to the bit after 8 epochs: True" in trained
    board = page.locator(".minitorch-scoreboard")
    assert "0 of 2 exercises passed, 0 failed, 2 not done" in board.inner_text()
