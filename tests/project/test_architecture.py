"""The package's layering, checked by reading its imports (no code is run for these).

The layers, bottom up: the device seam (``backends``, ``cuda``), the Tensor, autograd and
the ops (``functions``), then ``nn``, ``optim``, ``data`` and the examples. ``widgets``
sits beside them and ``minitorch`` never imports it. The one cycle allowed is the one
every framework has: the ops import ``Tensor``, and Tensor's op methods
(``tensor_methods.py``, ``tensor_inplace.py`` and the other method modules in
``METHOD_MODULES``) call the ops and the engine. Cut the edges that leave those and the
import graph must have no cycle at all.
"""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("minitorch", "widgets")
MAX_LINES = 500
# Layers that must not import the layers above them.
CORE = ("minitorch.backends", "minitorch.cuda", "minitorch.tensor", "minitorch.autograd", "minitorch.functions")
ABOVE_CORE = (
    "minitorch.nn", "minitorch.optim", "minitorch.data", "minitorch.distributed", "minitorch.examples", "widgets",
)


def module_name(path):
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def source_files():
    return sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.py"))


MODULES = {module_name(p): p for p in source_files()}


def imports_of(path):
    """``(target module, names, line)`` for every import in the file, at any depth."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(alias.name, (), node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.module, tuple(a.name for a in node.names), node.lineno))
    return found


def edges_of(name):
    """The project modules ``name`` imports (``from pkg import mod`` counts as ``pkg.mod``)."""
    targets = set()
    for module, names, _ in imports_of(MODULES[name]):
        if module.split(".")[0] not in PACKAGES:
            continue
        submodules = [f"{module}.{n}" for n in names if f"{module}.{n}" in MODULES]
        targets.update(submodules or [module])
    targets.discard(name)
    return targets


GRAPH = {name: edges_of(name) for name in MODULES}


def find_cycle(graph):
    """One cycle as a list of modules, or None (iterative depth-first search)."""
    state = {}  # 1: on the current path, 2: done
    for start in sorted(graph):
        if start in state:
            continue
        path, stack = [start], [iter(sorted(graph[start]))]
        state[start] = 1
        while stack:
            nxt = next(stack[-1], None)
            if nxt is None:
                state[path.pop()] = 2
                stack.pop()
            elif state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            elif nxt not in state and nxt in graph:
                state[nxt] = 1
                path.append(nxt)
                stack.append(iter(sorted(graph[nxt])))
    return None


# Tensor's methods that call up into the ops and the engine (imported late, see tensor.py).
METHOD_MODULES = (
    "minitorch.tensor_methods",
    "minitorch.tensor_operators",
    "minitorch.tensor_inplace",
    "minitorch.tensor_elementwise_methods",
    "minitorch.tensor_selection_methods",
)


def test_the_only_cycle_is_tensor_methods_to_the_ops():
    cut = {name: set() if name in METHOD_MODULES else targets for name, targets in GRAPH.items()}
    assert find_cycle(cut) is None, f"import cycle: {' -> '.join(find_cycle(cut))}"


@pytest.mark.parametrize("module", METHOD_MODULES)
def test_tensor_methods_reach_only_the_ops_the_engine_and_the_layers_below(module):
    # factories (zeros, ones, ...) are Tensor constructors beside the ops: they import only
    # the Tensor and the layers below it. The ``new_*`` methods use them.
    allowed = ("minitorch.functions", "minitorch.autograd", "minitorch.tensor", "minitorch.backends",
               "minitorch.dtypes", "minitorch.errors", "minitorch.switches", "minitorch.factories")
    assert all(t.startswith(allowed) for t in GRAPH[module]), GRAPH[module]


def test_without_the_cut_the_cycle_goes_through_tensor_methods():
    cycle = find_cycle(GRAPH)
    assert cycle is not None and any(m in cycle for m in METHOD_MODULES)


def test_find_cycle_sees_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_the_core_never_imports_the_layers_above_it():
    for name, targets in GRAPH.items():
        if name.startswith(CORE):
            above = [t for t in targets if t.startswith(ABOVE_CORE)]
            assert not above, f"{name} imports {above}"


def test_minitorch_never_imports_widgets():
    for name, targets in GRAPH.items():
        if name.startswith("minitorch"):
            assert not any(t.startswith("widgets") for t in targets), name


def test_nothing_private_is_imported_from_tensor():
    for path in MODULES.values():
        for module, names, line in imports_of(path):
            if module == "minitorch.tensor":
                private = [n for n in names if n.startswith("_")]
                assert not private, f"{path.relative_to(ROOT)}:{line} imports {private} from minitorch.tensor"


@pytest.mark.parametrize("path", source_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_file_is_small(path):
    lines = len(path.read_text().splitlines())
    assert lines <= MAX_LINES, f"{path.relative_to(ROOT)} has {lines} lines (at most {MAX_LINES})"


def test_every_builtin_op_is_registered_when_the_package_loads():
    # A fresh interpreter: nothing but ``import minitorch`` has run.
    code = (
        "import importlib, pkgutil, minitorch\n"
        "from minitorch.autograd import Function, REGISTRY\n"
        "before = set(REGISTRY)\n"
        "for info in pkgutil.walk_packages(minitorch.__path__, 'minitorch.'):\n"
        "    importlib.import_module(info.name)\n"
        "defined = {c.__name__ for c in Function.__subclasses__() if c.__module__.startswith('minitorch.')}\n"
        "print(sorted(defined - before))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]", f"ops registered only after their module was imported: {out.stdout}"
