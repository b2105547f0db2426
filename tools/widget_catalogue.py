"""The widgets' message catalogue: which English messages the code shows, and their translations.

Every text a widget shows a learner is written ``_("English {field}", field=...)``
(``widgets/i18n.py``); the English is the message id. This tool finds those calls by
reading the source with ``ast`` (nothing is imported or run) and keeps the catalogue
``widgets/locale/<lang>.po`` in step, as gettext's xgettext + msgmerge would::

    python -m tools.widget_catalogue update zh    # add the new messages (empty), drop the unused ones
    python -m tools.widget_catalogue status zh    # untranslated, fuzzy, unused; exit 1 if any

It reads two places: the widgets' source (``widgets/**/*.py``) and the code cells of the
English solution notebooks (``lessons/solutions/*.ipynb``; the Chinese copies run the same
code). In the notebooks it also collects the **check names**: the first string argument of
``check_function`` / ``check_backward`` / ``check_reduction`` and the names listed to
``lesson_score([...])``. A check name is data (the scoreboard and ``progress()`` key on the
English), so it is translated only where it is shown (``widgets.i18n.check_name``).

Then fill the empty ``msgstr`` entries in the PO file. tests/widgets/test_catalogue.py
fails while a message has no translation or a translation's ``{fields}`` differ.
"""

from __future__ import annotations

import argparse
import ast
import string
import sys
from dataclasses import dataclass
from pathlib import Path

import nbformat
import polib

ROOT = Path(__file__).resolve().parent.parent
WIDGETS = ROOT / "widgets"
LOCALE = WIDGETS / "locale"
SOLUTIONS = ROOT / "lessons" / "solutions"
# calls whose first string argument (or, for lesson_score, the listed strings) is a check's name
CHECKS = ("check_function", "check_backward", "check_reduction")


@dataclass
class Message:
    """One ``_("...")`` call: the English template, where it is, and the field names it was given."""

    msgid: str
    where: str  # "widgets/check/mistakes.py:42"
    keywords: set[str] | None  # the keyword arguments of the call; None when it passes **fields


class NotALiteral(Exception):
    """A ``_()`` call whose first argument is not a plain string: the catalogue cannot know its text."""


def _calls(path: Path) -> list[Message]:
    """The ``_()`` calls of one source file, in order."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    return _calls_in(tree, path.relative_to(ROOT).as_posix(), "")


def _calls_in(tree: ast.AST, where_base: str, cell: str) -> list[Message]:
    """The ``_()`` calls of one parsed file or notebook cell (``cell``: "cell 7, " or ""), in line order."""
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "_"):
            continue
        where = f"{where_base}:{cell}{node.lineno}"
        first = node.args[0] if node.args else None
        if not (isinstance(first, ast.Constant) and isinstance(first.value, str)) or len(node.args) != 1:
            raise NotALiteral(f"{where}: the first (and only positional) argument of _() must be a string literal "
                              "(no f-string, no variable): pass the values as keyword fields, "
                              '_("got {value}", value=...)')
        keywords: set[str] | None = {k.arg for k in node.keywords if k.arg is not None}
        if any(k.arg is None for k in node.keywords):
            keywords = None
        found.append((node.lineno, node.col_offset, Message(first.value, where, keywords)))
    return [m for _line, _col, m in sorted(found, key=lambda f: (f[0], f[1]))]


def _called(node: ast.Call) -> str:
    """The name a call calls: ``check_function`` for ``check_function(...)`` and ``widgets.check_function(...)``."""
    return getattr(node.func, "attr", getattr(node.func, "id", ""))


def _check_names_in(tree: ast.AST, where: str) -> list[Message]:
    """The check names of one notebook cell: first string arguments of the checks, lesson_score's strings."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        first = node.args[0]
        if _called(node) in CHECKS and isinstance(first, ast.Constant) and isinstance(first.value, str):
            found.append((node.lineno, Message(first.value, f"{where}{node.lineno}", None)))
        elif _called(node) == "lesson_score" and isinstance(first, (ast.List, ast.Tuple)):
            found += [(node.lineno, Message(e.value, f"{where}{node.lineno}", None)) for e in first.elts
                      if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return [m for _line, m in sorted(found, key=lambda f: f[0])]


def _code(source: str) -> str:
    """A code cell's source as Python: IPython's ``%magic`` and ``!shell`` lines become blank lines."""
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines())


def notebook_messages(folder: Path = SOLUTIONS) -> list[Message]:
    """The ``_()`` calls and the check names in the code cells of the English solution notebooks."""
    found = []
    for path in sorted(folder.glob("[0-9][0-9]_*.ipynb")):
        where_base = path.relative_to(ROOT).as_posix()
        cells = nbformat.read(path, as_version=4).cells
        for index, cell in enumerate(cells):
            if cell.cell_type != "code":
                continue
            tree = ast.parse(_code(cell.source), f"{where_base} cell {index}")
            found += _calls_in(tree, where_base, f"cell {index}, line ")
            found += _check_names_in(tree, f"{where_base}:cell {index}, line ")
    return found


def messages(root: Path = WIDGETS) -> list[Message]:
    """Every ``_()`` call in the widgets' source, file by file, then the solution notebooks' calls and check names."""
    return [m for path in sorted(root.rglob("*.py")) for m in _calls(path)] + notebook_messages()


def fields(template: str) -> set[tuple[str, str, str]]:
    """The ``{name!conversion:spec}`` fields of a ``str.format`` template, as (name, conversion, spec)."""
    return {(name, conversion or "", spec or "") for _text, name, spec, conversion in string.Formatter().parse(template)
            if name is not None}


def catalogue_path(lang: str) -> Path:
    """``widgets/locale/<lang>.po``."""
    return LOCALE / f"{lang}.po"


def read_catalogue(lang: str) -> polib.POFile:
    """The PO file of ``lang`` (an empty one when there is none yet)."""
    path = catalogue_path(lang)
    if path.exists():
        return polib.pofile(str(path), wrapwidth=0)
    po = polib.POFile(wrapwidth=0)
    po.metadata = {"Project-Id-Version": "minitorch widgets", "Language": lang,
                   "MIME-Version": "1.0", "Content-Type": "text/plain; charset=UTF-8",
                   "Content-Transfer-Encoding": "8bit"}
    return po


def update(lang: str) -> polib.POFile:
    """Add every message of the code to the catalogue (empty when new), with where it is used; drop unused ones."""
    po = read_catalogue(lang)
    used: dict[str, list[str]] = {}
    for message in messages():
        used.setdefault(message.msgid, []).append(message.where)
    old = {e.msgid: e for e in po}
    fresh = polib.POFile(wrapwidth=0)
    fresh.metadata = po.metadata
    fresh.header = (po.header or f"The widgets' messages in {lang}: English msgid, translated msgstr. Keep the "
                    "{fields}; see tools/widget_catalogue.py (update, status).")
    for msgid, places in used.items():
        entry = old.get(msgid) or polib.POEntry(msgid=msgid, msgstr="")
        # the files only, no line numbers: an edit elsewhere in a file must not make the catalogue stale
        entry.occurrences = [(f, "") for f in dict.fromkeys(p.rsplit(":", 1)[0] for p in places)]
        entry.obsolete = False
        fresh.append(entry)
    LOCALE.mkdir(parents=True, exist_ok=True)
    fresh.save(str(catalogue_path(lang)))
    return fresh


def problems(lang: str) -> list[str]:
    """What is wrong with the ``lang`` catalogue, one line each ([] when complete and in step)."""
    found = []
    code = messages()
    po = read_catalogue(lang)
    entries = {e.msgid: e for e in po if not e.obsolete}
    for m in code:
        if m.keywords is not None and m.keywords != {name for name, _c, _s in fields(m.msgid)}:
            found.append(f"{m.where}: the fields given ({', '.join(sorted(m.keywords)) or 'none'}) are not the "
                         f"template's ({', '.join(sorted(n for n, _c, _s in fields(m.msgid))) or 'none'}): {m.msgid!r}")
    for msgid in dict.fromkeys(m.msgid for m in code):
        entry = entries.get(msgid)
        if entry is None or not entry.msgstr.strip():
            found.append(f"untranslated: {msgid!r}")
        elif "fuzzy" in entry.flags:
            found.append(f"fuzzy (check it, then remove the flag): {msgid!r}")
        else:
            try:
                translated = fields(entry.msgstr)
            except ValueError as exc:  # an unbalanced brace
                found.append(f"not a valid template ({exc}): {entry.msgstr!r}")
                continue
            if translated != fields(msgid):
                found.append(f"fields differ: {msgid!r} has {sorted(fields(msgid))}, the translation "
                             f"{sorted(translated)}")
    in_code = {m.msgid for m in code}
    found += [f"unused (no _() call shows it): {msgid!r}" for msgid in entries if msgid not in in_code]
    return found


def main(argv: list[str] | None = None) -> int:
    """Command line: ``update LANG`` or ``status LANG``."""
    parser = argparse.ArgumentParser(prog="python -m tools.widget_catalogue", description=__doc__.split("\n")[0])
    parser.add_argument("command", choices=["update", "status"])
    parser.add_argument("lang")
    args = parser.parse_args(argv)
    if args.command == "update":
        po = update(args.lang)
        print(f"{catalogue_path(args.lang).relative_to(ROOT)}: {len(po)} messages, "
              f"{len(po.untranslated_entries())} untranslated")
        return 0
    listed = problems(args.lang)
    for line in listed:
        print(line)
    print(f"{len(listed)} problem(s)" if listed else f"{args.lang}: every widget message is translated")
    return 1 if listed else 0


if __name__ == "__main__":
    sys.exit(main())
