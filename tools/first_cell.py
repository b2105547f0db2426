"""The install check at the top of every lesson's first code cell.

On a notebook server where the course is not installed (a hosted notebook: Colab, Binder, a
university JupyterHub), ``import minitorch`` would fail with a ModuleNotFoundError and a
traceback. Every lesson's first code cell therefore starts with ``PRELUDE``: it says, in one
line, the ``%pip install`` of this course version that makes the lesson run. IPython shows a
``UsageError`` as that one line (no traceback), and the error stops Run All there.

    python -m tools.first_cell            # put the current PRELUDE into lessons/solutions/*.ipynb
    python -m tools.first_cell --check    # exit 1 if a solution's first code cell lacks it

Then ``make lessons`` (``tools.make_learner_copies``) carries it into the learner copies and
the Chinese notebooks. The version comes from ``pyproject.toml``; a new version means running
this again. Only the prelude's lines change: the rest of the cell is left as it is.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS = ROOT / "lessons" / "solutions"
MARK = "# not installed here (a hosted notebook)? one line says what to run instead"
# The prelude as written by any version of this tool: from its first line to its raise line.
OLD_PRELUDE = re.compile(r"\Atry:  " + re.escape(MARK) + r"\n.*?\n    raise UsageError\([^\n]*\n\n?", re.S)


def course_version() -> str:
    """The ``version`` of ``[project]`` in pyproject.toml (read without tomllib, which Python 3.10 lacks)."""
    project = (ROOT / "pyproject.toml").read_text().split("[project]", 1)[1]
    match = re.search(r'^version\s*=\s*"([^"]+)"', project, re.M)
    if match is None:
        raise ValueError("pyproject.toml: no version in [project]")
    return match.group(1)


def install_line(version: str | None = None) -> str:
    """The one line a learner runs in a notebook to install this version of the course."""
    return f"%pip install minitorch-course=={version or course_version()}"


def prelude(version: str | None = None) -> str:
    """The lines the first code cell starts with."""
    message = f"MiniTorch is not installed here: run  {install_line(version)}  then run this cell again"
    return (
        f"try:  {MARK}\n"
        "    import minitorch\n"
        "except ModuleNotFoundError:\n"
        "    from IPython.core.error import UsageError\n"
        f'    raise UsageError("{message}") from None\n\n'
    )


def with_prelude(source: str, version: str | None = None) -> str:
    """``source`` starting with the current prelude (an older one replaced, the rest unchanged)."""
    return prelude(version) + OLD_PRELUDE.sub("", source, count=1)


def first_code_cell(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    return next(cell for cell in nb.cells if cell.cell_type == "code")


def main(argv: list[str]) -> int:
    stale = []
    for path in sorted(SOLUTIONS.glob("[0-9][0-9]_*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        cell = first_code_cell(nb)
        wanted = with_prelude(cell.source)
        if cell.source == wanted:
            continue
        stale.append(path.name)
        if "--check" not in argv:
            cell.source = wanted
            nbformat.write(nb, path)
    if "--check" in argv and stale:
        print(
            f"first code cell without the current install check: {stale}; run python -m tools.first_cell",
            file=sys.stderr,
        )
        return 1
    if stale:
        print(f"install check written into {len(stale)} solutions; now run: python -m tools.make_learner_copies")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
