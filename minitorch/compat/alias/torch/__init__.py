"""The ``torch`` alias: ``import torch`` gives the ``minitorch`` package itself.

``python -m minitorch.run_as_torch script.py`` puts the folder holding this package first
on ``sys.path`` for that run only, so a PyTorch script runs on MiniTorch unchanged. It
implements nothing of its own: ``torch`` IS ``minitorch``, ``torch.nn`` IS ``minitorch.nn``,
``torch.utils.data`` IS ``minitorch.utils.data``, and so on. Whatever MiniTorch lacks fails
with the ordinary ``AttributeError`` / ``ModuleNotFoundError`` naming it.

How: after ``import minitorch``, every loaded ``minitorch.X`` module is entered in
``sys.modules`` as ``torch.X`` too (so ``import torch.nn.functional as F`` finds it), and
``sys.modules["torch"]`` is replaced by ``minitorch`` (Python's import returns whatever
``sys.modules`` holds once the module ran). A small finder does the same for a MiniTorch
submodule imported later, so no module is ever loaded twice under two names.
"""

import importlib
import importlib.abc
import importlib.util
import sys
from types import ModuleType
from typing import Any

import minitorch

_PREFIX = "torch."


class _AliasFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Answers ``import torch.X`` with the module ``minitorch.X`` (importing it if needed)."""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if not name.startswith(_PREFIX):
            return None
        real = "minitorch." + name[len(_PREFIX):]
        if importlib.util.find_spec(real) is None:
            return None  # the ordinary "No module named 'torch.X'" follows
        return importlib.util.spec_from_loader(name, self)

    def create_module(self, spec: Any) -> ModuleType:
        module = importlib.import_module("minitorch." + spec.name[len(_PREFIX):])
        self._spec = module.__spec__  # the import machinery overwrites it; put it back below
        return module

    def exec_module(self, module: ModuleType) -> None:
        module.__spec__ = self._spec  # the module already ran, as minitorch.X


def _install() -> None:
    """Enter minitorch and its loaded submodules as torch and torch.X; add the finder for the rest."""
    for name, module in list(sys.modules.items()):
        if name.startswith("minitorch.") and module is not None:
            sys.modules.setdefault(_PREFIX + name[len("minitorch."):], module)
    sys.meta_path.insert(0, _AliasFinder())
    sys.modules["torch"] = minitorch


# Only as ``torch`` (the folder run_as_torch puts on the path). Imported under its package
# name, as minitorch.compat.alias.torch (a tool walking every module of the package), it does nothing.
if __name__ == "torch":
    _install()
