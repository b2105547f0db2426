"""The scoreboard: which exercises of this lesson pass, fail or are not done yet.

Every ``check_backward`` / ``check_function`` call records its latest result here under
its name. At the end of a lesson::

    from widgets import lesson_score
    lesson_score(["Mul.backward", "broadcast shape", "topological sort"])

shows one line per exercise (those never checked count as "not done").
"""

import html

from widgets import style

# exercise name -> the latest CheckResult, in the order exercises were first checked
_RESULTS = {}


def record(result):
    """Remember ``result`` as the latest attempt at exercise ``result.name``."""
    _RESULTS[result.name] = result


def reset():
    """Forget every recorded result (a fresh start for the lesson)."""
    _RESULTS.clear()


class Scoreboard:
    """Passed / failed / not done per exercise; shows as a small table in a notebook."""

    def __init__(self, expected=None):
        if isinstance(expected, str) or (expected is not None and not hasattr(expected, "__iter__")):
            raise TypeError(f"lesson_score: expected must be a list of exercise names, got {expected!r}; "
                            f"for one exercise write lesson_score([{expected!r}])")
        names = list(expected) if expected is not None else list(_RESULTS)
        bad = [n for n in names if not isinstance(n, str)]
        if bad:
            raise TypeError(f"lesson_score: exercise names must be strings (as given to the checks), got {bad[0]!r}")
        self.statuses = {n: (_RESULTS[n].status if n in _RESULTS else "not done") for n in names}

    def count(self, status):
        """How many exercises have ``status`` ("passed", "failed" or "not done")."""
        return sum(1 for s in self.statuses.values() if s == status)

    @property
    def summary(self):
        return (f"{self.count('passed')} of {len(self.statuses)} exercises passed, "
                f"{self.count('failed')} failed, {self.count('not done')} not done")

    def __repr__(self):
        return "\n".join([self.summary] + [f"  {s:>8}  {n}" for n, s in self.statuses.items()])

    def _repr_html_(self):
        colours = {"passed": style.PASS_COLOUR, "failed": style.FAIL_COLOUR, "not done": style.TODO_COLOUR}
        rows = "".join(
            f'<tr><td style="padding:2px 8px">{html.escape(n)}</td>'
            f'<td style="padding:2px 8px;color:{colours.get(s, "#000")};font-weight:bold">{s}</td></tr>'
            for n, s in self.statuses.items()
        )
        return (f'<div class="minitorch-scoreboard" style="font-family:sans-serif"><b>{self.summary}</b>'
                f'<table style="border-collapse:collapse">{rows}</table></div>')


def lesson_score(expected=None):
    """A ``Scoreboard`` of the exercises in ``expected`` (default: every exercise checked so far)."""
    return Scoreboard(expected)
