"""Lesson 18 walked as learners write it: each exercise's right answers written differently, and the wrong ones.

Issue 39 asked for lesson 18 to be tried the way lessons 12-16 were: for every exercise,
the right answer written in several ways (loops or vectorised, NumPy or MiniTorch calls,
a generator, another order of independent steps) must pass, and each wrong answer real
learners write (the all-reduce in the wrong place or missing, dividing by the world size
twice or never, a deadlocking order, an off-by-one warm-up, all parameters updated instead
of the shard, a broadcast from the wrong rank, an argument changed in place, None
returned...) must fail with a hint that names its mistake, in English and in Chinese.

A row is (check, what the learner did, the whole exercise cell as the learner wrote it,
words the hint must contain, or None for a right answer). The rows marked "fooled the
check before" are the answers that passed wrongly or failed wrongly before the checks
were fixed (widgets/lessons/lesson18_*.py). ``run_row`` (test_late_lesson_hints) runs the
lesson's first cell, the answer and the check cell, here in the test process.
"""

import re

import pytest
import test_late_lesson_hints
from test_late_lesson_hints import run_row

MEG_HEAD = """def megatron_mlp(comm, x, w1, b1, w2, b2, grad_y):
    h = np.maximum(x @ w1.T + b1, 0)
    grad_h = (grad_y @ w2) * (h > 0)
"""


def meg(body, ret="    return y, grad_x\n"):
    return MEG_HEAD + body + ret


ORD_HEAD = "def one_f_one_b(num_stages, n_microbatches, stage):\n"
ZERO_HEAD = "def zero1_step(comm, params, grads, states, lr=0.01):\n"

REF_MEG = "    y = comm.allreduce(h @ w2.T) + b2\n    grad_x = comm.allreduce(grad_h @ w1)\n"
REF_ORD = ORD_HEAD + """    warmup = min(n_microbatches, num_stages - stage)
    actions = [("F", k) for k in range(warmup)]
    for k in range(n_microbatches - warmup):
        actions += [("B", k), ("F", warmup + k)]
    actions += [("B", k) for k in range(n_microbatches - warmup, n_microbatches)]
    return actions
"""
UPD = ("    for i, (p, g) in enumerate(zip(params, grads)):\n        if i % comm.size == comm.rank:\n"
       "            adam_update(p, g, states.setdefault(i, adam_state(p)), lr)\n")
BC = "    for i, p in enumerate(params):\n        p[...] = comm.bcast(p, root=i % comm.size)\n"

ROWS = [
    # ---- exercise 1: the two all-reduces of the Megatron MLP
    ('megatron_check', 'reference',
     meg(REF_MEG),
     None),
    ('megatron_check', 'partial product named, bias added after',
     """\
def megatron_mlp(comm, x, w1, b1, w2, b2, grad_y):
    h = np.maximum(x @ w1.T + b1, 0)
    grad_h = (grad_y @ w2) * (h > 0)
    partial = h @ w2.T
    y = comm.allreduce(partial)
    y = y + b2
    dx = comm.allreduce(grad_h @ w1)
    return y, dx
""",
     None),
    ('megatron_check', 'bias divided by size inside the sum',
     meg("    y = comm.allreduce(h @ w2.T + b2 / comm.size)\n    grad_x = comm.allreduce(grad_h @ w1)\n"),
     None),
    ('megatron_check', 'bias added by rank 0 only, inside the sum',
     """\
def megatron_mlp(comm, x, w1, b1, w2, b2, grad_y):
    h = np.maximum(x @ w1.T + b1, 0)
    grad_h = (grad_y @ w2) * (h > 0)
    y = comm.allreduce(h @ w2.T + (b2 if comm.rank == 0 else 0))
    grad_x = comm.allreduce(grad_h @ w1)
    return y, grad_x
""",
     None),
    ('megatron_check', 'np.dot and np.matmul',
     meg("    y = comm.allreduce(np.dot(h, w2.T)) + b2\n    grad_x = comm.allreduce(np.matmul(grad_h, w1))\n"),
     None),
    ('megatron_check', 'einsum',
     """\
def megatron_mlp(comm, x, w1, b1, w2, b2, grad_y):
    h = np.maximum(x @ w1.T + b1, 0)
    grad_h = (grad_y @ w2) * (h > 0)
    y = comm.allreduce(np.einsum('bh,oh->bo', h, w2)) + b2
    grad_x = comm.allreduce(np.einsum('bh,hi->bi', grad_h, w1))
    return y, grad_x
""",
     None),
    ('megatron_check', "backward's all-reduce first",
     meg("    grad_x = comm.allreduce(grad_h @ w1)\n    y = comm.allreduce(h @ w2.T) + b2\n"),
     None),
    ('megatron_check', 'a loop over the batch rows',
     """\
def megatron_mlp(comm, x, w1, b1, w2, b2, grad_y):
    h = np.maximum(x @ w1.T + b1, 0)
    grad_h = (grad_y @ w2) * (h > 0)
    y = comm.allreduce(np.stack([row @ w2.T for row in h])) + b2
    grad_x = comm.allreduce(np.array([g @ w1 for g in grad_h]))
    return y, grad_x
""",
     None),
    ('megatron_check', 'transposes written out',
     meg("    y = comm.allreduce((w2 @ h.T).T) + b2\n    grad_x = comm.allreduce((w1.T @ grad_h.T).T)\n"),
     None),
    ('megatron_check', 'in-place += of the bias on the all-reduced array',
     meg("    y = comm.allreduce(h @ w2.T)\n    y += b2\n    grad_x = comm.allreduce(grad_h @ w1)\n"),
     None),
    ('megatron_check', 'a loop over the hidden units',
     """\
def megatron_mlp(comm, x, w1, b1, w2, b2, grad_y):
    h = np.maximum(x @ w1.T + b1, 0)
    grad_h = (grad_y @ w2) * (h > 0)
    part = sum(np.outer(h[:, j], w2[:, j]) for j in range(h.shape[1]))
    y = comm.allreduce(part) + b2
    grad_x = comm.allreduce(sum(np.outer(grad_h[:, j], w1[j]) for j in range(h.shape[1])))
    return y, grad_x
""",
     None),
    ('megatron_check', 'MiniTorch tensors for the products',
     """\
def megatron_mlp(comm, x, w1, b1, w2, b2, grad_y):
    h = np.maximum(x @ w1.T + b1, 0)
    grad_h = (grad_y @ w2) * (h > 0)
    y = comm.allreduce((minitorch.tensor(h) @ minitorch.tensor(w2).T).numpy()) + b2
    grad_x = comm.allreduce((minitorch.tensor(grad_h) @ minitorch.tensor(w1)).numpy())
    return y, grad_x
""",
     None),
    ('megatron_check', 'returns a list',
     meg(REF_MEG, "    return [y, grad_x]\n"),
     None),
    ('megatron_check', 'no all-reduce in forward',
     meg("    y = h @ w2.T + b2\n    grad_x = comm.allreduce(grad_h @ w1)\n"),
     "only this rank's partial product"),
    ('megatron_check', 'bias inside the all-reduce',
     meg("    y = comm.allreduce(h @ w2.T + b2)\n    grad_x = comm.allreduce(grad_h @ w1)\n"),
     'holds b2 2 times instead of once'),
    ('megatron_check', 'forward averaged',
     meg("    y = comm.allreduce(h @ w2.T) / comm.size + b2\n    grad_x = comm.allreduce(grad_h @ w1)\n"),
     "the average of the ranks' products"),
    ('megatron_check', 'all-reduce of h',
     meg("    y = comm.allreduce(h) @ w2.T + b2\n    grad_x = comm.allreduce(grad_h @ w1)\n"),
     'you all-reduced h, but'),
    ('megatron_check', 'no all-reduce in backward',
     meg("    y = comm.allreduce(h @ w2.T) + b2\n    grad_x = grad_h @ w1\n"),
     "grad_x on rank 0 is only this rank's share"),
    ('megatron_check', 'backward averaged',
     meg("    y = comm.allreduce(h @ w2.T) + b2\n    grad_x = comm.allreduce(grad_h @ w1) / comm.size\n"),
     "grad_x is the average of the ranks' shares"),
    ('megatron_check', 'both averaged (divided by world size everywhere)',
     """\
def megatron_mlp(comm, x, w1, b1, w2, b2, grad_y):
    h = np.maximum(x @ w1.T + b1, 0)
    grad_h = (grad_y @ w2) * (h > 0)
    y = comm.allreduce(h @ w2.T) / comm.size + b2
    grad_x = comm.allreduce(grad_h @ w1) / comm.size
    return y, grad_x
""",
     "the average of the ranks' products"),
    ('megatron_check', 'a third all-reduce',
     meg(REF_MEG + "    comm.allreduce(h)\n"),
     'made 3 all-reduce(s)'),
    ('megatron_check', 'returns y only',
     meg(REF_MEG, "    return y\n"),
     'return a tuple of two arrays'),
    ('megatron_check', 'returns None',
     meg(REF_MEG, ""),
     'did you forget `return y, grad_x`'),
    ('megatron_check', 'returns (grad_x, y)',
     meg(REF_MEG, "    return grad_x, y\n"),
     'you returned (grad_x, y)'),
    ('megatron_check', 'all-reduce of grad_h',
     meg("    y = comm.allreduce(h @ w2.T) + b2\n    grad_x = comm.allreduce(grad_h) @ w1\n"),
     'you all-reduced grad_h'),
    ('megatron_check', 'w1 transposed in backward',
     meg("    y = comm.allreduce(h @ w2.T) + b2\n    grad_x = comm.allreduce(grad_h @ w1.T)\n"),
     'without a transpose'),
    ('megatron_check', 'b2 forgotten',
     meg("    y = comm.allreduce(h @ w2.T)\n    grad_x = comm.allreduce(grad_h @ w1)\n"),
     'has no bias'),
    ('megatron_check', 'b2 divided by size after the sum',
     meg("    y = comm.allreduce(h @ w2.T) + b2 / comm.size\n    grad_x = comm.allreduce(grad_h @ w1)\n"),
     'holds b2 / comm.size'),
    ('megatron_check', 'ReLU left out of y',
     meg("    y = comm.allreduce((x @ w1.T + b1) @ w2.T) + b2\n    grad_x = comm.allreduce(grad_h @ w1)\n"),
     'has no ReLU'),
    ('megatron_check', "ReLU's mask left out of backward",
     meg("    y = comm.allreduce(h @ w2.T) + b2\n    grad_x = comm.allreduce((grad_y @ w2) @ w1)\n"),
     'has no ReLU derivative'),
    ('megatron_check', 'b2 mutated in place (right values once)',
     meg("    b2 /= comm.size\n    y = comm.allreduce(h @ w2.T + b2)\n    grad_x = comm.allreduce(grad_h @ w1)\n"),
     'changed its argument b2 in place'),
    ('megatron_check', 'slices the already-sliced w2 again',
     """\
def megatron_mlp(comm, x, w1, b1, w2, b2, grad_y):
    h = np.maximum(x @ w1.T + b1, 0)
    grad_h = (grad_y @ w2) * (h > 0)
    n = w2.shape[1] // comm.size
    y = comm.allreduce(h @ w2[:, comm.rank * n:(comm.rank + 1) * n].T) + b2
    grad_x = comm.allreduce(grad_h @ w1)
    return y, grad_x
""",
     "are already this rank's slices"),
    ('megatron_check', 'sum over the ranks done by hand with allreduce of rank',
     meg("    y = h @ w2.T * comm.size + b2\n    grad_x = grad_h @ w1 * comm.size\n"),
     'this rank made no all-reduce'),
    ('megatron_check', 'all-reduce only on rank 0 (the others skip it)',
     """\
def megatron_mlp(comm, x, w1, b1, w2, b2, grad_y):
    h = np.maximum(x @ w1.T + b1, 0)
    grad_h = (grad_y @ w2) * (h > 0)
    y = comm.allreduce(h @ w2.T) + b2 if comm.rank == 0 else h @ w2.T + b2
    grad_x = comm.allreduce(grad_h @ w1)
    return y, grad_x
""",
     'the ranks summed different arrays'),
    # ---- exercise 2: the 1F1B order
    ('order_check', 'reference',
     REF_ORD,
     None),
    ('order_check', 'while loop with two counters',
     """\
def one_f_one_b(num_stages, n_microbatches, stage):
    order, f, b = [], 0, 0
    while f < min(num_stages - stage, n_microbatches):
        order.append(("F", f)); f += 1
    while b < n_microbatches:
        order.append(("B", b)); b += 1
        if f < n_microbatches:
            order.append(("F", f)); f += 1
    return order
""",
     None),
    ('order_check', "no min (the lesson's m >= p)",
     REF_ORD.replace("min(n_microbatches, num_stages - stage)", "num_stages - stage"),
     None),
    ('order_check', "PyTorch's phrasing: p - s - 1 warm-up, then F then B",
     """\
def one_f_one_b(num_stages, n_microbatches, stage):
    warmup = min(n_microbatches, num_stages - stage - 1)
    actions = [("F", k) for k in range(warmup)]
    for k in range(n_microbatches - warmup):
        actions.append(("F", warmup + k))
        actions.append(("B", k))
    return actions + [("B", k) for k in range(n_microbatches - warmup, n_microbatches)]
""",
     None),
    ('order_check', 'steady state indexed by the forward',
     """\
def one_f_one_b(num_stages, n_microbatches, stage):
    w = min(n_microbatches, num_stages - stage)
    out = [("F", k) for k in range(w)]
    for k in range(w, n_microbatches):
        out.append(("B", k - w))
        out.append(("F", k))
    for k in range(n_microbatches - w, n_microbatches):
        out.append(("B", k))
    return out
""",
     None),
    ('order_check', 'a generator function',
     """\
def one_f_one_b(num_stages, n_microbatches, stage):
    warmup = min(n_microbatches, num_stages - stage)
    yield from (("F", k) for k in range(warmup))
    for k in range(n_microbatches - warmup):
        yield ("B", k)
        yield ("F", warmup + k)
    yield from (("B", k) for k in range(n_microbatches - warmup, n_microbatches))
""",
     None),
    ('order_check', 'lists instead of tuples, a tuple returned',
     """\
def one_f_one_b(num_stages, n_microbatches, stage):
    warmup = min(n_microbatches, num_stages - stage)
    actions = [["F", k] for k in range(warmup)]
    for k in range(n_microbatches - warmup):
        actions += [["B", k], ["F", warmup + k]]
    actions += [["B", k] for k in range(n_microbatches - warmup, n_microbatches)]
    return tuple(actions)
""",
     None),
    ('order_check', 'np.arange microbatch numbers',
     """\
def one_f_one_b(num_stages, n_microbatches, stage):
    warmup = min(n_microbatches, num_stages - stage)
    actions = [("F", k) for k in np.arange(warmup)]
    for k in np.arange(n_microbatches - warmup):
        actions += [("B", k), ("F", warmup + k)]
    actions += [("B", k) for k in np.arange(n_microbatches - warmup, n_microbatches)]
    return actions
""",
     None),
    ('order_check', 'deques of forwards and backwards',
     """\
def one_f_one_b(num_stages, n_microbatches, stage):
    from collections import deque
    fs, bs = deque(range(n_microbatches)), deque(range(n_microbatches))
    actions = [("F", fs.popleft()) for _ in range(min(num_stages - stage, n_microbatches))]
    while bs:
        actions.append(("B", bs.popleft()))
        if fs:
            actions.append(("F", fs.popleft()))
    return actions
""",
     None),
    ('order_check', "GPipe's order",
     """\
def one_f_one_b(num_stages, n_microbatches, stage):
    return [("F", k) for k in range(n_microbatches)] + [("B", k) for k in range(n_microbatches)]
""",
     "this is GPipe's order"),
    ('order_check', 'warm-up one too many',
     REF_ORD.replace("num_stages - stage)", "num_stages - stage + 1)"),
     'stage 0 keeps 3 microbatches in flight at once, 1F1B at most p - s = 2'),
    ('order_check', 'warm-up one too few (B before F on the last stage)',
     REF_ORD.replace("num_stages - stage)", "num_stages - stage - 1)"),
     'runs B 0 before F 0'),
    ('order_check', 'steady state F before B',
     REF_ORD.replace('[("B", k), ("F", warmup + k)]', '[("F", warmup + k), ("B", k)]'),
     'each forward must come after a backward'),
    ('order_check', 'warm-up by stage + 1 (stages reversed)',
     REF_ORD.replace("num_stages - stage)", "stage + 1)"),
     'the order deadlocks'),
    ('order_check', 'drain missing',
     REF_ORD.replace('    actions += [("B", k) for k in range(n_microbatches - warmup, n_microbatches)]\n', ""),
     'never runs B 2'),
    ('order_check', 'forward index off by one',
     REF_ORD.replace('("F", warmup + k)', '("F", warmup + k + 1)'),
     "has ('F', 4), and never F 2"),
    ('order_check', 'drain off by one',
     """\
def one_f_one_b(num_stages, n_microbatches, stage):
    warmup = min(n_microbatches, num_stages - stage)
    actions = [("F", k) for k in range(warmup)]
    for k in range(n_microbatches - warmup):
        actions += [("B", k), ("F", warmup + k)]
    actions += [("B", k) for k in range(n_microbatches - warmup + 1, n_microbatches)]
    return actions
""",
     'never runs B 2'),
    ('order_check', 'warm-up num_stages on every stage',
     REF_ORD.replace("num_stages - stage)", "num_stages)"),
     'stage 1 keeps 2 microbatches in flight at once'),
    ('order_check', 'warm-up n_microbatches - stage',
     REF_ORD.replace("num_stages - stage)", "n_microbatches - stage)"),
     'stage 0 keeps 4 microbatches in flight at once'),
    ('order_check', 'drain in reverse order',
     """\
def one_f_one_b(num_stages, n_microbatches, stage):
    warmup = min(n_microbatches, num_stages - stage)
    actions = [("F", k) for k in range(warmup)]
    for k in range(n_microbatches - warmup):
        actions += [("B", k), ("F", warmup + k)]
    actions += [("B", k) for k in reversed(range(n_microbatches - warmup, n_microbatches))]
    return actions
""",
     'runs its backwards in the order 0, 1, 3, 2'),
    ('order_check', 'microbatches numbered from 1',
     """\
def one_f_one_b(num_stages, n_microbatches, stage):
    warmup = min(n_microbatches, num_stages - stage)
    actions = [("F", k) for k in range(1, warmup + 1)]
    for k in range(1, n_microbatches - warmup + 1):
        actions += [("B", k), ("F", warmup + k)]
    return actions + [("B", k) for k in range(n_microbatches - warmup + 1, n_microbatches + 1)]
""",
     '(numbered from 0)'),
    ('order_check', 'returns None',
     REF_ORD.replace("    return actions\n", ""),
     'did you forget `return actions`'),
    ('order_check', "strings 'F0'",
     """\
def one_f_one_b(num_stages, n_microbatches, stage):
    warmup = min(n_microbatches, num_stages - stage)
    actions = [f"F{k}" for k in range(warmup)]
    for k in range(n_microbatches - warmup):
        actions += [f"B{k}", f"F{warmup + k}"]
    return actions + [f"B{k}" for k in range(n_microbatches - warmup, n_microbatches)]
""",
     'return a list of actions'),
    ('order_check', 'lower-case kinds',
     REF_ORD.replace('"F"', '"f"').replace('"B"', '"b"'),
     'return a list of actions'),
    ('order_check', 'drain repeats the first microbatches',
     REF_ORD.replace("range(n_microbatches - warmup, n_microbatches)", "range(warmup)"),
     'runs B 0 2 times and never B 2'),
    ('order_check', 'backward of k + 1 in the steady state',
     REF_ORD.replace('[("B", k), ("F"', '[("B", k + 1), ("F"'),
     'never B 0'),
    ('order_check', 'one warm-up forward then strict alternation (stage ignored)',
     REF_ORD.replace("min(n_microbatches, num_stages - stage)", "1"),
     'starts backward after 1 forward(s), 1F1B after p - s = 2'),
    # ---- exercise 3: the ZeRO-1 step
    ('zero_check', 'reference',
     ZERO_HEAD + UPD + BC,
     None),
    ('zero_check', 'range(rank, n, size) for the shard',
     """\
def zero1_step(comm, params, grads, states, lr=0.01):
    for i in range(comm.rank, len(params), comm.size):
        if i not in states:
            states[i] = adam_state(params[i])
        adam_update(params[i], grads[i], states[i], lr)
    for i, p in enumerate(params):
        p[...] = comm.bcast(p, root=i % comm.size)
""",
     None),
    ('zero_check', 'non-owners send None, np.copyto',
     """\
def zero1_step(comm, params, grads, states, lr=0.01):
    for i, (p, g) in enumerate(zip(params, grads)):
        if i % comm.size == comm.rank:
            adam_update(p, g, states.setdefault(i, adam_state(p)), lr)
    for i, p in enumerate(params):
        owner = i % comm.size
        np.copyto(p, comm.bcast(p if comm.rank == owner else None, root=owner))
""",
     None),
    ('zero_check', 'one loop: update then broadcast each parameter',
     """\
def zero1_step(comm, params, grads, states, lr=0.01):
    for i, (p, g) in enumerate(zip(params, grads)):
        owner = i % comm.size
        if owner == comm.rank:
            adam_update(p, g, states.setdefault(i, adam_state(p)), lr)
        p[:] = comm.bcast(p, root=owner)
""",
     None),
    ('zero_check', 'each rank broadcasts its whole shard as a dict',
     """\
def zero1_step(comm, params, grads, states, lr=0.01):
    for i, (p, g) in enumerate(zip(params, grads)):
        if i % comm.size == comm.rank:
            adam_update(p, g, states.setdefault(i, adam_state(p)), lr)
    for r in range(comm.size):
        shard = {i: params[i] for i in range(r, len(params), comm.size)} if r == comm.rank else None
        theirs = comm.bcast(shard, root=r)
        for i, value in theirs.items():
            params[i][...] = value
""",
     None),
    ('zero_check', 'a generator of owned indices',
     """\
def zero1_step(comm, params, grads, states, lr=0.01):
    mine = (i for i in range(len(params)) if i % comm.size == comm.rank)
    for i in mine:
        state = states.get(i)
        if state is None:
            state = states[i] = adam_state(params[i])
        adam_update(params[i], grads[i], state, lr=lr)
    for i in range(len(params)):
        params[i][...] = comm.bcast(params[i], i % comm.size)
""",
     None),
    ('zero_check', 'Adam state for every parameter',
     """\
def zero1_step(comm, params, grads, states, lr=0.01):
    for i, (p, g) in enumerate(zip(params, grads)):
        if True:
            adam_update(p, g, states.setdefault(i, adam_state(p)), lr)
    for i, p in enumerate(params):
        p[...] = comm.bcast(p, root=i % comm.size)
""",
     "keeps Adam's state for all 5 parameters"),
    ('zero_check', 'no broadcast',
     ZERO_HEAD + UPD,
     'is stale: only its owner'),
    ('zero_check', 'broadcast from comm.rank',
     ZERO_HEAD + UPD + BC.replace("root=i % comm.size", "root=comm.rank"),
     'from its owner, root=i % comm.size (rank 1 for parameter 1)'),
    ('zero_check', 'broadcast from rank 0',
     ZERO_HEAD + UPD + BC.replace("root=i % comm.size", "root=0"),
     'from its owner, root=i % comm.size (rank 1 for parameter 1)'),
    ('zero_check', 'broadcast from the next rank',
     ZERO_HEAD + UPD + BC.replace("root=i % comm.size", "root=(i + 1) % comm.size"),
     'from its owner, root=i % comm.size'),
    ('zero_check', 'all-reduce instead of broadcast',
     ZERO_HEAD + UPD + BC.replace("comm.bcast(p, root=i % comm.size)", "comm.allreduce(p)"),
     'you all-reduced the parameters'),
    ('zero_check', 'broadcast before the update',
     ZERO_HEAD + BC + UPD,
     'one step behind'),
    ('zero_check', 'p = comm.bcast (rebinding)',
     ZERO_HEAD + UPD + BC.replace("p[...] =", "p ="),
     'never changed although you broadcast it'),
    ('zero_check', 'state not kept',
     ZERO_HEAD + UPD.replace("states.setdefault(i, adam_state(p))", "adam_state(p)") + BC,
     'the states stayed empty'),
    ('zero_check', 'new state every step',
     """\
def zero1_step(comm, params, grads, states, lr=0.01):
    for i, (p, g) in enumerate(zip(params, grads)):
        if i % comm.size == comm.rank:
            states[i] = adam_state(p)
            adam_update(p, g, states[i], lr)
    for i, p in enumerate(params):
        p[...] = comm.bcast(p, root=i % comm.size)
""",
     'Adam started afresh at every step: you made a new state each time'),
    ('zero_check', 'owner test inverted',
     ZERO_HEAD + UPD.replace("i % comm.size == comm.rank", "i % comm.size != comm.rank") + BC,
     'rank 0 updated parameters [1, 3] (it keeps their state), but it owns [0, 2, 4]'),
    ('zero_check', 'gradients divided by the world size again',
     ZERO_HEAD + UPD.replace("adam_update(p, g,", "adam_update(p, g / comm.size,") + BC,
     'the gradients divided by 2'),
    ('zero_check', 'lr argument ignored',
     ZERO_HEAD + UPD.replace(", lr)", ")") + BC,
     'called with lr=0.05'),
    ('zero_check', 'state keyed by rank (one state for the shard)',
     ZERO_HEAD + UPD.replace("states.setdefault(i,", "states.setdefault(comm.rank,") + BC,
     "is it another parameter's state?"),
    ('zero_check', 'state keyed by id(p)',
     ZERO_HEAD + UPD.replace("states.setdefault(i,", "states.setdefault(id(p),") + BC,
     "key each parameter's state by its index"),
    ('zero_check', 'list slot rebound instead of writing into the array',
     """\
def zero1_step(comm, params, grads, states, lr=0.01):
    for i, (p, g) in enumerate(zip(params, grads)):
        if i % comm.size == comm.rank:
            adam_update(p, g, states.setdefault(i, adam_state(p)), lr)
    for i in range(len(params)):
        params[i] = comm.bcast(params[i], root=i % comm.size)
""",
     'but in new arrays'),
    ('zero_check', 'blocks of parameters per rank (i // ...)',
     """\
def zero1_step(comm, params, grads, states, lr=0.01):
    per = -(-len(params) // comm.size)
    for i, (p, g) in enumerate(zip(params, grads)):
        if i // per == comm.rank:
            adam_update(p, g, states.setdefault(i, adam_state(p)), lr)
    for i, p in enumerate(params):
        p[...] = comm.bcast(p, root=i // per)
""",
     'keeps state for parameters [0, 1, 2], but owns [0, 2, 4]'),
    ('zero_check', 'states rebound to a new dict',
     ZERO_HEAD + "    states = {}\n" + UPD + BC,
     'the states stayed empty'),
    ('zero_check', 'broadcast added to the parameter (+=)',
     ZERO_HEAD + UPD + BC.replace("p[...] =", "p +="),
     'not p += ...'),
    ('zero_check', 'update all parameters, keep state only for the shard',
     """\
def zero1_step(comm, params, grads, states, lr=0.01):
    for i, (p, g) in enumerate(zip(params, grads)):
        state = states.setdefault(i, adam_state(p)) if i % comm.size == comm.rank else adam_state(p)
        adam_update(p, g, state, lr)
    for i, p in enumerate(params):
        p[...] = comm.bcast(p, root=i % comm.size)
""",
     'changed parameter 1, which rank 1 owns, before broadcasting'),
    ('zero_check', 'only non-owners call bcast (deadlock)',
     """\
def zero1_step(comm, params, grads, states, lr=0.01):
    for i, (p, g) in enumerate(zip(params, grads)):
        if i % comm.size == comm.rank:
            adam_update(p, g, states.setdefault(i, adam_state(p)), lr)
    for i, p in enumerate(params):
        if i % comm.size != comm.rank:
            p[...] = comm.bcast(None, root=i % comm.size)
""",
     'rank 0 gave root=1 and rank 1 root=0'),
    ('zero_check', 'shard zipped with all gradients',
     """\
def zero1_step(comm, params, grads, states, lr=0.01):
    for i, (p, g) in enumerate(zip(params[comm.rank::comm.size], grads)):
        adam_update(p, g, states.setdefault(i, adam_state(p)), lr)
    for i, p in enumerate(params):
        p[...] = comm.bcast(p, root=i % comm.size)
""",
     "is it another parameter's gradient?"),
]


# The answers that the checks misjudged before this walk (passed a wrong one, failed a right one).
FOOLED_BEFORE = {
    "returns a list", "b2 mutated in place (right values once)", "a generator function",
    "np.arange microbatch numbers", "gradients divided by the world size again", "lr argument ignored",
    "list slot rebound instead of writing into the array", "update all parameters, keep state only for the shard",
}
FUNCTION = {"megatron_check": "def megatron_mlp(", "order_check": "def one_f_one_b(", "zero_check": "def zero1_step("}


def _exercise_cell(var):
    """The solution's exercise cell for the check ``var``, as a whole (the row's answer replaces all of it)."""
    return next(s for s in test_late_lesson_hints._code_cells("18") if s.startswith(FUNCTION[var]))


def _run(var, source):
    return run_row("18", var, [(_exercise_cell(var), source)])


def _hints(result):
    return " | ".join(r.hint for r in result.rows if not r.ok) + " | " + result.error


def test_the_table_holds_the_walk():
    """60+ answers, each exercise with right answers written differently and wrong ones; the fooling ones kept."""
    assert len(ROWS) >= 60
    for var in FUNCTION:
        rights = [r for r in ROWS if r[0] == var and r[3] is None]
        wrongs = [r for r in ROWS if r[0] == var and r[3] is not None]
        assert len(rights) >= 5 and len(wrongs) >= 15, var
    assert FOOLED_BEFORE <= {r[1] for r in ROWS}
    assert len({r[1] for r in ROWS if r[0] == "zero_check"}) == len([r for r in ROWS if r[0] == "zero_check"])


@pytest.mark.parametrize("var, label, source, words", ROWS, ids=[f"{r[0]}-{i}" for i, r in enumerate(ROWS)])
def test_each_answer_is_judged_right_and_named(var, label, source, words):
    assert source.startswith(FUNCTION[var]), label
    result = _run(var, source)
    if words is None:
        assert result.passed, f"a right answer ({label}) failed: {result!r}"
        return
    assert result.status == "failed", f"a wrong answer ({label}) passed"
    hints = _hints(result)
    assert words in hints, f"{label}: {hints}"


CJK = re.compile("[\u4e00-\u9fff]")
WRONG = [r for r in ROWS if r[3] is not None]


@pytest.mark.parametrize("var, label, source, words", WRONG, ids=[f"{r[0]}-{i}" for i, r in enumerate(WRONG)])
def test_each_wrong_answer_gets_a_chinese_hint_in_the_chinese_course(var, label, source, words):
    import widgets

    widgets.set_language("zh")
    try:
        result = _run(var, source)
    finally:
        widgets.set_language("en")
    assert result.status == "failed", label
    hints = [r.hint for r in result.rows if not r.ok and r.hint] + ([result.error] if result.error else [])
    assert hints and all(CJK.search(h) for h in hints), f"an English hint in the Chinese course ({label}): {hints}"
