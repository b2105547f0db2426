"""A PyTorch program's own source, read with PyTorch's meaning of ``.data``.

In MiniTorch ``t.data`` is the NumPy (or CuPy) array itself, as the course builds it: a
learner sees the numbers a tensor wraps. In PyTorch ``t.data`` is another *Tensor* over the
same memory, detached from the graph, so programs write ``p.data.add_(p.grad, alpha=-lr)``,
``w.grad.data.zero_()`` and ``m.weight.data.normal_(0, 0.02)``.

``run_as_torch`` serves both: when it runs a PyTorch program it compiles the program (and
the modules it imports from its own folder) with every ``x.data`` read replaced by
``torch_data(x)``, and every ``x.data = v`` by ``set_torch_data(x, v)``. For a tensor those
give PyTorch's behaviour; for anything else (a Dataset's ``self.data``) plain attribute
access. MiniTorch's own code, and any program run without ``run_as_torch``, is untouched.
"""

from __future__ import annotations

import ast
import importlib.abc
import importlib.machinery
import sys
import types
from pathlib import Path
from typing import Any

from minitorch.tensor_base import TensorBase

HELPER = "__minitorch_torch_data__"  # the name the rewritten code calls through
MINITORCH_FOLDER = Path(__file__).resolve().parent  # never rewritten, even under the program's folder


def torch_data(obj: Any) -> Any:
    """``obj.data`` as PyTorch reads it: for a tensor, a new tensor over the same array.

    Like PyTorch's, it does not require grad, has no history and its own version counter,
    so changing it in place is neither recorded nor refused by autograd.
    """
    if isinstance(obj, TensorBase):
        return TensorBase._make(obj.data, None, False)
    return obj.data


def set_torch_data(obj: Any, value: Any) -> None:
    """``obj.data = value`` as PyTorch does it: a tensor takes ``value``'s array as its own."""
    if isinstance(obj, TensorBase):
        if not isinstance(value, TensorBase):
            raise TypeError(f"tensor.data = value: value has to be a Tensor, but got {type(value).__name__} "
                            "(run_as_torch gives `.data` PyTorch's meaning)")
        obj.data = value.data
        return
    obj.data = value


class DataAttributeRewriter(ast.NodeTransformer):
    """Rewrites ``x.data`` reads and ``x.data = v`` assignments into the two helpers above.

    ``x.data += v`` keeps its target as it is: it reads the tensor, updates it in place and
    stores the same tensor back, which both meanings of ``.data`` do alike.
    """

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        self.generic_visit(node)
        if node.attr != "data" or not isinstance(node.ctx, ast.Load):
            return node
        call = ast.Call(func=_helper("torch_data"), args=[node.value], keywords=[])
        return ast.copy_location(call, node)

    def visit_Assign(self, node: ast.Assign) -> ast.AST:
        self.generic_visit(node)
        target = node.targets[0]
        if len(node.targets) != 1 or not isinstance(target, ast.Attribute) or target.attr != "data":
            return node
        call = ast.Call(func=_helper("set_torch_data"), args=[target.value, node.value], keywords=[])
        return ast.copy_location(ast.Expr(value=call), node)

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.AST:
        if isinstance(node.target, ast.Attribute) and node.target.attr == "data":
            node.target.value = self.visit(node.target.value)  # `a.b.data += v`: only `a.b` is rewritten
            node.value = self.visit(node.value)
            return node
        return self.generic_visit(node)


def _helper(name: str) -> ast.Attribute:
    return ast.Attribute(value=ast.Name(id=HELPER, ctx=ast.Load()), attr=name, ctx=ast.Load())


def compile_torch_source(source: str | bytes, filename: str) -> types.CodeType:
    """``source`` compiled with PyTorch's ``.data``; run it in a namespace from ``prepare_namespace``."""
    tree = DataAttributeRewriter().visit(ast.parse(source, filename))
    return compile(ast.fix_missing_locations(tree), filename, "exec", dont_inherit=True)


def prepare_namespace(namespace: dict[str, Any]) -> dict[str, Any]:
    """``namespace`` with the helpers the rewritten code calls."""
    namespace[HELPER] = sys.modules[__name__]
    return namespace


class TorchSourceLoader(importlib.machinery.SourceFileLoader):
    """Loads a module of the program's folder with the rewrite (and writes no bytecode cache:
    a later plain ``python`` run must not pick up the rewritten code)."""

    def get_code(self, fullname: str) -> types.CodeType:
        path = self.get_filename(fullname)
        return compile_torch_source(self.get_data(path), path)

    def exec_module(self, module: types.ModuleType) -> None:
        prepare_namespace(module.__dict__)
        super().exec_module(module)


class ProgramFolderFinder(importlib.abc.MetaPathFinder):
    """Finds the program's own modules (files under its folder) and loads them rewritten."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder.resolve()

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or not spec.origin or not spec.origin.endswith(".py") or spec.loader is None:
            return None
        origin = Path(spec.origin).resolve()
        if (self.folder not in origin.parents or MINITORCH_FOLDER in origin.parents
                or "site-packages" in origin.parts):
            return None
        spec.loader = TorchSourceLoader(fullname, str(origin))
        return spec


def run_program(script: Path) -> None:
    """Run ``script`` as ``__main__``, it and its folder's modules read with PyTorch's ``.data``."""
    finder = ProgramFolderFinder(script.parent)
    sys.meta_path.insert(0, finder)
    main = types.ModuleType("__main__")
    main.__file__, main.__package__, main.__spec__ = str(script), None, None  # as runpy.run_path sets them
    saved_main = sys.modules.get("__main__")
    sys.modules["__main__"] = main  # classes defined in the script pickle as __main__.X, as under python
    try:
        code = compile_torch_source(script.read_bytes(), str(script))
        exec(code, prepare_namespace(main.__dict__))
    finally:
        sys.meta_path.remove(finder)
        if saved_main is not None:
            sys.modules["__main__"] = saved_main
