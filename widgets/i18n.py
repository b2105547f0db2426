"""The widgets speak the learner's language: one message catalogue, English in the code, Chinese beside it.

    from widgets.i18n import _
    hint = _("off by exactly 1/{n}: did you divide by the number of elements ({n})?", n=12)

The English text *is* the message id, so the code reads as it did and English needs no
catalogue. Other languages are gettext PO files in ``widgets/locale/`` (``zh.po``), read
once with polib the first time a message in that language is asked for. A message that has
no translation shows in English (a learner never gets a crash for it; the catalogue test,
tests/widgets/test_catalogue.py, fails instead).

A check's name ("topological sort") is data: the notebooks pass it, the scoreboard and
``progress()`` key on it in English. ``check_name(name)`` is what a table shows instead; the
catalogue collects these names from the notebooks (tools/widget_catalogue.py, "check names").

The language: ``widgets.set_language("zh")`` (the Chinese notebooks call it in their first
cell), else the environment variable ``MINITORCH_LANG`` (``zh`` or ``en``), else English.
"""

import os
import warnings
from pathlib import Path

from widgets import style

LANGUAGES = ("en", "zh")
LOCALE_DIR = Path(__file__).resolve().parent / "locale"

_chosen: str | None = None  # set_language's choice; None: MINITORCH_LANG decides
_catalogues: dict[str, dict[str, str]] = {}  # language -> {English: translation}, read on first use
_warned: set[str] = set()  # MINITORCH_LANG values already reported as unknown


def _normalise(language: str, where: str) -> str:
    """``"zh"`` for zh, zh_CN, zh-Hans...; ``"en"`` for en, en_US...; anything else is an error."""
    if not isinstance(language, str):
        raise TypeError(f"{where}: the language must be a string, one of {', '.join(LANGUAGES)}; "
                        f"got {type(language).__name__}")
    code = language.strip().replace("-", "_").split("_")[0].split(".")[0].lower()
    if code not in LANGUAGES:
        raise ValueError(f"{where}: unknown language {language!r}; choose one of {', '.join(LANGUAGES)}")
    return code


def set_language(language: str) -> None:
    """Show every widget message from now on in ``language`` ("zh" or "en")."""
    global _chosen
    _chosen = _normalise(language, "set_language")
    if _chosen != "en":
        _catalogue(_chosen)  # read it now, so a broken catalogue shows here and not in a check
    style.use_language_fonts(_chosen)


def get_language() -> str:
    """The language widgets speak now: ``set_language``'s choice, else ``MINITORCH_LANG``, else "en"."""
    if _chosen is not None:
        return _chosen
    from_env = os.environ.get("MINITORCH_LANG", "").strip()
    if not from_env:
        return "en"
    try:
        return _normalise(from_env, "MINITORCH_LANG")
    except ValueError as exc:  # a typo in the environment must not break every check: say so once
        if from_env not in _warned:
            _warned.add(from_env)
            warnings.warn(f"{exc}; the widgets speak English", stacklevel=2)
        return "en"


def _catalogue(language: str) -> dict[str, str]:
    """{English: translation} of the translated, non-fuzzy entries of ``locale/<language>.po``."""
    if language not in _catalogues:
        import polib  # only a non-English language needs it

        po = polib.pofile(str(LOCALE_DIR / f"{language}.po"))
        _catalogues[language] = {e.msgid: e.msgstr for e in po
                                 if e.msgstr and not e.obsolete and "fuzzy" not in e.flags}
    return _catalogues[language]


def _(english: str, /, **fields: object) -> str:
    """``english`` in the current language, with ``{fields}`` filled in (``str.format``: ``{{`` is a brace)."""
    language = get_language()
    text = english if language == "en" else _catalogue(language).get(english, english)
    return text.format(**fields)


def check_name(name: str) -> str:
    """A check's name as shown to the learner: its translation, else ``name`` (no ``{fields}`` are filled)."""
    language = get_language()
    return name if language == "en" else _catalogue(language).get(name, name)
