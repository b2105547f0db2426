"""The label under a ``draw_graph`` picture: its notes (wrapped to the notebook's width) and the colour legend."""

import textwrap

from widgets import style

NOTE_WIDTH = 110  # characters per line of a note: a 10 pt line that long fits the notebook's width


def escape(text: object) -> str:
    """``text`` safe inside Graphviz's HTML-like labels."""
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def wrapped(note: str) -> str:
    """One note as left-aligned lines of at most ``NOTE_WIDTH`` characters (a long line widens the picture)."""
    return '<br align="left"/>'.join(escape(line) for line in textwrap.wrap(note, NOTE_WIDTH)) + '<br align="left"/>'


def label(notes: list[str], legend: bool = True) -> str | None:
    """The graph's HTML-like label: the notes, then (``legend``) one row of colour keys; None if empty."""
    note_rows = "".join(f'<tr><td colspan="7" align="left"><font point-size="10">{wrapped(n)}</font></td></tr>'
                        for n in notes)
    if not legend:
        return f'<<table border="0">{note_rows}</table>>' if notes else None
    cells = [
        (style.PARAM_FILL, "needs grad (leaf)"),
        (style.CONST_FILL, "no grad"),
        (style.TENSOR_FILL, "op result"),
        (style.ROOT_FILL, "output"),
        (style.OP_FILL, "op"),
        (style.YOURS_FILL, "your backward"),
    ]
    row = "".join(
        f'<td bgcolor="{c}" border="1" color="#888888"><font point-size="9">{t}</font></td>' for c, t in cells
    )
    row += '<td><font point-size="9" color="#08519c">darker, thicker arrow = larger gradient</font></td>'
    return f'<<table border="0" cellspacing="4" cellpadding="2">{note_rows}<tr>{row}</tr></table>>'
