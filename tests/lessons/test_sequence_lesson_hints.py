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
    ("12", "cell_check", ("np.tanh(x @ W_ih.T + h @ W_hh.T + b)", "np.tanh(x @ W_ih.T + h @ W_hh.T)"), "the bias b is missing"),
    ("12", "cell_check", ("return np.tanh(x @ W_ih.T", "np.tanh(x @ W_ih.T"), "forget `return`"),
    ("12", "cell_check", ("np.tanh(x @ W_ih.T + h @ W_hh.T + b)", "np.tanh(x @ W_ih.T + b)"),
     "the recurrent term is missing"),
    ("12", "cell_check", ("np.tanh(x @ W_ih.T + h @ W_hh.T + b)", "np.tanh(x @ W_ih.T + h @ W_hh + b)"),
     "W_hh is not transposed"),
    ("12", "cell_check", ("return np.tanh(x @ W_ih.T + h @ W_hh.T + b)",
                          "h @= W_hh.T\n    return np.tanh(x @ W_ih.T + h + b)"), "changed its input `h` in place"),
    ("12", "bptt_check", ("(grad_hs[t] + dh_next) * (1", "grad_hs[t] * (1"), "the gradient flowing back through h"),
    ("12", "bptt_check", ("dW_hh += da.T @ hs[t]", "dW_hh += da.T @ hs[t + 1]"), "dW_hh uses the new state"),
    ("12", "bptt_check", ("da = (grad_hs[t] + dh_next) * (1 - hs[t + 1] ** 2)", "da = grad_hs[t] + dh_next"),
     "the tanh derivative is missing"),
    ("12", "bptt_check", ("dh_next = da @ W_hh", "dh_next = da @ W_hh.T"), "not W_hh.T"),
    ("12", "lstm_check", ("c_new = f * c + i * g", "c_new = i * c + f * g"), "f and i are swapped"),
    ("12", "lstm_check", ("return o * np.tanh(c_new), c_new", "return [o * np.tanh(c_new), c_new]"), "return a tuple"),
    ("12", "lstm_check", ("i, f, g, o = sigmoid(z[:, :H]), sigmoid(z[:, H:2 * H]), np.tanh(z[:, 2 * H:3 * H]), "
                          "sigmoid(z[:, 3 * H:])",
                          "i, f, o, g = sigmoid(z[:, :H]), sigmoid(z[:, H:2 * H]), sigmoid(z[:, 2 * H:3 * H]), "
                          "np.tanh(z[:, 3 * H:])"), "the gates are read in the order i, f, o, g"),
    ("12", "lstm_check", ("return o * np.tanh(c_new), c_new", "return o * c_new, c_new"),
     "the tanh of the cell state is missing"),
    ("12", "lstm_check", ("c_new = f * c + i * g", "c *= f\n    c += i * g\n    c_new = c"), "changed its input `c`"),
    ("12", "update_check", ("return dz, grad_output * f", "return dz, grad_output"), "the gradient reaching the old c"),
    ("12", "update_check", ("dz[:, 2 * H:3 * H] = grad_output * i * (1 - g * g)", "pass"), "input 0"),
    ("12", "update_check", ("return dz, grad_output * f", "grad_output *= f\n        return dz, grad_output"),
     "changed grad_output in place"),
    ("12", "update_check", ("dz[:, :H] = grad_output * g * i * (1 - i)", "dz[:, :H] = grad_output * g"),
     "lacks the sigmoid derivative"),
    ("12", "update_check", ("dz[:, 2 * H:3 * H] = grad_output * i * (1 - g * g)",
                            "dz[:, 2 * H:3 * H] = grad_output * (1 - g * g)"), "lacks the factor i"),
    ("13", "ln_check", ("- xhat * (gh * xhat).sum(axis=-1, keepdims=True))", ")"), "the variance term is missing"),
    ("13", "ln_check", ("grad_output.sum(axis=rows), None, None", "grad_output, None, None"), "did you reduce"),
    ("13", "ln_check", ("gh = grad_output * w", "gh = grad_output"), "multiply grad_output by w first"),
    ("13", "ln_check", ("M * gh - gh.sum(axis=-1, keepdims=True)", "M * gh"), "the mean term is missing"),
    ("13", "mask_check", ("np.tril(np.ones((T, T), dtype=bool))", "np.triu(np.ones((T, T), dtype=bool))"),
     "true above the diagonal"),
    ("13", "mask_check", ("np.tril(np.ones((T, T), dtype=bool))", "np.tril(np.ones((T, T), dtype=bool), -1)"),
     "the diagonal is false"),
    ("13", "mask_check", ("np.tril(np.ones((T, T), dtype=bool))", "np.tril(np.ones((T, T)))"), "a mask is bool"),
    ("13", "mask_check", ("np.tril(np.ones((T, T), dtype=bool))", "np.tril(np.ones((T, T), dtype=bool)).tolist()"),
     "returned a list"),
    ("13", "mask_check", ("np.tril(np.ones((T, T), dtype=bool))", "(r for r in np.tril(np.ones((T, T), dtype=bool)))"),
     "returned a generator"),
    ("13", "attn_check", ("/ math.sqrt(d)\n    scores = np.where", "\n    scores = np.where"),
     "not divided by sqrt(d)"),
    ("13", "attn_check", ("/ math.sqrt(d)\n    scores = np.where", "* math.sqrt(d)\n    scores = np.where"),
     "multiplied the scores by sqrt(d)"),
    ("13", "attn_check", ("    scores = np.where(np.tril(np.ones((T, T), dtype=bool)), scores, -np.inf)\n    e = np.exp",
                          "    e = np.exp"), "no causal mask"),
    ("13", "attn_check", ("scores.max(axis=-1, keepdims=True))\n    return (e / e.sum(axis=-1,",
                          "scores.max(axis=-2, keepdims=True))\n    return (e / e.sum(axis=-2,"), "over the queries"),
    ("13", "attn_check", ("e = np.exp(scores - scores.max(axis=-1, keepdims=True))\n    return",
                          "e = np.exp(scores)\n    return"), "subtract each row's max"),
    ("13", "attn_check", ("dtype=bool)), scores, -np.inf)\n    e = np.exp(scores - scores.max(axis=-1, keepdims=True))\n    return",
                          "dtype=bool), -1), scores, -np.inf)\n    e = np.exp(scores - scores.max(axis=-1, keepdims=True))\n"
                          "    return"), "the mask hides the diagonal"),
    ("13", "attn_check", ("    scores = np.where(np.tril(np.ones((T, T), dtype=bool)), scores, -np.inf)\n"
                          "    e = np.exp(scores - scores.max(axis=-1, keepdims=True))\n"
                          "    return (e / e.sum(axis=-1, keepdims=True)) @ v",
                          "    e = np.exp(scores - scores.max(axis=-1, keepdims=True))\n"
                          "    return (e / e.sum(axis=-1, keepdims=True) * np.tril(np.ones((T, T)))) @ v"),
     "applied after the softmax"),
    ("13", "attn_bw_check", ("return grad_s @ k * scale,", "return grad_s @ k,"), "1/sqrt(d) of the scores is missing"),
    ("13", "attn_bw_check", ("grad_s = p * (grad_p - (grad_p * p).sum(axis=-1, keepdims=True))", "grad_s = p * grad_p"),
     "lacks the row sum"),
    ("13", "attn_bw_check", ("scale = 1 / math.sqrt(q.shape[-1])", "scale = math.sqrt(q.shape[-1])"),
     "you multiplied by sqrt(d)"),
    ("13", "attn_bw_check", ("scale = 1 / math.sqrt(q.shape[-1])", "scale = 1"), "1/sqrt(d) of the scores is missing"),
    ("13", "attn_bw_check", ("scale = 1 / math.sqrt(q.shape[-1])", "scale = 1 / np.sqrt(q.shape[-1])"),
     "np.sqrt of a python int"),
    ("13", "attn_bw_check", ("grad_v = np.swapaxes(p, -1, -2) @ grad_output", "grad_v = p @ grad_output"),
     "swap the last two axes of p"),
    # issue 39: a learner walk over lessons 12-16 found these answers told only "values differ", or the
    # wrong mistake
    ("12", "cell_check", ("np.tanh(x @ W_ih.T + h @ W_hh.T + b)", "np.tanh(x @ W_ih.T + h @ W_hh.T) + b"),
     "the bias is added after the tanh"),
    ("12", "bptt_check", ("* (1 - hs[t + 1] ** 2)", "* (1 - hs[t] ** 2)"), "the tanh derivative uses the state before"),
    ("12", "bptt_check", ("for t in reversed(range(len(xs))):", "for t in range(len(xs)):"),
     "the loop walks forward in time"),
    ("12", "bptt_check", ("        dW_ih += da.T @ xs[t]\n        dW_hh += da.T @ hs[t]\n"
                          "        db += da.sum(axis=0)\n",
                          "        dW_ih = da.T @ xs[t]\n        dW_hh = da.T @ hs[t]\n        db = da.sum(axis=0)\n"),
     "hold only one step's contribution"),
    ("12", "bptt_check", ("        dW_ih += da.T @ xs[t]\n", "        dW_ih = da.T @ xs[t]\n"),
     "dW_ih hold(s) only one step's contribution"),
    ("12", "lstm_check", ("return o * np.tanh(c_new), c_new", "return c_new, o * np.tanh(c_new)"),
     "returned (c_new, h_new)"),
    ("12", "lstm_check", ("c_new = f * c + i * g", "c_new = f * c + g"), "the input gate is missing"),
    ("12", "update_check", ("grad_output * i * (1 - g * g)", "grad_output * i * (1 - g)"), "not 1 - g"),
    ("13", "attn_check", ("    scores = np.where(np.tril(np.ones((T, T), dtype=bool)), scores, -np.inf)\n"
                          "    e = np.exp(scores - scores.max(axis=-1, keepdims=True))\n"
                          "    return (e / e.sum(axis=-1, keepdims=True)) @ v",
                          "    e = np.exp(scores - scores.max(axis=-1, keepdims=True))\n"
                          "    p = e / e.sum(axis=-1, keepdims=True) * np.tril(np.ones((T, T)))\n"
                          "    return (p / p.sum(axis=-1, keepdims=True)) @ v"),
     "masking after the softmax and renormalising divides 0 by 0"),  # was: "np.exp overflowed"
    ("13", "attn_bw_check", ("return grad_s @ k * scale, np.swapaxes(grad_s, -1, -2) @ q * scale, grad_v",
                             "return grad_s @ k / np.sqrt(q.shape[-1]), np.swapaxes(grad_s, -1, -2) @ q / "
                             "np.sqrt(q.shape[-1]), grad_v"),
     "np.sqrt(...) of a Python number"),  # was: blamed np.ones/np.zeros
    ("13", "attn_bw_check", ("grad_s = p * (grad_p - (grad_p * p).sum(axis=-1, keepdims=True))\n"
                             "        return grad_s @ k * scale, np.swapaxes(grad_s, -1, -2) @ q * scale, grad_v",
                             "grad_s = p * (grad_p - (grad_p * p).sum(axis=-1, keepdims=True)) / np.sqrt(q.shape[-1])\n"
                             "        return grad_s @ k, np.swapaxes(grad_s, -1, -2) @ q, grad_v"),
     "`grad_s` became float64 because np.sqrt(...)"),
    ("13", "mask_check", ("np.tril(np.ones((T, T), dtype=bool))",
                          "np.where(np.tril(np.ones((T, T), dtype=bool)), 0.0, -np.inf)"), "an additive mask"),
    ("13", "ln_check", ("(M * gh - gh.sum(axis=-1, keepdims=True)\n"
                        "                               - xhat * (gh * xhat).sum(axis=-1, keepdims=True))", "M * gh"),
     "the mean and the variance terms are both missing"),
    ("13", "attn_bw_check", ("np.swapaxes(grad_s, -1, -2) @ q * scale", "grad_s @ q * scale"),
     "swap the last two axes of grad_s"),
    ("13", "attn_bw_check", ("(grad_p * p).sum(axis=-1, keepdims=True)", "(grad_p * p).sum(axis=-2, keepdims=True)"),
     "row sum runs over axis -2"),
    ("13", "attn_check", ("/ math.sqrt(d)\n    scores = np.where", "/ math.sqrt(T)\n    scores = np.where"),
     "divided the scores by sqrt(T)"),
    ("13", "attn_check", ("scores = np.where(np.tril(np.ones((T, T), dtype=bool)), scores, -np.inf)",
                          "scores = scores * np.tril(np.ones((T, T)))"), "masked by multiplying by 0"),
]

# Right answers written differently: each must pass.
RIGHT = [
    ("12", "lstm_check", ("c_new = f * c + i * g", "c_new = c * f + g * i")),
    ("12", "bptt_check", ("for t in reversed(range(len(xs))):", "for t in range(len(xs) - 1, -1, -1):")),
    ("13", "attn_check", ("scores = np.where(np.tril(np.ones((T, T), dtype=bool)), scores, -np.inf)",
                          "scores[..., np.triu(np.ones((T, T), dtype=bool), 1)] = -np.inf")),
    ("13", "attn_bw_check", ("scale = 1 / math.sqrt(q.shape[-1])", "scale = float(1 / np.sqrt(q.shape[-1]))")),
    ("13", "mask_check", ("np.tril(np.ones((T, T), dtype=bool))", "np.arange(T)[None, :] <= np.arange(T)[:, None]")),
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


@pytest.mark.parametrize("lesson, variable, edit", RIGHT, ids=[f"{r[0]}-{r[1]}-{i}" for i, r in enumerate(RIGHT)])
def test_a_right_answer_written_differently_passes(lesson, variable, edit):
    result = _run_until(lesson, variable, *edit)
    assert result.passed, repr(result)[:800]
