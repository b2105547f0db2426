"""The widgets in a real JupyterLab, in headless Chromium: what a learner actually sees.

Runs ``widgets_demo.ipynb`` with Run All and checks the rendered page: the graph's SVG
has the expected nodes, the stepper's Next button and slider move the highlight, the
monitor's figure is there, the checker's tables say pass and fail. Screenshots of each
go to ``tests/browser/screenshots/`` (git-ignored) for a human to look at.
"""

import base64
import re
import urllib.parse
from pathlib import Path

import pytest

from widgets import style

pytestmark = pytest.mark.browser
DEMO = Path(__file__).resolve().parent / "widgets_demo.ipynb"


def output_of(page, cell_text):
    """The output area of the first code cell whose source contains ``cell_text``."""
    cell = page.locator(".jp-CodeCell", has=page.locator(".jp-InputArea", has_text=cell_text)).first
    return cell.locator(".jp-OutputArea")


def svg_of_image(img):
    """The SVG text behind ``<img src="data:image/svg+xml,...">`` (how JupyterLab shows SVG)."""
    src = img.get_attribute("src")
    head, _, data = src.partition(",")
    return base64.b64decode(data).decode() if head.endswith(";base64") else urllib.parse.unquote(data)


def node_titles(svg):
    """Graphviz writes each node as <g class="node"><title>ID</title>..."""
    return re.findall(r'<g id="node\d+" class="node">\s*<title>([^<]+)</title>', svg)


def highlighted_node(svg):
    """The id of the node drawn with the stepper's 'current' fill."""
    for match in re.finditer(r'<g id="node\d+" class="node">\s*<title>([^<]+)</title>(.*?)</g>', svg, re.S):
        if f'fill="{style.CURRENT_FILL}"' in match.group(2):
            return match.group(1)
    return None


def test_widgets_demo_in_jupyterlab(run_notebook, screenshot):
    page = run_notebook(DEMO)
    errors = page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
    assert page.locator(".jp-RenderedText[data-mime-type='application/vnd.jupyter.error']").count() == 0, (
        "a cell raised: " + " | ".join(errors.all_inner_texts()))
    screenshot(page, "00_page")

    # 1. draw_graph: an SVG with the MLP's ops, parameters and the loss
    graph = output_of(page, "draw_graph(loss, params=model)")
    img = graph.locator(".jp-RenderedSVG img")
    img.wait_for()
    svg = svg_of_image(img)
    titles = node_titles(svg)
    # 4 ops (Linear, ReLU, Linear, SoftmaxCrossEntropy), their 4 results (the last is the loss),
    # 4 parameters and 2 inputs without grad (the data x and the targets y)
    assert len(titles) == 14, titles
    for text in ("LinearBackward", "ReLUBackward", "SoftmaxCrossEntropyBackward", "0.weight", "2.bias", "loss",
                 "|grad|", "0 (Linear)"):
        assert text in svg, text
    assert img.bounding_box()["width"] > 600  # big enough to read
    screenshot(graph, "01_draw_graph")

    # 2. the stepper: Next and the slider move the highlight through the engine's order
    stepper = page.locator(".minitorch-stepper")
    stepper.wait_for()
    step_graph = stepper.locator(".minitorch-stepper-graph")
    assert step_graph.get_attribute("data-step") == "0"
    assert highlighted_node(step_graph.inner_html()) is None
    screenshot(stepper, "02_stepper_step0")
    stepper.locator("button", has_text="Next").click()
    page.wait_for_selector(".minitorch-stepper-graph[data-step='1']")
    first = highlighted_node(step_graph.inner_html())
    assert first is not None and "Step 1 of" in stepper.inner_text()
    handle = stepper.locator(".noUi-handle").first
    handle.focus()
    handle.press("ArrowRight")
    page.wait_for_selector(".minitorch-stepper-graph[data-step='2']")
    second = highlighted_node(step_graph.inner_html())
    assert second is not None and second != first
    assert "Step 2 of" in stepper.inner_text()
    screenshot(stepper, "03_stepper_step2")

    # 3. the training monitor left its final figure; gradient flow is a figure too
    monitor = output_of(page, "monitor = TrainingMonitor(")
    monitor_img = monitor.locator(".jp-RenderedImage img")
    monitor_img.wait_for()
    assert monitor_img.count() == 1 and monitor_img.bounding_box()["width"] > 500
    screenshot(monitor, "04_training_monitor")
    flow = output_of(page, "gradient_flow(mlp)")
    assert flow.locator(".jp-RenderedImage img").count() == 1
    screenshot(flow, "05_gradient_flow")

    # 4. the checker: one table passes, one fails with the broadcast hint
    passed = page.locator(".minitorch-check-passed")
    failed = page.locator(".minitorch-check-failed")
    assert passed.count() == 1 and failed.count() == 1
    assert passed.locator("table tr").count() == 1 + 4  # header + 2 cases x 2 inputs
    assert "did you reduce the broadcast dimensions?" in failed.inner_text()
    screenshot(passed, "06_checker_pass")
    screenshot(failed, "07_checker_fail")

    # 5. decision boundary and the scoreboard
    boundary = output_of(page, "decision_boundary(clf, X, Y)")
    assert boundary.locator(".jp-RenderedImage img").count() == 1
    screenshot(boundary, "08_decision_boundary")
    board = page.locator(".minitorch-scoreboard")
    assert "1 of 1 exercises passed" not in board.inner_text()  # latest Mul.backward attempt failed
    assert "0 of 1 exercises passed, 1 failed" in board.inner_text()
