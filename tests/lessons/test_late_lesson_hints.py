"""Lessons 14, 15 and 18: typical wrong answers to each exercise are rejected with a hint naming the mistake.

Each row edits the solution's exercise cell (text replacements make a wrong answer), runs
the lesson's first cell (its imports), the edited exercise and the exercise's check cell in
this process (no kernel), and asserts the check fails with a hint containing the expected
words. The cells in between (plots, a training run, MPI launches) are not needed by the
checks, so they are skipped: the whole table takes a few seconds. Under ``widgets.set_language("zh")``
every lesson-18 hint is Chinese.
"""

import os
import re
from pathlib import Path

import matplotlib
import nbformat
import pytest

matplotlib.use("Agg")

SOLUTIONS = Path(__file__).resolve().parents[2] / "lessons" / "solutions"

UNSCALE = "    for g in grads:\n        g /= scale                                 # 2. unscale (float32: no underflow here)\n"
INF_CHECK = ("    if not all(np.isfinite(g.numpy()).all() for g in grads):\n"
             "        return False                               # 3. an inf/NaN would ruin the weights: skip\n")
RS_RANGE = "for s in range(size - 1):  # reduce-scatter"
AG_RANGE = "for s in range(size - 1):  # all-gather"
RING_BODY = ("    for s in range(size - 1):  # reduce-scatter\n"
             "        received = comm.sendrecv(chunks[(rank - s) % size], dest=right, source=left)\n"
             "        chunks[(rank - s - 1) % size] = chunks[(rank - s - 1) % size] + received\n"
             "    for s in range(size - 1):  # all-gather\n"
             "        chunks[(rank - s) % size] = comm.sendrecv(chunks[(rank + 1 - s) % size], dest=right, source=left)\n")

Y_LINE = "comm.allreduce(h @ w2.T) + b2"
GRAD_X_LINE = "comm.allreduce(grad_h @ w1)"
WARMUP = "num_stages - stage)"
STEADY = 'actions += [("B", k), ("F", warmup + k)]'
DRAIN = '    actions += [("B", k) for k in range(n_microbatches - warmup, n_microbatches)]   # drain\n'
SHARD_IF = ("        if i % comm.size == comm.rank:                                 # 1. this rank's shard\n"
            "            adam_update(")
UPDATE_LOOP = ("    for i, (p, g) in enumerate(zip(params, grads)):\n" + SHARD_IF
               + "p, g, states.setdefault(i, adam_state(p)), lr)  # 2. update it, its state kept here only\n")
BROADCAST_LOOP = ("    for i, p in enumerate(params):\n"
                  "        p[...] = comm.bcast(p, root=i % comm.size)                     # 3. every parameter, from its owner\n")

# (lesson, check variable, [(text in the exercise cell, replacement)], words the hints must contain)
TABLE = [
    # 14, exercise 1: one step with a fixed loss scale
    ("14", "scaled_step_check", [(UNSCALE, "")], "still multiplied by the scale"),
    ("14", "scaled_step_check", [("g /= scale", "g = g / scale")], "still multiplied by the scale"),
    ("14", "scaled_step_check", [("g /= scale", "g *= scale")], "you multiplied them by it"),
    ("14", "scaled_step_check", [("(loss * scale).backward()", "loss.backward()")], "multiply the loss by the scale"),
    ("14", "scaled_step_check", [(INF_CHECK, "")], "yet the step was taken"),
    ("14", "scaled_step_check", [(INF_CHECK, ""), ("    optimizer.step()\n", "    optimizer.step()\n" + INF_CHECK)],
     "yet the step was taken"),
    ("14", "scaled_step_check", [(UNSCALE, ""), ("    optimizer.step()\n", "    optimizer.step()\n" + UNSCALE)],
     "after unscaling"),
    ("14", "scaled_step_check", [("    return True\n", "")], "return True when the step was taken"),
    ("14", "scaled_step_check", [("np.isfinite(g.numpy()).all()", "not np.isnan(g.numpy()).any()")],
     "np.isnan misses inf"),  # the overflow case of 2**30 holds NaN too: a case with inf only catches it
    ("14", "scaled_step_check", [("np.isfinite(g.numpy()).all()", "not np.isinf(g.numpy()).any()")],
     "np.isinf misses NaN"),
    ("14", "scaled_step_check", [("all(np.isfinite(g.numpy()).all() for g in grads)",
                                  "np.isfinite(grads[0].numpy()).all()")], "not in parameter 0 (test every gradient)"),
    ("14", "scaled_step_check", [(UNSCALE + INF_CHECK, INF_CHECK + UNSCALE)], "you tested for inf/NaN before unscaling"),
    ("14", "scaled_step_check", [("g /= scale  ", "g /= scale; g /= scale  ")], "did you unscale twice"),
    # 14, exercise 2: the dynamic scale rule
    ("14", "rule_check", [("growth_tracker == growth_interval", "growth_tracker > growth_interval")],
     "did not grow"),
    ("14", "rule_check", [("growth_tracker == growth_interval", "growth_tracker + 1 == growth_interval")],
     "grew before growth_interval"),
    ("14", "rule_check", [("return scale * growth_factor, 0", "return scale * growth_factor, growth_tracker")],
     "after growing, the tracker restarts at 0"),
    ("14", "rule_check", [("return scale * backoff_factor, 0", "return scale * backoff_factor, growth_tracker")],
     "after an inf/NaN step the tracker restarts at 0"),
    ("14", "rule_check", [("if found_inf:", "if not found_inf:")], "shrank the scale on a clean step"),
    ("14", "rule_check", [("scale * backoff_factor", "scale / backoff_factor")], "grew the scale after an inf/NaN"),
    ("14", "rule_check", [("scale * backoff_factor", "scale * 0.5")], "use backoff_factor"),
    ("14", "rule_check", [("growth_tracker == growth_interval", "growth_tracker == 2000")],
     "use the growth_interval argument"),
    ("14", "rule_check", [("scale * growth_factor, 0", "scale * 2, 0")], "use growth_factor"),
    # 15, exercise 1: average the gradients
    ("15", "average_check", [("comm.allreduce(g) / comm.size", "comm.allreduce(g)")], "forgot to divide"),
    ("15", "average_check", [("comm.allreduce(g) / comm.size", "comm.allreduce(g) / len(grads)")],
     "you divided the sum by 2"),
    ("15", "average_check", [("comm.allreduce(g) / comm.size", "comm.allreduce(g) / (comm.size - 1)")],
     "divide by comm.size"),
    ("15", "average_check", [("return [comm.allreduce(g) / comm.size for g in grads]",
                              "return [comm.allreduce(grads[0]) / comm.size] + grads[1:]")],
     "gradient 0 is right but gradient 1 is not"),
    ("15", "average_check", [("return [comm.allreduce(g) / comm.size for g in grads]",
                              "for g in grads:\n        g = comm.allreduce(g) / comm.size\n    return grads")],
     "each rank kept its own gradients"),
    ("15", "average_check", [("[comm.allreduce(g) / comm.size for g in grads]",
                              "(comm.allreduce(g) / comm.size for g in grads)")],
     "returned a generator: return a list"),
    ("15", "average_check", [("return [comm.allreduce(g) / comm.size for g in grads]",
                              "return [sum(comm.allreduce(g) for g in grads) / comm.size]")],
     "returned 1 array(s) for 2 gradients"),
    ("15", "average_check", [("return [comm.allreduce(g) / comm.size for g in grads]",
                              "for g in grads:\n        g[...] = comm.allreduce(g) / comm.size\n    return grads")],
     "you averaged in place"),
    ("15", "average_check", [("comm.allreduce(g) / comm.size", "comm.allreduce(g) / (comm.rank + 1)")],
     "did you divide by comm.rank + 1"),
    # 15, exercise 2: the ring all-reduce
    ("15", "ring_check", [("chunks[(rank - s - 1) % size] = chunks[(rank - s - 1) % size] + received",
                           "chunks[(rank - s) % size] = chunks[(rank - s) % size] + received")],
     "into chunk (rank - s - 1) % size"),
    ("15", "ring_check", [("comm.sendrecv(chunks[(rank + 1 - s) % size]", "comm.sendrecv(chunks[(rank - s) % size]")],
     "off by one"),
    ("15", "ring_check", [(RS_RANGE, "for s in range(size - 2):")], "size - 1 steps"),
    ("15", "ring_check", [(AG_RANGE, "for s in range(size - 2):")], "size - 1 steps"),
    ("15", "ring_check", [("comm.sendrecv(chunks[(rank - s) % size]", "comm.sendrecv(chunks[(rank - s - 1) % size]"),
                          ("chunks[(rank - s - 1) % size] = chunks[(rank - s - 1) % size] + received",
                           "chunks[(rank - s) % size] = chunks[(rank - s) % size] + received")],
     "into chunk (rank - s - 1) % size"),  # sent and stored chunk indices swapped
    ("15", "ring_check", [("chunks[(rank - s - 1) % size] + received", "received")], "only part of the sum"),
    ("15", "ring_check", [("return np.concatenate(chunks)", "return chunks")], "return one array (np.concatenate(chunks))"),
    ("15", "ring_check", [(RING_BODY, "    return comm.allreduce(x)")], "you called comm.allreduce"),
    ("15", "ring_check", [("received = comm.sendrecv(chunks[(rank - s) % size], dest=right, source=left)",
                           "comm.send(chunks[(rank - s) % size], dest=right)\n        received = comm.recv(source=left)")],
     "the deadlock the text warns about"),
    ("15", "ring_check", [("chunks[(rank - s) % size] = comm.sendrecv(", "chunks[(rank - s) % size] += comm.sendrecv(")],
     "the all-gather must replace its chunk"),
    ("15", "ring_check", [(RS_RANGE, "for s in range(size):")], "each phase runs size - 1 steps"),
    ("15", "ring_check", [("chunks[(rank - s) % size] = comm.sendrecv(chunks[(rank + 1 - s) % size]",
                           "chunks[(rank - s) % size] = comm.sendrecv(chunks[(rank - s) % size]")],
     "a chunk index is off by one"),  # the all-gather sends the wrong chunk
    # 18, exercise 1: the two all-reduces of the Megatron MLP
    ("18", "megatron_check", [(Y_LINE, "h @ w2.T + b2")], "only this rank's partial product"),
    ("18", "megatron_check", [(Y_LINE, "comm.allreduce(h @ w2.T + b2)")], "y holds b2 2 times instead of once"),
    ("18", "megatron_check", [(Y_LINE, "comm.allreduce(h @ w2.T) / comm.size + b2")],
     "the average of the ranks' products"),
    ("18", "megatron_check", [(Y_LINE, "comm.allreduce(h) @ w2.T + b2")], "you all-reduced h"),
    ("18", "megatron_check", [(GRAD_X_LINE, "grad_h @ w1")], "grad_x on rank 0 is only this rank's share"),
    ("18", "megatron_check", [(GRAD_X_LINE, "comm.allreduce(grad_h @ w1) / comm.size")],
     "grad_x is the average of the ranks' shares"),
    ("18", "megatron_check", [(GRAD_X_LINE, GRAD_X_LINE + "\n    comm.allreduce(h)")], "made 3 all-reduce(s)"),
    ("18", "megatron_check", [("return y, grad_x", "return y")], "return a tuple of two arrays"),
    # 18, exercise 2: the 1F1B order
    ("18", "order_check", [("warmup = min(n_microbatches, num_stages - stage)", "warmup = n_microbatches")],
     "this is GPipe's order"),
    ("18", "order_check", [(WARMUP, "num_stages - stage + 1)")], "microbatches in flight at once, 1F1B at most"),
    ("18", "order_check", [(STEADY, 'actions += [("F", warmup + k), ("B", k)]')],
     "microbatches in flight at once, 1F1B at most"),
    ("18", "order_check", [(WARMUP, "stage + 1)")], "the order deadlocks"),
    ("18", "order_check", [(WARMUP, "num_stages - stage - 1)")], "runs B 0 before F 0"),
    ("18", "order_check", [(DRAIN, "")], "never runs B 2: every forward and backward runs exactly once"),
    ("18", "order_check", [('("F", warmup + k)', '("F", warmup + k + 1)')], "runs exactly once"),
    # 18, exercise 3: the ZeRO-1 step
    ("18", "zero_check", [(SHARD_IF, "        adam_update(")], "keeps Adam's state for all 5 parameters"),
    ("18", "zero_check", [(BROADCAST_LOOP, "")], "is stale: only its owner"),
    ("18", "zero_check", [("root=i % comm.size", "root=comm.rank")], "from its owner, root=i % comm.size"),
    ("18", "zero_check", [("comm.bcast(p, root=i % comm.size)", "comm.allreduce(p)")],
     "you all-reduced the parameters"),
    ("18", "zero_check", [(UPDATE_LOOP + BROADCAST_LOOP, BROADCAST_LOOP + UPDATE_LOOP)], "one step behind"),
    ("18", "zero_check", [("p[...] = comm.bcast", "p = comm.bcast")], "never changed although you broadcast it"),
    ("18", "zero_check", [("states.setdefault(i, adam_state(p))", "adam_state(p)")], "the states stayed empty"),
]

_SETUP = {}


def _code_cells(lesson):
    path = next(SOLUTIONS.glob(f"{lesson}_*.ipynb"))
    return [c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]


def run_row(lesson, var, edits):
    """The check ``var``'s result after the lesson's imports, the edited exercise and the check cell ran."""
    cells = _code_cells(lesson)
    check = next(i for i, s in enumerate(cells) if f"\n{var} = " in "\n" + s and "### BEGIN SOLUTION" not in s)
    exercise = [s for s in cells[:check] if "### BEGIN SOLUTION" in s][-1]
    for old, new in edits:
        assert old in exercise, f"{old!r} not in the exercise cell"
        exercise = exercise.replace(old, new)
    cwd = os.getcwd()
    os.chdir(SOLUTIONS)
    try:
        if lesson not in _SETUP:
            _SETUP[lesson] = {"display": lambda *a, **k: None, "__name__": "__main__"}
            exec(compile(cells[0], f"<{lesson} imports>", "exec"), _SETUP[lesson])
        ns = dict(_SETUP[lesson])
        exec(compile(exercise, "<wrong answer>", "exec"), ns)
        exec(compile(cells[check], "<check cell>", "exec"), ns)
    finally:
        os.chdir(cwd)
    return ns[var]


@pytest.mark.parametrize("lesson, var, edits, words", TABLE, ids=[f"{r[0]}-{r[1]}-{i}" for i, r in enumerate(TABLE)])
def test_wrong_answer_gets_its_hint(lesson, var, edits, words):
    result = run_row(lesson, var, edits)
    assert result.status == "failed", f"the wrong answer passed: {edits}"
    hints = " | ".join(r.hint for r in result.rows if not r.ok) + " | " + result.error
    assert words in hints, hints


@pytest.mark.parametrize("lesson, var", [("14", "scaled_step_check"), ("14", "rule_check"),
                                         ("15", "average_check"), ("15", "ring_check"), ("18", "megatron_check"),
                                         ("18", "order_check"), ("18", "zero_check")])
def test_the_solution_passes(lesson, var):
    result = run_row(lesson, var, [])
    assert result.passed, repr(result)


def test_every_exercise_has_rows():
    """Every check that lesson_score counts in lessons 14, 15 and 18 has rows in the table."""
    checked = {(row[0], row[1]) for row in TABLE}
    assert checked == {("14", "scaled_step_check"), ("14", "rule_check"), ("15", "average_check"),
                       ("15", "ring_check"), ("18", "megatron_check"), ("18", "order_check"), ("18", "zero_check")}


CJK = re.compile("[\u4e00-\u9fff]")
LESSON_18_ROWS = [(i, row) for i, row in enumerate(TABLE) if row[0] == "18"]


@pytest.mark.parametrize("lesson, var, edits, words", [row for _, row in LESSON_18_ROWS],
                         ids=[f"{r[0]}-{r[1]}-{i}" for i, r in LESSON_18_ROWS])
def test_lesson_18s_wrong_answers_get_chinese_hints_in_the_chinese_course(lesson, var, edits, words):
    import widgets

    widgets.set_language("zh")
    try:
        result = run_row(lesson, var, edits)
    finally:
        widgets.set_language("en")
    assert result.status == "failed", repr(result)
    hints = [r.hint for r in result.rows if not r.ok and r.hint] + ([result.error] if result.error else [])
    assert hints and all(CJK.search(h) for h in hints), f"an English hint in the Chinese course: {hints}"
