"""Two Chinese lessons in a real JupyterLab: Run All, then look for tofu (boxes where a glyph is missing).

A character the page's fonts cannot draw comes out as the font's "missing glyph" box. So
for each distinct Chinese character on the page, this draws it on a canvas in the font its
element uses, and draws U+10FFFD (a code point no font has) the same way: identical pixels
mean that character is a box too. The graphs' SVG (drawn by Graphviz, shown as images) is
checked the same way in the font its text asks for, and matplotlib must not have warned of a
missing glyph in any figure. Screenshots go to ``tests/browser/screenshots/``.
"""

import base64
import re
import urllib.parse
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser
ZH = Path(__file__).resolve().parents[2] / "lessons" / "solutions" / "zh"
LESSONS = [ZH / "00_welcome.ipynb", ZH / "03_broadcasting_gradients.ipynb"]
CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")

# (text, CSS font) pairs -> the characters drawn exactly like U+10FFFD, the missing glyph
TOFU_JS = """(pairs) => {
    const canvas = document.createElement('canvas');
    canvas.width = canvas.height = 48;
    const ctx = canvas.getContext('2d', {willReadFrequently: true});
    const draw = (ch, font) => {
        ctx.clearRect(0, 0, 48, 48);
        ctx.font = font;
        ctx.textBaseline = 'top';
        ctx.fillStyle = '#000';
        ctx.fillText(ch, 4, 4);
        return ctx.getImageData(0, 0, 48, 48).data;
    };
    const same = (a, b) => a.length === b.length && a.every((v, i) => v === b[i]);
    const tofu = [];
    for (const [chars, font] of pairs) {
        const missing = draw('\\u{10FFFD}', font);
        for (const ch of chars) if (same(draw(ch, font), missing)) tofu.push(ch + ' in ' + font);
    }
    return tofu;
}"""

# every distinct CJK character of the page's text, grouped by the font its element is drawn in
PAGE_TEXT_JS = """(pattern) => {
    const cjk = new RegExp(pattern, 'g');
    const byFont = new Map();
    const walker = document.createTreeWalker(document.querySelector('.jp-Notebook'), NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const found = node.textContent.match(cjk);
        if (!found || !node.parentElement) continue;
        const style = getComputedStyle(node.parentElement);
        const font = `${style.fontStyle} ${style.fontWeight} 32px ${style.fontFamily}`;
        if (!byFont.has(font)) byFont.set(font, new Set());
        found.forEach(ch => byFont.get(font).add(ch));
    }
    return [...byFont].map(([font, chars]) => [[...chars].join(''), font]);
}"""


def svg_texts(page):
    """(CJK characters, CSS font) for the text of every SVG image (Graphviz graphs) on the page."""
    pairs = []
    for img in page.locator(".jp-RenderedSVG img, .jp-RenderedImage img[src^='data:image/svg']").all():
        src = img.get_attribute("src") or ""
        head, _, data = src.partition(",")
        svg = base64.b64decode(data).decode() if head.endswith(";base64") else urllib.parse.unquote(data)
        for family, text in re.findall(r'<text[^>]*font-family="([^"]+)"[^>]*>([^<]*)</text>', svg):
            chars = "".join(sorted(set(CJK.findall(text))))
            if chars:
                pairs.append([chars, f"normal 400 32px {family}"])
    return pairs


def test_the_tofu_detector_tells_a_missing_glyph_from_a_drawn_one(browser):
    page = browser.new_page()
    try:
        page.set_content("<p>x</p>")
        # U+0378 is unassigned (no font draws it); "A" and 中 are in every font set this course installs
        found = page.evaluate(TOFU_JS, [["\u0378A中", "normal 400 32px sans-serif"]])
        assert found == ["\u0378 in normal 400 32px sans-serif"]
    finally:
        page.close()


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.stem)
def test_a_chinese_lesson_runs_and_every_character_has_a_glyph(run_notebook, screenshot, lesson):
    assert lesson.exists(), f"{lesson} missing: run `make lessons` (and refresh its outputs)"
    page = run_notebook(lesson, timeout_s=180)
    errors = page.locator(".jp-RenderedText[data-mime-type='application/vnd.jupyter.error']")
    assert errors.count() == 0, "a cell raised: " + " | ".join(errors.all_inner_texts())
    stderr = " ".join(page.locator(".jp-RenderedText[data-mime-type='application/vnd.jupyter.stderr']")
                      .all_inner_texts())
    assert "missing from font" not in stderr, stderr[:500]  # matplotlib drew a box in a figure
    screenshot(page, f"zh_{lesson.stem}_page")

    checks = page.locator(".minitorch-check")
    assert checks.count() >= 1 and "通过" in checks.first.inner_text()  # the widgets speak Chinese
    pairs = page.evaluate(PAGE_TEXT_JS, CJK.pattern)
    characters = {ch for chars, _font in pairs for ch in chars}
    assert len(characters) > 100, f"only {len(characters)} distinct Chinese characters on the page"
    graphs = svg_texts(page)
    assert graphs, "no Graphviz graph with Chinese labels on the page"
    tofu = page.evaluate(TOFU_JS, pairs + graphs)
    assert tofu == [], f"{len(tofu)} characters have no glyph (tofu): {tofu[:20]}"
    print(f"{lesson.stem}: {len(characters)} distinct characters in {len(pairs)} fonts, "
          f"{sum(len(c) for c, _f in graphs)} in {len(graphs)} graph labels: no tofu")
    picture = page.locator(".jp-RenderedSVG, .jp-RenderedImage").first
    screenshot(picture, f"zh_{lesson.stem}_first_picture")
