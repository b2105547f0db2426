"""Lowering: a recorded program written out as one Python function of NumPy calls on buffers.

The op-by-op replay (``Program.run``) calls each op's ``forward``/``backward`` with a
ctx, sums gradients through a dict and runs ``optimizer.step()`` as Python. ``lower``
writes the whole step out as straight-line source instead, and compiles it once: an op
with a replay kernel (``kernels.py``) as its NumPy calls on buffers, any other op as a
call of its own forward and backward (``op_calls.py``):

    def replay(args):
        v0 = args[0].data
        v1 = args[1].data
        if not (labels_in_range(v1, 10)): return FALLBACK   # a check the eager op makes
        call0()                                             # opt.zero_grad()
        matmul(v0, c2.T, out=buf0)
        add(buf0, c3, out=buf0)
        ...
        g9 = ones((), float32)                              # loss.backward()
        ...
        give(c2, g12, handed)                               # into W.grad (the engine's rules)
        adam0()                                             # opt.step(): the flat update
        return wrap(v11)

Every intermediate array is a buffer allocated once, at lowering, and written with
``out=`` on every replay; what leaves the step (its output, each ``.grad``) is a fresh
array, so nothing a caller holds is overwritten by the next call. The backward is the
engine's walk resolved at lowering: which node's gradient goes where, summed in the
engine's order (``previous + g``), into leaves through ``engine.accumulate_leaf``.

``Program.source`` keeps the text, which ``explain`` and lesson 16 show.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from minitorch.autograd import engine
from minitorch.jit import kernels, op_calls, optimizer_kernels
from minitorch.jit.graph_pass import GraphPassStep
from minitorch.jit.program import BackwardStep, CallStep, OpStep, Program
from minitorch.tensor_base import TensorBase

FALLBACK = object()  # what a replay returns when a check fails: run op by op (as eager) instead


@dataclass
class Lowered:
    """The generated step: its source and the compiled function ``replay(args)``."""

    source: str
    replay: Any
    buffers: int  # arrays allocated once
    kernels: int  # ops written out
    called: list[str]  # ops without a kernel, their forward and backward called from the code


class Code:
    """The generated function under construction: lines, early checks and the names they use."""

    def __init__(self) -> None:
        self.body: list[str] = []
        self.checks: list[str] = []
        self.namespace: dict[str, Any] = dict(kernels.NAMESPACE)
        self.is_reused: set[str] = set()  # names holding a buffer (copied when they leave the step)
        self.may_alias: set[str] = set()  # names an op without a kernel returned: maybe a view of a buffer
        self.not_fresh: set[str] = set()  # gradients an op without a kernel returned: maybe a buffer, any shape
        self.missing: set[tuple[int, int]] = set()  # (node, input): gradients a backward gives as None
        self.freeable: set[str] = set()  # fresh arrays and ctxs a ``del`` after their last use frees
        self.layouts: dict[int, tuple[int, ...]] = {}  # id(stand-in) -> its array's memory order, if not C's
        self.n_buffers = 0
        self.n_inputs = 0  # the first lines, which read the inputs (the checks come after them)
        self._counter = 0

    def line(self, text: str) -> None:
        """One line of the step, in order."""
        self.body.append(text)

    def lines(self, *texts: str) -> None:
        """Several lines of the step, in order."""
        self.body.extend(texts)

    def check(self, condition: str) -> None:
        """A condition on the step's inputs the eager ops rely on: if false, replay op by op."""
        self.checks.append(condition)

    def value(self, obj: Any, hint: str = "c") -> str:
        """A name for ``obj`` in the generated code (a constant of the step)."""
        name = f"{hint}{self._counter}"
        self._counter += 1
        self.namespace[name] = obj
        return name

    def buffer(self, like: Any, dtype: Any = None) -> str:
        """A fresh buffer shaped (and typed, unless ``dtype``) like ``like``, allocated now, reused by every replay.

        It is laid out in memory as the array the trace saw (``memory_order``): a conv's output
        is channels-last, and an op mixing layouts runs several times slower.
        """
        self.n_buffers += 1
        dtype = like.dtype if dtype is None else dtype
        order = self.layouts.get(id(like))
        if order is None:
            array = np.empty(like.shape, dtype)
        else:
            array = np.empty([like.shape[axis] for axis in order], dtype).transpose(np.argsort(order))
        return self.value(array, "buf")

    def reused(self, name: str) -> None:
        """``name`` holds a buffer: the step's output is copied out of it."""
        self.is_reused.add(name)

    def passed_through(self, name: str, args: list[str]) -> None:
        """``name`` came from an op without a kernel: if it read a buffer, it may be a view of it."""
        if any(a in self.is_reused or a in self.may_alias for a in args):
            self.may_alias.add(name)

    def unproven(self, names: Any) -> None:
        """Gradients an op without a kernel returned: into a leaf they go by the engine's own rules."""
        self.not_fresh.update(names)

    def free_after_use(self, *names: str) -> None:
        """Names of arrays (or ctxs) not in a buffer: deleted after their last use (``_with_deletes``)."""
        self.freeable.update(names)


def stand_in(array: Any) -> Any:
    """An array of ``array``'s type, shape and dtype that holds no memory (what lowering reads of it)."""
    if type(array) is not np.ndarray:
        return array
    return np.ndarray(array.shape, array.dtype, np.empty(1, array.dtype), strides=(0,) * array.ndim)


def memory_order(array: Any) -> tuple[int, ...] | None:
    """``array``'s axes from the slowest-varying in memory to the fastest; None for C order (or not NumPy)."""
    if type(array) is not np.ndarray or array.ndim < 2 or array.flags.c_contiguous:
        return None
    return tuple(sorted(range(array.ndim), key=lambda axis: -array.strides[axis]))


def lower_program(program: Program, missing: set[tuple[int, int]]) -> None:
    """Lower ``program`` once, after its first replay: a signature called only once never pays for it.

    The code generation (mostly Python's ``compile`` of the text) costs about one eager step.
    ``missing``: the (node, input) gradients that replay's backwards gave as None.
    """
    examples, nodes, layouts = program.to_lower
    program.to_lower = None
    lowered = lower(program, examples, nodes, missing, layouts)
    if isinstance(lowered, str):
        program.lowering_refused = lowered
    else:
        program.lowered = lowered


def lower(
    program: Program,
    examples: dict[int, Any],
    nodes: dict[int, Any],
    missing: set[tuple[int, int]] | None = None,
    layouts: dict[int, tuple[int, ...]] | None = None,
) -> Lowered | str:
    """The program as generated code, or the reason it stays op by op.

    ``examples`` holds the array the trace saw in each slot (shapes, dtypes), ``nodes`` the
    traced backward node of each op number (the op's settings, as ``reduction``), ``missing``
    the (node, input) gradients an op's backward gave as None (the engine skips them),
    ``layouts`` the memory order of the arrays the trace saw, by slot, where not C's.
    """
    if any(type(step) is GraphPassStep for step in program.steps):
        return "its autograd.grad(create_graph=True) runs eagerly inside the replay (graph_pass.py)"
    code = Code()
    code.missing = missing or set()
    code.layouts = {id(examples[slot]): order for slot, order in (layouts or {}).items() if slot in examples}
    names: dict[int, str] = {}

    def name_of(slot: int) -> str:
        if slot not in names:
            names[slot] = code.value(program.constants[slot]) if slot in program.constants else f"v{slot}"
        return names[slot]

    inputs = set(program.inputs)
    for slot, k in zip(program.inputs, program.input_tensors):
        code.line(f"v{slot} = args[{k}].data")
        names[slot] = f"v{slot}"
    code.n_inputs = len(code.body)
    backward_of: dict[int, Any] = {}
    count = 0
    called: list[str] = []
    for step in program.steps:
        if type(step) is OpStep:
            kernel = kernels.KERNELS.get(step.function)
            name = step.function.__name__
            if step.xp is not np:
                return f"{name} runs on a GPU array"
            node = nodes.get(step.node)
            view = kernels.OpView(
                name,
                [name_of(s) for s in step.args],
                [examples.get(s, program.constants.get(s)) for s in step.args],
                name_of(step.out),
                examples[step.out],
                node,
                [s in inputs for s in step.args],
                [False] * len(step.args),
            )
            result = kernel(view, code) if kernel is not None else "it has no replay kernel"
            if isinstance(result, str):  # its own forward and backward, called from the generated code
                called.append(f"{name} ({result})")
                result = op_calls.op_call(step, view, code)
            else:
                count += 1
            backward_of[step.node] = (result, view)
        elif type(step) is BackwardStep:
            refused = _lower_backward(step, code, backward_of, examples)
            if refused:
                return refused
        else:
            _lower_call(step, code)
    output = _output_expression(program.output, code, name_of)
    return _compile(code, output, count, called)


def _lower_backward(
    step: BackwardStep, code: Code, backward_of: dict[int, Any], examples: dict[int, Any]
) -> str | None:
    """The engine's walk for one ``backward()``, resolved now: lines that sum and hand out each gradient."""
    root = examples[step.root_slot]
    grads: dict[Any, str] = {}
    root_name = code.value(root.dtype, "dtype")
    grads[("node", step.root)] = f"g{step.root}"
    code.line(f"g{step.root} = ones({root.shape}, {root_name})")
    code.line("handed = set()")
    leaf_edges = dict(step.leaf_edges)
    fresh = 0
    leaves: dict[Any, str] = {}  # a leaf's key here -> its name in the code

    def leaf_of(where: Any) -> tuple[Any, Any, str]:
        """(its key in leaf_edges, a hashable key here, its name in the code) for a leaf destination."""
        kind, target = where
        key = where if kind == "arg" else target
        here = where if kind == "arg" else ("leaf", id(target))
        if here not in leaves:
            leaves[here] = f"args[{target}]" if kind == "arg" else code.value(target, "leaf")
        return key, here, leaves[here]

    for node, destinations in step.order:
        grad = grads.pop(("node", node), None)
        if grad is None:
            continue
        if node not in backward_of or backward_of[node][0] is None:
            return f"backward() reaches node {node}, which no written-out op made"
        backward, view = backward_of[node]
        needs = view.node.needs_input_grad
        targets: list[Any] = []
        for i, where in enumerate(destinations):
            if where is None or not needs[i] or (node, i) in code.missing:
                targets.append(None)
                continue
            targets.append(f"d{fresh}")
            fresh += 1
            view.leaf_target[i] = where[0] != "node"  # a leaf keeps its array: it must be fresh
        backward(grad, targets)
        for where, g in zip(destinations, targets):
            if g is None:
                continue
            if where[0] == "node":
                here = where
            else:
                key, here, leaf = leaf_of(where)
            previous = grads.pop(here, None)
            total = g
            if previous is not None:  # the engine's order: what arrived first, plus this one
                total = f"s{fresh}"
                fresh += 1
                code.line(f"{total} = {previous} + {g}")
                code.free_after_use(total)
                if previous in code.not_fresh or g in code.not_fresh:
                    code.unproven([total])  # fresh, but its shape is not proven the leaf's
            if where[0] == "node":
                grads[here] = total
                continue
            leaf_edges[key] -= 1
            if leaf_edges[key]:
                grads[here] = total
            else:
                code.line(_give_line(code, leaf, total))
    for here, total in grads.items():  # leaves whose last edge got no gradient
        if here in leaves:
            code.line(_give_line(code, leaves[here], total))
    return None


def _give_line(code: Code, leaf: str, total: str) -> str:
    """The line that hands gradient ``total`` to ``leaf``: the short way if a kernel made it fresh."""
    if total in code.not_fresh:
        return f"give_any({leaf}, {total}, handed, BUFFERS)"
    return f"give({leaf}, {total}, handed)"


def _lower_call(step: CallStep, code: Code) -> None:
    """A Python call of the step: its replay kernel (Adam's flat update) or the call itself."""
    kernel = optimizer_kernels.for_call(step)
    if kernel is None:
        kernel = functools.partial(step.method, step.owner, *step.args, **step.kwargs)
    code.line(f"{code.value(kernel, 'call')}()")


def _output_expression(spec: Any, code: Code, name_of: Any) -> str:
    """Source that rebuilds the step's return value; arrays in buffers leave as copies."""
    kind = spec[0]
    if kind == "slot":
        name = name_of(spec[1])
        if name in code.may_alias:
            return f"wrap(leaves_safely({name}, BUFFERS))"
        return f"wrap({name}.copy())" if name in code.is_reused else f"wrap({name})"
    if kind == "arg":
        return f"args[{spec[1]}]"
    if kind == "value":
        return code.value(spec[1])
    parts = [_output_expression(s, code, name_of) for s in spec[1]] if kind != "dict" else []
    if kind == "tuple":
        return f"({', '.join(parts)},)"
    if kind == "list":
        return f"[{', '.join(parts)}]"
    items = [f"{k!r}: {_output_expression(s, code, name_of)}" for k, s in spec[1]]  # "dict"
    return "{" + ", ".join(items) + "}"


def _wrap(array: Any) -> TensorBase:
    return TensorBase._make(array, None, False)


def _give(leaf: TensorBase, g: Any, handed_out: set[int]) -> None:
    """``engine.accumulate_leaf`` for a gradient the lowering proved fresh, of the leaf's shape and dtype.

    The common case (no ``.grad`` yet, no hooks) in three lines; anything else, the engine's own.
    """
    if leaf._grad is None and not leaf._hooks and not leaf.__dict__.get("_post_accumulate_hooks"):
        handed_out.add(id(g))
        leaf._grad = TensorBase._make(g, None, False)
    else:
        engine.accumulate_leaf(leaf, g, handed_out)


_LOCAL = re.compile(r"\b(?:[vdsg]\d+|ctx\d+)\b")  # the generated step's local names: values, gradients, sums, ctxs


def _with_deletes(lines: list[str], freeable: set[str]) -> list[str]:
    """``lines`` with a ``del`` after the last use of each name in ``freeable``.

    The eager engine lets go of a gradient once it is passed on, and of a node's saved arrays
    once its backward ran; a function's locals would keep them all until it returns. For a
    big step that is tens of MB more alive at once, and every array then comes from fresh
    pages instead of memory just given back, which the transformer's step measurably pays.
    """
    last: dict[str, int] = {}
    for i, line in enumerate(lines):
        for name in _LOCAL.findall(line):
            last[name] = i
    ends: dict[int, list[str]] = {}
    for name, i in last.items():
        if name in freeable:
            ends.setdefault(i, []).append(name)
    out = []
    for i, line in enumerate(lines):
        out.append(line)
        if i in ends:
            out.append("del " + ", ".join(sorted(ends[i])))
    return out


def _compile(code: Code, output: str, count: int, called: list[str]) -> Lowered:
    """Join the lines into ``def replay(args)`` and compile it in its own namespace."""
    body, rest = code.body[: code.n_inputs], code.body[code.n_inputs :]
    lines = ["def replay(args):", *("    " + b for b in body)]
    if code.checks:
        lines.append(f"    if not ({' and '.join(code.checks)}):")
        lines.append("        return FALLBACK  # the eager ops would take another path: replay op by op")
    lines += ["    " + b for b in _with_deletes(rest, code.freeable - set(_LOCAL.findall(output)))]
    lines.append(f"    return {output}")
    source = "\n".join(lines) + "\n"
    namespace = code.namespace
    buffers = frozenset(id(v) for k, v in namespace.items() if k.startswith("buf"))
    namespace.update(FALLBACK=FALLBACK, wrap=_wrap, ones=np.ones, give=_give, BUFFERS=buffers)
    namespace.update(give_any=op_calls.give_any, leaves_safely=op_calls.leaves_safely)
    exec(compile(source, "<minitorch.compile: replay>", "exec"), namespace)  # noqa: S102 (our own text)
    return Lowered(source, namespace["replay"], code.n_buffers, count, called)
