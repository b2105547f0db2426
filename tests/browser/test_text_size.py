"""Every graph and figure of every lesson, as JupyterLab shows it: no text smaller than MIN_TEXT_PX.

Each solution notebook is opened (trusted, so stored SVG shows; nothing is run) in one
browser page, one after the other, and every image output is measured where it is drawn:

- SVG (graphviz): JupyterLab shows it as ``<img src="data:image/svg+xml,...">``, whose text
  the page cannot reach. The test draws the same SVG inline at the image's rendered size
  in an off-screen box and takes each ``<text>`` element's ``getBoundingClientRect()``
  height: the height of the text as the learner sees it.
- PNG (matplotlib): pixels have no text to measure. The widgets' figure formatter
  (``widgets/draw/plotting.py``) stores in the output's metadata the figure's dpi and the
  size of its smallest text (every visible text artist, ticks and legend included); the
  page gives the displayed scale (rendered width / natural width), so the text's rendered
  size is ``points * dpi / 72 * scale`` CSS pixels. That is the font's em size, a little
  smaller than the line height an SVG text box has: a PNG is held to a slightly stricter limit.
  A figure stored without that metadata fails: it was drawn around the formatter.

The failure lists notebook, cell index, the text and its size. Screenshots of the graphs
and figures of lessons 06, 12 and 15 go to ``tests/browser/screenshots/``.

``test_graphs_drawn_in_the_browser_are_readable`` is the same check without Graphviz's ``dot``:
each lesson that shows a graph runs (up to its last graph) in a JupyterLab whose kernels find
no ``dot`` on their PATH, so the browser lays out and draws every graph (viz.js,
``widgets/draw/browser_view.py``); every graph cell must show one, every text >= 9 px.
"""

import json
from pathlib import Path

import nbformat
import pytest
from nbformat.sign import NotebookNotary

from widgets.draw.plotting import TEXT_SIZE_KEY

pytestmark = pytest.mark.browser
SOLUTIONS = Path(__file__).resolve().parents[2] / "lessons" / "solutions"
SCREENSHOTS = Path(__file__).resolve().parent / "screenshots"  # as the screenshot fixture
MIN_TEXT_PX = 9.0
SCREENSHOT_LESSONS = ("06_", "12_", "15_")

# In the page: for every cell, the rendered size of each image output and, for SVG, the
# rendered height of each text element.
MEASURE_JS = """
() => {
  const cells = [...document.querySelectorAll('.jp-Notebook .jp-Cell')];
  const box = document.createElement('div');
  box.style.cssText = 'position:absolute;left:0;top:0;visibility:hidden;';
  document.body.appendChild(box);
  const found = [];
  cells.forEach((cell, index) => {
    cell.querySelectorAll('.jp-RenderedSVG img, .jp-RenderedImage img').forEach((img, k) => {
      const rect = img.getBoundingClientRect();
      const item = {cell: index, kind: img.closest('.jp-RenderedSVG') ? 'svg' : 'png', k: k,
                    area: img.closest('.jp-OutputArea-output').clientWidth,
                    width: rect.width, natural: img.naturalWidth, texts: []};
      if (item.kind === 'svg') {
        const [head, data] = [img.src.slice(0, img.src.indexOf(',')), img.src.slice(img.src.indexOf(',') + 1)];
        const text = head.endsWith(';base64') ? atob(data) : decodeURIComponent(data);
        const svg = new DOMParser().parseFromString(text, 'image/svg+xml').documentElement;
        svg.setAttribute('width', rect.width + 'px');
        svg.setAttribute('height', rect.height + 'px');
        box.replaceChildren(document.importNode(svg, true));
        box.querySelectorAll('text').forEach(t => {
          const label = t.textContent.trim();
          if (label) item.texts.push([label, t.getBoundingClientRect().height]);
        });
      }
      found.push(item);
    });
  });
  box.remove();
  return found;
}
"""


def stored_images(nb):
    """``[(cell index, kind, metadata)]`` for every image output, in page order."""
    images = []
    for index, cell in enumerate(nb.cells):
        for out in cell.get("outputs", []) if cell.cell_type == "code" else []:
            data = out.get("data", {})
            if "image/svg+xml" in data:
                images.append((index, "svg", {}))
            elif "image/png" in data:
                images.append((index, "png", out.get("metadata", {}).get("image/png", {})))
    return images


def too_small(name, image, stored_meta):
    """The problems of one measured image, as lines of the failure message."""
    where = f"{name} cell {image['cell']}"
    if image["width"] <= 0 or image["natural"] <= 0:
        return [f"{where}: {image['kind']} image not shown (width {image['width']})"]
    if image["kind"] == "svg":
        return [f"{where}: SVG text {label!r} is {height:.1f} px high" for label, height in image["texts"]
                if height < MIN_TEXT_PX]
    sizes = stored_meta.get(TEXT_SIZE_KEY)
    if not sizes:
        return [f"{where}: PNG figure without {TEXT_SIZE_KEY!r} metadata (drawn around widgets' formatter)"]
    scale = image["width"] / image["natural"]
    px = sizes["smallest_pt"] * sizes["dpi"] / 72 * scale
    if px < MIN_TEXT_PX:
        return [f"{where}: PNG text {sizes['smallest_text']!r} is {px:.1f} px ({sizes['smallest_pt']:g} pt at "
                f"{sizes['dpi']} dpi, shown at {scale:.2f} of its size)"]
    return []


def open_stored(page, lab, path):
    """Open a trusted copy of ``path`` (stored outputs shown, nothing run); wait for its images."""
    nb = nbformat.read(path, as_version=4)
    NotebookNotary(data_dir=str(lab.base / "home" / ".local" / "share" / "jupyter")).sign(nb)
    nbformat.write(nb, lab.root / path.name)
    page.goto(f"{lab.url}/lab/tree/{path.name}?reset&token={lab.token}")
    page.wait_for_selector(".jp-Notebook .jp-Cell")
    count = len(stored_images(nb))
    page.wait_for_function(
        """(n) => { const imgs = [...document.querySelectorAll('.jp-RenderedSVG img, .jp-RenderedImage img')];
                    return imgs.length >= n && imgs.every(i => i.complete && i.naturalWidth > 0); }""",
        arg=count, timeout=60_000, polling=250)
    return nb


def test_every_graph_and_figure_is_readable(lab, browser, screenshot):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(60_000)
    problems, measured, report = [], 0, {}
    try:
        for path in sorted(SOLUTIONS.glob("*.ipynb")):
            nb = open_stored(page, lab, path)
            stored = stored_images(nb)
            images = page.evaluate(MEASURE_JS)
            assert [(i["cell"], i["kind"]) for i in images] == [(c, k) for c, k, _ in stored], path.name
            for image, (_, _, meta) in zip(images, stored):
                problems += too_small(path.stem, image, meta)
                measured += 1
                smallest = min((h for _, h in image.pop("texts")), default=None)
                report.setdefault(path.stem, []).append({**image, "smallest_svg_text_px": smallest, **meta})
            if path.name.startswith(SCREENSHOT_LESSONS):
                # a window tall enough for the tallest graph (the notebook scrolls inside the page,
                # so a taller output would be cut); the width, and so every size measured, stays
                page.set_viewport_size({"width": 1400, "height": 2600})
                for n, image in enumerate(images):
                    output = page.locator(".jp-Notebook .jp-Cell").nth(image["cell"]).locator(".jp-OutputArea")
                    output.scroll_into_view_if_needed()
                    screenshot(output, f"text_size_{path.stem}_cell{image['cell']}_{n}")
                page.set_viewport_size({"width": 1400, "height": 1000})
            lab.delete_sessions()
    finally:
        context.close()
        SCREENSHOTS.mkdir(exist_ok=True)
        (SCREENSHOTS / "text_size.json").write_text(json.dumps(report, indent=1))  # what was measured, to read
    assert measured >= 40, f"only {measured} graphs and figures found in the lessons"
    assert not problems, f"{len(problems)} texts below {MIN_TEXT_PX} px:\n" + "\n".join(problems)


# ---------------------------------------------------------------- the same lessons without Graphviz's dot
# Every cell that shows a graph in the stored solution (SVG drawn by dot) or holds a backward
# stepper must show it drawn by the browser (viz.js, widgets/draw/browser_view.py) when the
# kernel finds no dot on its PATH; each of its texts is measured where it is drawn (inline SVG).
GRAPH_MEASURE_JS = """
() => [...document.querySelectorAll('.jp-Notebook .jp-Cell')].map((cell, index) => ({
  cell: index,
  errors: [...cell.querySelectorAll('.minitorch-graph-error')].map(e => e.textContent),
  graphs: [...cell.querySelectorAll('.minitorch-graph')].map(box => {
    const svg = box.querySelector('svg');
    const rect = svg.getBoundingClientRect();
    return {rankdir: box.dataset.rankdir, size: box.dataset.size, boxes: box.dataset.boxes,
            area: box.closest('.jp-OutputArea-output')?.clientWidth, width: rect.width,
            texts: [...svg.querySelectorAll('text')].map(t => [t.textContent.trim(), t.getBoundingClientRect().height])
                                                     .filter(([label]) => label)};
  }),
})).filter(c => c.graphs.length || c.errors.length)
"""


def graph_cells(nb):
    """Indices of the cells that show a graph: stored SVG output, or a backward stepper."""
    found = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        svg = any("image/svg+xml" in out.get("data", {}) for out in cell.get("outputs", []))
        if svg or "BackwardStepper(" in cell.source:
            found.append(index)
    return found


def up_to_last_graph(path, folder):
    """A copy of the solution ``path`` that ends with its last graph cell, outputs cleared; (copy, graph cells)."""
    nb = nbformat.read(path, as_version=4)
    cells = graph_cells(nb)
    nb.cells = nb.cells[: cells[-1] + 1]
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    copy = Path(folder) / path.name
    nbformat.write(nb, copy)
    return copy, cells


def test_graphs_drawn_in_the_browser_are_readable(run_notebook_without_dot, screenshot, tmp_path):
    lessons = [p for p in sorted(SOLUTIONS.glob("*.ipynb")) if graph_cells(nbformat.read(p, as_version=4))]
    problems, report, cells = [], {}, 0
    for path in lessons:
        copy, expected = up_to_last_graph(path, tmp_path)
        cells += len(expected)
        page = run_notebook_without_dot(copy, timeout_s=240)
        errors = page.locator(".jp-RenderedText[data-mime-type='application/vnd.jupyter.error']")
        assert errors.count() == 0, f"{path.name}: a cell raised: {errors.all_inner_texts()}"
        try:  # the widgets draw after the cells ran: viz.js is loaded once, then each graph is laid out
            page.wait_for_function(
                """(cells) => cells.every(i => document.querySelectorAll('.jp-Notebook .jp-Cell')[i]
                                               ?.querySelector('.minitorch-graph svg, .minitorch-graph-error'))""",
                arg=expected, timeout=60_000, polling=250)
        except Exception:
            pass  # reported below, cell by cell
        measured = {c["cell"]: c for c in page.evaluate(GRAPH_MEASURE_JS)}
        for index in expected:
            where = f"{path.stem} cell {index}"
            cell = measured.get(index)
            if cell is None or not cell["graphs"]:
                problems.append(f"{where}: no graph drawn")
                continue
            problems += [f"{where}: {error}" for error in cell["errors"]]
            for graph in cell["graphs"]:
                if graph["width"] <= 0 or not graph["texts"]:
                    problems.append(f"{where}: graph not shown (width {graph['width']}, {len(graph['texts'])} texts)")
                problems += [f"{where}: SVG text {label!r} is {height:.1f} px high" for label, height in graph["texts"]
                             if height < MIN_TEXT_PX]
                smallest = min((h for _, h in graph.pop("texts")), default=None)
                report.setdefault(path.stem, []).append({"cell": index, **graph, "smallest_text_px": smallest})
        if path.name.startswith("04_"):  # the stepper redraws in the browser: Next shows step 1
            page.locator(".minitorch-stepper button", has_text="Next").first.click()
            page.wait_for_selector(".minitorch-stepper-graph[data-step='1'] svg", timeout=30_000)
        if path.name.startswith(("02_", "04_", "12_")):
            page.set_viewport_size({"width": 1400, "height": 2600})
            for index in expected:
                output = page.locator(".jp-Notebook .jp-Cell").nth(index).locator(".jp-OutputArea")
                output.scroll_into_view_if_needed()
                screenshot(output, f"no_dot_{path.stem}_cell{index}")
        page.context.close()
    SCREENSHOTS.mkdir(exist_ok=True)
    (SCREENSHOTS / "text_size_no_dot.json").write_text(json.dumps(report, indent=1))
    assert len(lessons) >= 8 and cells >= 18, f"only {cells} graph cells found in {[p.stem for p in lessons]}"
    assert not problems, f"{len(problems)} problems without dot:\n" + "\n".join(problems)
