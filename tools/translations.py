"""Lesson translations: one PO file per lesson and language, keyed by cell id and content.

The English solution notebook is the only source of a lesson. Its translation into a
language lives beside it in ``lessons/i18n/<lang>/NN_name.po``, one entry per markdown
cell (gettext's format, read and written with polib)::

    #. cell 4, source-hash 3f2a9c01b7de
    msgctxt "5b1d2e7a"                  <- the cell's id
    msgid "## Broadcasting ..."         <- the English text the translation was made from
    msgstr "## 广播 ..."                 <- the translation

When an English cell changes, ``update`` keeps the old translation but marks it ``fuzzy``
and records the English it was made from (``#| msgid``), as gettext's msgmerge does: the
translator sees what changed, and the stale test fails until the entry is re-translated.

    python -m tools.translations update zh          # sync every PO file with the notebooks
    python -m tools.translations status zh          # list missing and stale entries (exit 1 if any)
    python -m tools.translations export zh 03       # lesson 03 as one text file to translate
    python -m tools.translations import zh 03 FILE  # take the translated text file back in

The text file of ``export``/``import`` is the lesson's markdown cells, each after a line
``<!-- cell ID -->``: translate the text between the markers, keep the markers.
"""

from __future__ import annotations

import argparse
import hashlib
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import nbformat
import polib

ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS = ROOT / "lessons" / "solutions"
I18N = ROOT / "lessons" / "i18n"
LANGUAGE_NAMES = {"zh": "zh_CN"}
MARKER = re.compile(r"^<!-- cell (\S+) -->[ \t]*$", re.M)
# What a translation must carry over unchanged: inline code, fenced code, math, link targets.
FENCED = re.compile(r"^```.*?^```", re.M | re.S)
VERBATIM = re.compile(r"`[^`\n]+`|\$\$.+?\$\$|\$[^$\n]+\$|\]\([^)\s]+\)", re.S)


def source_hash(text: str) -> str:
    """The first 12 hex digits of the SHA-256 of a cell's English text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def solution_notebooks() -> list[Path]:
    """Every solution notebook, in lesson order."""
    return sorted(SOLUTIONS.glob("*.ipynb"))


def lesson_path(number: str) -> Path:
    """The solution notebook of lesson ``number`` ("03" or "3")."""
    matches = [p for p in solution_notebooks() if p.name.startswith(f"{int(number):02d}_")]
    if len(matches) != 1:
        raise SystemExit(f"translations: no lesson {number} in {SOLUTIONS}")
    return matches[0]


def po_path(lang: str, notebook: Path) -> Path:
    """Where the ``lang`` translation of ``notebook`` is kept."""
    return I18N / lang / (notebook.stem + ".po")


def markdown_cells(notebook: Path) -> list[tuple[int, str, str]]:
    """(index, id, English text) of every markdown cell of ``notebook``."""
    nb = nbformat.read(notebook, as_version=4)
    return [(i, c.id, c.source) for i, c in enumerate(nb.cells) if c.cell_type == "markdown"]


def read_po(lang: str, notebook: Path) -> polib.POFile:
    """The PO file of ``notebook`` in ``lang`` (an empty one with its header if none yet)."""
    path = po_path(lang, notebook)
    if path.exists():
        return polib.pofile(str(path), wrapwidth=0)
    po = polib.POFile(wrapwidth=0)
    po.metadata = {
        "Project-Id-Version": f"MiniTorch lesson {notebook.stem}",
        "Language": LANGUAGE_NAMES.get(lang, lang),
        "MIME-Version": "1.0",
        "Content-Type": "text/plain; charset=UTF-8",
        "Content-Transfer-Encoding": "8bit",
    }
    return po


def write_po(lang: str, notebook: Path, po: polib.POFile) -> None:
    """Save ``po`` as the translation of ``notebook`` (entries in cell order)."""
    path = po_path(lang, notebook)
    path.parent.mkdir(parents=True, exist_ok=True)
    po.wrapwidth = 0  # one PO line per line of markdown: diffs stay readable
    path.write_text(str(po) + "\n", encoding="utf-8")


def sync(lang: str, notebook: Path) -> polib.POFile:
    """``notebook``'s PO file brought up to date with its markdown cells (not saved).

    New cells get an empty entry, changed cells keep their old translation marked fuzzy
    (with the English it was made from), entries of deleted cells are dropped.
    """
    old = {entry.msgctxt: entry for entry in read_po(lang, notebook)}
    po = read_po(lang, notebook)
    del po[:]
    for index, cell_id, english in markdown_cells(notebook):
        entry = old.get(cell_id) or polib.POEntry(msgctxt=cell_id, msgid=english, msgstr="")
        if entry.msgid != english:
            entry.previous_msgid = entry.msgid
            entry.msgid = english
            if "fuzzy" not in entry.flags:
                entry.flags.append("fuzzy")
        entry.comment = f"cell {index}, source-hash {source_hash(english)}"
        po.append(entry)
    return po


@dataclass
class Problem:
    """One markdown cell whose translation cannot be used as it is."""

    notebook: str
    cell_id: str
    index: int
    why: str  # "missing", "empty", "stale" or "fuzzy"

    def __str__(self) -> str:
        return f"{self.notebook} cell {self.index} (id {self.cell_id}): translation {self.why}"


def verbatim_parts(markdown: str) -> list[str]:
    """The code blocks, inline code, math and link targets of ``markdown``, sorted."""
    fenced = FENCED.findall(markdown)
    return sorted(fenced + VERBATIM.findall(FENCED.sub("", markdown)))


def changed_verbatim(english: str, translation: str) -> str | None:
    """What the translation lost or altered of the English's code and math (None if nothing)."""
    want, got = verbatim_parts(english), verbatim_parts(translation)
    if want == got:
        return None
    lost = [p for p in want if p not in got]
    added = [p for p in got if p not in want]
    return f"code/math changed: lost {lost[:3]}, added {added[:3]}"


def problems(lang: str, notebook: Path) -> list[Problem]:
    """Every markdown cell of ``notebook`` without a current translation in ``lang``."""
    entries = {entry.msgctxt: entry for entry in read_po(lang, notebook)} if po_path(lang, notebook).exists() else {}
    found = []
    for index, cell_id, english in markdown_cells(notebook):
        entry = entries.get(cell_id)
        if entry is None:
            why = "missing"
        elif entry.msgid != english or source_hash(english) not in (entry.comment or ""):
            why = "stale: the English cell changed since it was translated"
        elif "fuzzy" in entry.flags:
            why = "fuzzy: marked for review after the English changed"
        elif not entry.msgstr.strip():
            why = "empty"
        elif changed := changed_verbatim(english, entry.msgstr):
            why = changed
        else:
            continue
        found.append(Problem(notebook.name, cell_id, index, why))
    return found


def translated_cells(lang: str, notebook: Path) -> dict[str, str]:
    """{cell id: translated markdown} for ``notebook``; raises if any cell lacks a current one."""
    trouble = problems(lang, notebook)
    if trouble:
        listing = "\n  ".join(str(p) for p in trouble[:10])
        raise ValueError(f"{len(trouble)} cells of {notebook.name} have no current {lang} translation:\n  {listing}\n"
                         f"(python -m tools.translations status {lang})")
    return {entry.msgctxt: entry.msgstr for entry in read_po(lang, notebook)}


def export_text(lang: str, notebook: Path) -> str:
    """The lesson's markdown cells as one text file: each cell after its marker line.

    A cell already translated (and current) is given in ``lang``; the others in English.
    """
    entries = {e.msgctxt: e for e in read_po(lang, notebook)}
    parts = []
    for _, cell_id, english in markdown_cells(notebook):
        entry = entries.get(cell_id)
        current = entry is not None and entry.msgid == english and entry.msgstr and "fuzzy" not in entry.flags
        parts.append(f"<!-- cell {cell_id} -->\n{entry.msgstr if current else english}\n")
    return "\n".join(parts)


def import_text(lang: str, notebook: Path, text: str) -> polib.POFile:
    """``notebook``'s PO file with the translations of ``text`` (from ``export_text``) taken in."""
    po = sync(lang, notebook)
    by_id = {entry.msgctxt: entry for entry in po}
    pieces = MARKER.split(text)
    if pieces[0].strip():
        raise ValueError("text before the first <!-- cell ID --> marker")
    for cell_id, body in zip(pieces[1::2], pieces[2::2]):
        if cell_id not in by_id:
            raise ValueError(f"{notebook.name} has no markdown cell with id {cell_id}")
        entry = by_id[cell_id]
        entry.msgstr = body.strip("\n")
        if "fuzzy" in entry.flags:
            entry.flags.remove("fuzzy")
        entry.previous_msgid = None
    return po


def main(argv: list[str] | None = None) -> int:
    """The command line: update, status, export, import."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["update", "status", "export", "import"])
    parser.add_argument("lang")
    parser.add_argument("lesson", nargs="?", help="lesson number (export, import)")
    parser.add_argument("file", nargs="?", help="the translated text file (import)")
    args = parser.parse_args(argv)
    if args.command == "update":
        for notebook in solution_notebooks():
            write_po(args.lang, notebook, sync(args.lang, notebook))
        return 0
    if args.command == "status":
        trouble = [p for nb in solution_notebooks() for p in problems(args.lang, nb)]
        for problem in trouble:
            print(problem)
        print(f"{len(trouble)} markdown cells need a {args.lang} translation")
        return 1 if trouble else 0
    if args.lesson is None:
        parser.error(f"{args.command} needs a lesson number")
    notebook = lesson_path(args.lesson)
    if args.command == "export":
        sys.stdout.write(export_text(args.lang, notebook))
        return 0
    if args.file is None:
        parser.error("import needs the translated text file")
    write_po(args.lang, notebook, import_text(args.lang, notebook, Path(args.file).read_text(encoding="utf-8")))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
