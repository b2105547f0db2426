"""The learner notebooks of the installed version, and writing them into a learner's folder.

The wheel carries them as package data (``minitorch_course/lessons/en/*.ipynb`` and ``zh/``,
copied from the repository's ``lessons/`` when the wheel is built, see ``setup.py``); a
checkout (an editable install) reads the repository's ``lessons/`` folder itself.

``write_lessons`` never replaces a notebook the learner changed: it records what it wrote in
``MANIFEST`` inside the folder, so a later version replaces only the copies still exactly as
written (and identical ones are left alone); a changed one is kept unless ``force``, and then
it is saved beside as ``NN_name.ipynb.bak`` first.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from minitorch_course import version

PACKAGE_LESSONS = Path(__file__).resolve().parent / "lessons"
CHECKOUT_LESSONS = Path(__file__).resolve().parent.parent / "lessons"
LANGUAGES = ("en", "zh")
MANIFEST = ".minitorch-course.json"
FIRST_LESSON = "00_welcome.ipynb"


def lesson_folder(lang: str = "en") -> Path:
    """Where the installed learner notebooks of ``lang`` are; FileNotFoundError (saying why) if nowhere."""
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}: the lessons come in {', '.join(LANGUAGES)}")
    candidates = [PACKAGE_LESSONS / lang, CHECKOUT_LESSONS / "zh" if lang == "zh" else CHECKOUT_LESSONS]
    for folder in candidates:
        if any(folder.glob("[0-9][0-9]_*.ipynb")):
            return folder
    raise FileNotFoundError(
        f"no {lang} lesson notebooks in this install (looked in {candidates[0]} and "
        f"{candidates[1]}): reinstall minitorch-course from its wheel"
    )


def lesson_files(lang: str = "en") -> list[Path]:
    """The learner notebooks, in lesson order."""
    return sorted(lesson_folder(lang).glob("[0-9][0-9]_*.ipynb"))


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass
class Written:
    """What ``write_lessons`` did with each notebook, by file name."""

    folder: Path
    new: list[str] = field(default_factory=list)  # not there before
    updated: list[str] = field(default_factory=list)  # there as written before, replaced by this version's
    unchanged: list[str] = field(default_factory=list)  # already this version's
    kept: list[str] = field(default_factory=list)  # changed by the learner: left alone
    replaced: list[str] = field(default_factory=list)  # changed by the learner, replaced (force; .bak kept)

    def summary(self) -> str:
        parts = [f"{len(self.new) + len(self.updated) + len(self.replaced)} lesson notebooks written to {self.folder}"]
        if self.unchanged:
            parts.append(f"{len(self.unchanged)} already up to date")
        if self.replaced:
            parts.append(f"replaced your changed {', '.join(self.replaced)} (your copies: *.ipynb.bak)")
        text = "; ".join(parts) + "."
        if self.kept:
            text += (
                f"\nKept your changed copies of {', '.join(self.kept)}: --force replaces them with this "
                "version's (keeping yours as .ipynb.bak)."
            )
        return text


def write_lessons(folder: str | Path, lang: str = "en", force: bool = False) -> Written:
    """Write the learner notebooks of ``lang`` into ``folder`` (see the module docstring)."""
    folder = Path(folder).expanduser()
    folder.mkdir(parents=True, exist_ok=True)
    manifest_path = folder / MANIFEST
    try:
        manifest = json.loads(manifest_path.read_text())
    except (OSError, ValueError):
        manifest = {}
    written_before = manifest.get("files", {})
    done = Written(folder)
    record = {}
    for source in lesson_files(lang):
        data = source.read_bytes()
        target = folder / source.name
        record[source.name] = _sha256(data)
        if not target.exists():
            target.write_bytes(data)
            done.new.append(source.name)
            continue
        current = _sha256(target.read_bytes())
        if current == record[source.name]:
            done.unchanged.append(source.name)
        elif current == written_before.get(source.name):
            target.write_bytes(data)
            done.updated.append(source.name)
        elif force:
            shutil.copy2(target, target.with_name(target.name + ".bak"))
            target.write_bytes(data)
            done.replaced.append(source.name)
        else:
            done.kept.append(source.name)
            record[source.name] = written_before.get(source.name, "")  # still the learner's
    manifest_path.write_text(json.dumps({"version": version(), "lang": lang, "files": record}, indent=1) + "\n")
    return done
