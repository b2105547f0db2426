"""Lessons 12 and 13: typical wrong answers to each exercise are rejected with a specific hint.

Each row edits the solution's exercise cell (a text replacement makes a wrong answer),
runs the cells up to the exercise's check in this process (no kernel), and asserts the
check fails and its message and hints contain the expected words.
"""

from pathlib import Path

import matplotlib
import nbformat
import pytest

matplotlib.use("Agg")

SOLUTIONS = Path(__file__).resolve().parents[2] / "lessons" / "solutions"
LESSONS = {"12": "12_recurrent.ipynb", "13": "13_attention.ipynb"}

# (lesson, check variable, (text in the solution, wrong replacement), words the verdict must contain)
TABLE = [
    ("12", "cell_check", ("np.tanh(x @ W_ih.T + h @ W_hh.T + b)", "np.tanh(x @ W_ih.T + h @ W_hh.T)"), "differ"),
    ("12", "cell_check", ("return np.tanh(x @ W_ih.T", "np.tanh(x @ W_ih.T"), "forget `return`"),
    ("12", "bptt_check", ("(grad_hs[t] + dh_next) * (1", "grad_hs[t] * (1"), "item"),  # forgot the recurrence
    ("12", "bptt_check", ("dW_hh += da.T @ hs[t]", "dW_hh += da.T @ hs[t + 1]"), "item 1"),
    ("12", "lstm_check", ("c_new = f * c + i * g", "c_new = i * c + f * g"), "item"),
    ("12", "lstm_check", ("return o * np.tanh(c_new), c_new", "return [o * np.tanh(c_new), c_new]"), "return a tuple"),
    ("12", "update_check", ("return dz, grad_output * f", "return dz, grad_output"), "input 1"),
    ("12", "update_check", ("dz[:, 2 * H:3 * H] = grad_output * i * (1 - g * g)", "pass"), "input 0"),
    ("13", "ln_check", ("- xhat * (gh * xhat).sum(axis=-1, keepdims=True))", ")"), "input 0"),
    ("13", "ln_check", ("grad_output.sum(axis=rows), None, None", "grad_output, None, None"), "shape"),
    ("13", "mask_check", ("np.tril(np.ones((T, T), dtype=bool))", "np.triu(np.ones((T, T), dtype=bool))"), "expected"),
    ("13", "attn_check", ("/ math.sqrt(d)\n    scores = np.where", "\n    scores = np.where"), "differ"),
    ("13", "attn_bw_check", ("return grad_s @ k * scale,", "return grad_s @ k,"), "constant factor"),
    ("13", "attn_bw_check", ("grad_s = p * (grad_p - (grad_p * p).sum(axis=-1, keepdims=True))", "grad_s = p * grad_p"),
     "input"),
]


def _run_until(lesson, variable, old, new):
    """Execute the lesson's code cells, with ``old`` replaced in its cell, until ``variable`` exists."""
    nb = nbformat.read(SOLUTIONS / LESSONS[lesson], as_version=4)
    namespace = {"__name__": "__lesson__"}
    replaced = False
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        source = cell.source
        if old in source:
            source, replaced = source.replace(old, new, 1), True
        if "NBVAL_IGNORE_OUTPUT" in source and replaced:
            continue
        exec(compile(source, f"<lesson {lesson}>", "exec"), namespace)
        if variable in namespace:
            assert replaced, f"{old!r} not found before the check {variable}"
            return namespace[variable]
    raise AssertionError(f"no cell defines {variable}")


def run_solution(lesson, variable):
    """The check ``variable``'s result for the solution as written: the cells run until it exists."""
    nb = nbformat.read(SOLUTIONS / LESSONS[lesson], as_version=4)
    namespace = {"__name__": "__lesson__"}
    for cell in nb.cells:
        if cell.cell_type == "code":
            exec(compile(cell.source, f"<lesson {lesson}>", "exec"), namespace)
            if variable in namespace:
                return namespace[variable]
    raise AssertionError(f"no cell defines {variable}")


IDS = [f"{row[0]}-{row[1]}-{i}" for i, row in enumerate(TABLE)]


@pytest.mark.parametrize("lesson, variable, edit, words", TABLE, ids=IDS)
def test_wrong_answer_is_rejected_with_a_hint(lesson, variable, edit, words):
    result = _run_until(lesson, variable, *edit)
    assert not result.passed, f"the wrong answer {edit[1]!r} passed"
    text = repr(result) + " " + str(getattr(result, "message", "")) + " " + str(getattr(result, "note", ""))
    assert words.lower() in text.lower(), text[:800]
