"""The label under a ``draw_graph`` picture: its notes (wrapped to the notebook's width) and the colour legend."""

import textwrap

from widgets import style
from widgets.i18n import _

NOTE_WIDTH = 110  # characters per line of a note: a 10 pt line that long fits the notebook's width


def escape(text: object) -> str:
    """``text`` safe inside Graphviz's HTML-like labels."""
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def wrapped(note: str) -> str:
    """One note as left-aligned lines of at most ``NOTE_WIDTH`` characters (a long line widens the picture).

    A Chinese character is about twice as wide as a Latin one, so a note with any is wrapped
    at half the count (and between characters: Chinese has no spaces to break at).
    """
    width = NOTE_WIDTH // 2 if any("\u4e00" <= ch <= "\u9fff" for ch in note) else NOTE_WIDTH
    return '<br align="left"/>'.join(escape(line) for line in textwrap.wrap(note, width)) + '<br align="left"/>'


def label(notes: list[str], legend: bool = True) -> str | None:
    """The graph's HTML-like label: the notes, then (``legend``) one row of colour keys; None if empty."""
    note_rows = "".join(f'<tr><td colspan="7" align="left"><font point-size="10">{wrapped(n)}</font></td></tr>'
                        for n in notes)
    if not legend:
        return f'<<table border="0">{note_rows}</table>>' if notes else None
    cells = [
        (style.PARAM_FILL, _("needs grad (leaf)")),
        (style.CONST_FILL, _("no grad")),
        (style.TENSOR_FILL, _("op result")),
        (style.ROOT_FILL, _("output")),
        (style.OP_FILL, _("op")),
        (style.YOURS_FILL, _("your backward")),
    ]
    row = "".join(
        f'<td bgcolor="{c}" border="1" color="#888888"><font point-size="9">{t}</font></td>' for c, t in cells
    )
    row += f'<td><font point-size="9" color="#08519c">{_("darker, thicker arrow = larger gradient")}</font></td>'
    return f'<<table border="0" cellspacing="4" cellpadding="2">{note_rows}<tr>{row}</tr></table>>'
