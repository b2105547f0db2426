"""Re-execute solution notebooks and store the outputs whose text changed, and only those.

    python -m tools.refresh_outputs lessons/solutions/01_tensors.ipynb [...]

After a change that alters what a lesson prints (a new error message, a new repr), nbval
reports the stored outputs as stale. Re-saving the whole executed notebook would also
rewrite every figure and timing (binary noise in the diff); this tool keeps those and
replaces only the outputs whose text (after the nbval sanitizers) differs. Cells marked
``# NBVAL_IGNORE_OUTPUT`` keep their stored outputs. Then run ``make lessons``.

    python -m tools.refresh_outputs --figures lessons/solutions/12_recurrent.ipynb

``--figures`` also stores the fresh outputs of every cell that shows a graph or a figure
(``image/svg+xml``, ``image/png``), ``NBVAL_IGNORE_OUTPUT`` cells too: after a change to how
figures are drawn, or to the text-size metadata the browser test reads from them.

A translated solution (``lessons/solutions/zh/...``, made by ``make lessons``) is refreshed
the same way; its cells without outputs (new or changed code) get the run's outputs, and
the notebook records which code its outputs came from (``tools.translated_notebooks``).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from tools.translated_notebooks import OUTPUTS_KEY, code_hash

SANITIZE = Path(__file__).resolve().parent.parent / "lessons" / "nbval_sanitize.cfg"


def _sanitizers() -> list[tuple[re.Pattern[str], str]]:
    """The regex/replace pairs of lessons/nbval_sanitize.cfg."""
    pairs, regex = [], None
    for line in SANITIZE.read_text().splitlines():
        if line.startswith("regex:"):
            regex = re.compile(line[len("regex:") :].strip())
        elif line.startswith("replace:") and regex is not None:
            pairs.append((regex, line[len("replace:") :].strip()))
            regex = None
    return pairs


def _text(outputs: list, sanitizers: list) -> str:
    """What nbval compares: stream text, text/plain, text/html and SVG, and error names."""
    parts = []
    for out in outputs:
        if out.get("output_type") == "stream":
            parts.append(out.get("text", ""))
        elif out.get("output_type") == "error":
            parts.append(f"{out.get('ename')}: {out.get('evalue')}")
        else:
            data = out.get("data", {})
            parts.extend(str(data.get(kind, "")) for kind in ("text/plain", "text/html", "image/svg+xml"))
    text = "\n".join(parts)
    for regex, replacement in sanitizers:
        text = regex.sub(replacement, text)
    return text


def _has_image(outputs: list) -> bool:
    return any(kind in out.get("data", {}) for out in outputs for kind in ("image/svg+xml", "image/png"))


def refresh(path: Path, figures: bool = False) -> int:
    """Execute ``path`` in its folder; store changed outputs (and figures); return how many cells changed."""
    stored = nbformat.read(path, as_version=4)
    fresh = nbformat.read(path, as_version=4)
    where = {"metadata": {"path": str(path.parent)}}  # run in the notebook's folder, as nbval does
    NotebookClient(fresh, timeout=600, kernel_name="python3", resources=where).execute()
    sanitizers = _sanitizers()
    translated = OUTPUTS_KEY in stored.metadata
    changed = 0
    for old, new in zip(stored.cells, fresh.cells):
        if old.cell_type != "code":
            continue
        to_fill = translated and not old.outputs and bool(new.outputs)  # new or changed code of a translation
        if figures and "NBVAL_SKIP" not in old.source and (_has_image(old.outputs) or _has_image(new.outputs)):
            old.outputs = new.outputs
            if translated:
                old.execution_count = new.execution_count
            changed += 1
            continue
        if ("NBVAL_IGNORE_OUTPUT" in old.source or "NBVAL_SKIP" in old.source) and not to_fill:
            continue
        if to_fill or _text(old.outputs, sanitizers) != _text(new.outputs, sanitizers):
            old.outputs = new.outputs
            if translated:  # its outputs are all from its own runs: number them as the run did
                old.execution_count = new.execution_count
            changed += 1
    ran_code = translated and stored.metadata[OUTPUTS_KEY].get("code") != code_hash(stored)
    if translated:
        stored.metadata[OUTPUTS_KEY] = {"code": code_hash(stored)}
    if changed or ran_code:
        nbformat.write(stored, path)
    return changed


def main() -> int:
    """Refresh each notebook given on the command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="+", type=Path)
    parser.add_argument("--figures", action="store_true", help="also store every cell's fresh graphs and figures")
    args = parser.parse_args()
    for path in args.notebooks:
        print(f"{path}: {refresh(path, args.figures)} cell(s) updated", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
