"""The package's layering, checked by reading its imports (no code is run for these).

The layers, bottom up: the device seam (``backends``, ``cuda``), ``TensorBase`` (a
tensor's state), autograd, the ops (``functions``), the ``Tensor`` face (``minitorch/tensor/``:
one method module per op module), then ``nn``, ``optim``, ``data`` and the examples.
``widgets`` sits beside them and ``minitorch`` never imports it. The import graph has no
cycle at all, function-level imports counted, and none either when the imports under
``if TYPE_CHECKING:`` (which never run, but tie the layers together for the type checker) are
counted too:

    .venv/bin/python -m pytest tests/project/test_architecture.py -k cycle

``test_layers_at_run_time.py`` checks the same layering by running code: the ops and the
engine call no method of the face.
"""

import ast
import io
import re
import subprocess
import sys
import tokenize
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("minitorch", "widgets")
MAX_LINES = 500  # soft: a warning
HARD_MAX_LINES = 600
# Layers that must not import the layers above them.
CORE = ("minitorch.backends", "minitorch.cuda", "minitorch.tensor", "minitorch.autograd", "minitorch.functions")
ABOVE_CORE = (
    "minitorch.kernels", "minitorch.nn", "minitorch.optim", "minitorch.data", "minitorch.distributed",
    "minitorch.amp", "minitorch.jit", "minitorch.serialization", "minitorch.compat", "minitorch.utils",
    "minitorch.datasets", "minitorch.accelerator", "minitorch.run_as_torch", "minitorch.examples", "widgets",
)


def module_name(path):
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def source_files():
    return sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.py"))


MODULES = {module_name(p): p for p in source_files()}


def imports_of(path, type_checking=False):
    """``(target module, names, line)`` for every import the file runs, at any depth.

    Imports under ``if TYPE_CHECKING:`` never run; they are left out unless ``type_checking``.
    """
    found = []
    tree = ast.parse(path.read_text(), str(path))
    skipped = set()
    for node in ast.walk(tree):
        if type_checking:
            break
        if isinstance(node, ast.If) and ast.unparse(node.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING"):
            skipped.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found += [(alias.name, (), node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.module, tuple(a.name for a in node.names), node.lineno))
    return found


def edges_of(name, type_checking=False):
    """The project modules ``name`` imports (``from pkg import mod`` counts as ``pkg.mod``)."""
    targets = set()
    for module, names, _ in imports_of(MODULES[name], type_checking):
        if module.split(".")[0] not in PACKAGES:
            continue
        submodules = [f"{module}.{n}" for n in names if f"{module}.{n}" in MODULES]
        targets.update(submodules or [module])
    targets.discard(name)
    return targets


GRAPH = {name: edges_of(name) for name in MODULES}
# The same with the imports under ``if TYPE_CHECKING:``: what the type checker reads.
TYPING_GRAPH = {name: edges_of(name, type_checking=True) for name in MODULES}


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


def test_the_import_graph_has_no_cycle():
    # Every import counts, at any depth (function-level imports too): the face (minitorch.tensor)
    # imports the ops, the ops import the engine and TensorBase, and nothing imports upwards.
    cycle = find_cycle(GRAPH)
    assert cycle is None, f"import cycle: {' -> '.join(cycle)}"


def test_the_import_graph_has_no_cycle_even_for_the_type_checker():
    # An op annotates its result with a type variable bound to TensorBase (``def exp(a: T) -> T``),
    # not with the face above it, so the type checker's imports go one way too.
    cycle = find_cycle(TYPING_GRAPH)
    assert cycle is None, f"import cycle (if TYPE_CHECKING: imports counted): {' -> '.join(cycle)}"


# What sits below the Tensor face: these never import minitorch.tensor (they use TensorBase).
BELOW_THE_FACE = ("minitorch.tensor_base", "minitorch.autograd", "minitorch.functions", "minitorch.factories",
                  "minitorch.backends", "minitorch.cuda")


@pytest.mark.parametrize("graph", [GRAPH, TYPING_GRAPH], ids=["run time", "type checking"])
def test_the_ops_and_the_engine_never_import_the_tensor_face(graph):
    for name, targets in graph.items():
        if name.startswith(BELOW_THE_FACE):
            face = [t for t in targets if t == "minitorch.tensor" or t.startswith("minitorch.tensor.")]
            assert not face, f"{name} imports {face}: below the face, use minitorch.tensor_base.TensorBase"


def test_tensor_base_imports_nothing_above_the_device_seam():
    above = ("minitorch.autograd", "minitorch.functions", "minitorch.factories")
    bad = [t for t in GRAPH["minitorch.tensor_base"]
           if t.startswith(above) or t == "minitorch.tensor" or t.startswith("minitorch.tensor.")]
    assert not bad, bad


# Method modules without an op module of the same name, and what they mirror instead.
METHODS_WITHOUT_OP_FILE = {"inplace": "every in-place method", "autograd": "autograd/engine.py",
                           "creation": "minitorch/factories.py",
                           "constructor": "Tensor(...) itself, the older torch.Tensor constructor",
                           "numpy_ufuncs": "Tensor.__array_ufunc__: a NumPy ufunc meeting a Tensor"}


def test_method_modules_mirror_op_modules():
    methods = sorted(p.stem for p in (ROOT / "minitorch" / "tensor").glob("*.py") if p.stem != "__init__")
    ops = {p.stem for p in (ROOT / "minitorch" / "functions").glob("*.py")}
    unmatched = [m for m in methods if m not in ops and m not in METHODS_WITHOUT_OP_FILE]
    assert not unmatched, f"tensor/{unmatched} have no functions/ module of the same name"


def test_each_method_module_calls_its_own_op_module():
    # tensor/reductions.py holds the method lines of functions/reductions.py's ops: every op
    # module it imports is its own (the arithmetic operator helper aside).
    for path in (ROOT / "minitorch" / "tensor").glob("*.py"):
        if path.stem in ("__init__", *METHODS_WITHOUT_OP_FILE):
            continue
        op_modules = {t for t in GRAPH[module_name(path)] if t.startswith("minitorch.functions")}
        assert op_modules <= {f"minitorch.functions.{path.stem}", "minitorch.functions"} or (
            op_modules - {f"minitorch.functions.{path.stem}"} <= {"minitorch.functions.conversion"}
        ), f"{path.name} calls {sorted(op_modules)}"


def test_find_cycle_sees_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_the_core_never_imports_the_layers_above_it():
    for name, targets in GRAPH.items():
        if name.startswith(CORE):
            above = [t for t in targets if t.startswith(ABOVE_CORE)]
            assert not above, f"{name} imports {above}"


def test_the_ops_and_the_optimizers_never_import_the_fast_kernels():
    # functions/ and optim/ are the math as taught; the kernels import them and attach themselves
    # (docs/ARCHITECTURE.md, "Fast kernels"), so a learner reading an op never meets a speed trick.
    for name, targets in GRAPH.items():
        if name.startswith(("minitorch.functions", "minitorch.optim", "minitorch.autograd")):
            kernels = [t for t in targets if t.startswith("minitorch.kernels")]
            assert not kernels, f"{name} imports {kernels}"


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
    # A file exists for its topic (method modules mirror op modules), not for a line count;
    # past MAX_LINES a warning says it may hold two topics, past HARD_MAX_LINES it fails.
    lines = len(path.read_text().splitlines())
    assert lines <= HARD_MAX_LINES, f"{path.relative_to(ROOT)} has {lines} lines (at most {HARD_MAX_LINES})"
    if lines > MAX_LINES:
        warnings.warn(f"{path.relative_to(ROOT)} has {lines} lines: does it hold two topics?", stacklevel=1)


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


# Imports inside functions that are allowed, each for an optional part chosen at run time
# (never to dodge an import cycle: the graph above has none).
LATE_IMPORTS_ALLOWED = {
    "minitorch/distributed/group.py": "the backend module (MPI or NCCL) is imported only when chosen",
    "minitorch/examples/digits.py": "distributed training is imported only with --distributed",
}


def test_no_function_level_import_of_the_package_except_optional_parts():
    late = []
    for path in (ROOT / "minitorch").rglob("*.py"):
        relative = str(path.relative_to(ROOT))
        for function in ast.walk(ast.parse(path.read_text())):
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(function):
                names = [node.module] if isinstance(node, ast.ImportFrom) else (
                    [a.name for a in node.names] if isinstance(node, ast.Import) else [])
                if any(n and n.split(".")[0] == "minitorch" for n in names) and relative not in LATE_IMPORTS_ALLOWED:
                    late.append(f"{relative}:{node.lineno}")
    assert not late, f"imports inside functions: {late} (import at the top; there is no cycle to dodge)"


# A figure of a machine goes stale on the next one: comments and docstrings say why, and the
# timings live in docs/benchmarks.md ("Figures that were in code comments"). These patterns
# catch a duration with its unit and "N x faster/slower/longer"; the ones allowed below are
# settings or a published figure, not a measurement of this code.
TIMING = re.compile(r"\d[\d.,]*\s?(?:µs|μs|us|ms|ns)\b|\d[\d.]*\s?x (?:faster|slower|longer)|\bGFLOP")
TIMINGS_ALLOWED = {
    ("minitorch/cuda/syncs.py", "4x longer"): "the length of a spin the check sets, not a measurement",
    ("minitorch/distributed/agreement.py", "5 ms"): "the default of max_pause, a setting",
    ("minitorch/examples/per_op_copies.py", "8.6x faster"): "the MiniTorch article's published figure",
}


def comments_and_docstrings(path):
    """``(line, text)`` of every comment and every string that stands alone as a statement."""
    found, previous = [], tokenize.NEWLINE
    for token in tokenize.generate_tokens(io.StringIO(path.read_text()).readline):
        if token.type == tokenize.COMMENT:
            found.append((token.start[0], token.string))
            continue
        if token.type == tokenize.STRING and previous in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT):
            found.append((token.start[0], token.string))
        if token.type != tokenize.NL:
            previous = token.type
    return found


def test_no_machine_timing_in_a_comment():
    stale = []
    for path in sorted((ROOT / "minitorch").rglob("*.py")):
        relative = str(path.relative_to(ROOT))
        for line, text in comments_and_docstrings(path):
            for match in TIMING.finditer(text):
                if (relative, match.group()) not in TIMINGS_ALLOWED:
                    stale.append(f"{relative}:{line}: {match.group()!r}")
    assert not stale, f"timings in comments (move the figure to docs/benchmarks.md, keep the why): {stale}"


def test_the_timing_pattern_sees_a_timing():
    assert [m.group() for m in TIMING.finditer("eleven blocks take 146 us, 2.5x faster; 40.7 ms")] == [
        "146 us", "2.5x faster", "40.7 ms"]


def test_architecture_md_names_every_package():
    # docs/ARCHITECTURE.md is the plan of the house: every package of minitorch/ and every module
    # left at its top level is named there (as `name/` or `name.py`), with its job.
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text()
    top = ROOT / "minitorch"
    packages = [f"{p.name}/" for p in top.iterdir() if (p / "__init__.py").is_file()]
    modules = [p.name for p in top.glob("*.py") if p.name != "__init__.py"]
    missing = [name for name in sorted(packages + modules)
               if not re.search(rf"(^|[\s`]){re.escape(name)}($|[\s`])", text, re.MULTILINE)]
    assert not missing, f"docs/ARCHITECTURE.md does not name {missing}"


# The layers the type checker must see whole: no error code switched off for them, and no
# ``__getattr__`` on TensorBase that would make every face method Any to it (make lint runs mypy).
TYPED_CORE = ("minitorch.functions", "minitorch.tensor", "minitorch.tensor_base", "minitorch.autograd")


def test_no_mypy_error_code_is_switched_off_for_the_core():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    for override in config["tool"]["mypy"].get("overrides", []):
        if not override.get("disable_error_code"):
            continue
        modules = override["module"] if isinstance(override["module"], list) else [override["module"]]
        core = [m for m in modules if m.startswith(TYPED_CORE)]
        assert not core, f"mypy codes {override['disable_error_code']} switched off for {core}"


def test_tensor_base_has_no_catch_all_attribute_for_the_type_checker():
    tree = ast.parse((ROOT / "minitorch" / "tensor_base.py").read_text())
    base = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "TensorBase")
    defined = {n.name for n in ast.walk(base) if isinstance(n, ast.FunctionDef)}
    assert "__getattr__" not in defined, "TensorBase.__getattr__ makes the face's methods Any below the face"
