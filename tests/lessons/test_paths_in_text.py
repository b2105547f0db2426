"""Every file of the repository a lesson's text names exists: a learner told to open
``minitorch/functions/arithmetic.py`` must find it (the redesign moved files once already)."""

import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS = sorted((ROOT / "lessons" / "solutions").glob("*.ipynb"))
REPO_PATH = re.compile(r"\b(?:minitorch|widgets|tools|bench|docs|examples|tests|hub|course|lessons)/[\w./-]*\w\.(?:py|md|ipynb|csv)")


@pytest.mark.parametrize("notebook", SOLUTIONS, ids=lambda p: p.stem)
def test_every_path_a_lesson_names_exists(notebook):
    named = {m for cell in nbformat.read(notebook, as_version=4).cells for m in REPO_PATH.findall(cell.source)}
    missing = sorted(p for p in named if not (ROOT / p).exists())
    assert not missing, f"{notebook.name} names files that do not exist: {missing}"
