"""The translated solution notebooks: ``lessons/solutions/<lang>/NN_name.ipynb`` from the English ones.

A translated solution is the English solution with

* every markdown cell replaced by its translation (``tools.translations``, the lesson's PO file),
* ``widgets.set_language("<lang>")`` after the imports of the first code cell that imports
  widgets (else of the first code cell), so every hint, check result and label is translated,
* the stored outputs of the translated notebook's last run: its code is the English code, but
  the widgets speak another language, so its outputs come from running it
  (``python -m tools.refresh_outputs lessons/solutions/zh/NN_name.ipynb``), never from the
  English notebook.

Regenerating keeps the stored outputs of every code cell whose source is unchanged, so a
markdown edit needs no rerun. A changed code cell loses its outputs, and the notebook's
``minitorch_outputs`` metadata (the hash of the code the outputs came from, which
refresh_outputs records) no longer matches: ``outputs_stale`` says so until it is refreshed.
"""

from __future__ import annotations

import ast
import hashlib
import json
from pathlib import Path
from typing import Any

import nbformat

from tools import translations

LANGUAGES = ("zh",)
OUTPUTS_KEY = "minitorch_outputs"  # notebook metadata: {"code": hash of the code cells the outputs came from}
SET_LANGUAGE_COMMENT = {"zh": "提示、检查结果和图表都用中文"}


def code_hash(nb: Any) -> str:
    """The first 12 hex digits of the SHA-256 of the notebook's code cells, in order."""
    sources = [cell.source for cell in nb.cells if cell.cell_type == "code"]
    return hashlib.sha256(json.dumps(sources, ensure_ascii=False).encode("utf-8")).hexdigest()[:12]


def _imports_widgets(source: str) -> bool:
    """True when a code cell imports the widgets package (``import widgets``, ``from widgets... import``)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:  # a cell with IPython magics: not the one to change
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] == "widgets" for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "widgets":
            return True
    return False


def _after_imports(source: str) -> int:
    """The number of lines of the cell's leading imports (0 when it does not start with imports)."""
    try:
        body = ast.parse(source).body
    except SyntaxError:
        return 0
    end = 0
    for node in body:
        # the install check every lesson starts with (tools/first_cell.py) is a try around an import
        guarded = isinstance(node, ast.Try) and all(isinstance(n, (ast.Import, ast.ImportFrom)) for n in node.body)
        if not (guarded or isinstance(node, (ast.Import, ast.ImportFrom))):
            break
        end = node.end_lineno or node.lineno
    return end


def with_language(source: str, lang: str) -> str:
    """``source`` with ``widgets.set_language(lang)`` after its leading imports (and ``import widgets`` if needed)."""
    lines = source.splitlines()
    at = _after_imports(source)
    has_module = any(line.strip() == "import widgets" for line in lines[:at])
    added = ([] if has_module else ["import widgets"]) + [
        f'widgets.set_language("{lang}")  # {SET_LANGUAGE_COMMENT.get(lang, lang)}']
    if at and at < len(lines) and lines[at].strip():
        added.append("")  # keep the imports apart from the code, as the English has them
    return "\n".join(lines[:at] + added + lines[at:])


def translated_solution(solution: Any, lang: str, cells: dict[str, str], previous: Any = None) -> Any:
    """The translated solution notebook (a new NotebookNode); ``previous``: the one on disk, whose outputs it keeps."""
    nb = nbformat.from_dict(solution)  # a deep copy
    nb.metadata.pop("widgets", None)  # the English run's widget state: the outputs here are another run's
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = cells[cell.id]
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    if code:
        target = next((cell for cell in code if _imports_widgets(cell.source)), code[0])
        target.source = with_language(target.source, lang)
    kept = {c.id: c for c in previous.cells if c.cell_type == "code"} if previous is not None else {}
    for cell in code:
        old = kept.get(cell.id)
        if old is not None and old.source == cell.source:
            cell.outputs, cell.execution_count = old.outputs, old.execution_count
        else:
            cell.outputs, cell.execution_count = [], None  # to be filled by refresh_outputs
    ran = previous.metadata.get(OUTPUTS_KEY) if previous is not None else None
    nb.metadata[OUTPUTS_KEY] = ran if isinstance(ran, dict) else {"code": ""}
    return nb


def outputs_stale(nb: Any) -> bool:
    """True when the notebook's stored outputs did not come from running its present code."""
    return nb.metadata.get(OUTPUTS_KEY, {}).get("code") != code_hash(nb)


def solution_path(lang: str, english: Path) -> Path:
    """``lessons/solutions/<lang>/<name>`` for the English solution ``english``."""
    return english.parent / lang / english.name


def render(lang: str, english: Path) -> str:
    """The exact text of the translated solution of ``english``; ``ValueError`` when its translation is incomplete."""
    cells = translations.translated_cells(lang, english)
    target = solution_path(lang, english)
    previous = nbformat.read(target, as_version=4) if target.exists() else None
    solution = nbformat.read(english, as_version=4)
    return nbformat.writes(translated_solution(solution, lang, cells, previous)) + "\n"
