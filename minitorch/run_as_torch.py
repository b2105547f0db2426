"""``python -m minitorch.run_as_torch script.py [args]``: run a PyTorch script on MiniTorch, unchanged.

For this run only, the folder ``minitorch/compat/alias`` (which holds a ``torch`` package that is
just MiniTorch, see ``minitorch/compat/alias/torch/__init__.py``) goes first on ``sys.path``, then
the script runs as ``__main__`` with its own arguments, as ``python script.py args`` would
run it. Nothing is installed and no other process sees the alias.

The script and the modules it imports from its own folder are read with PyTorch's meaning of
``.data`` (a Tensor over the same memory, not MiniTorch's NumPy array): see
``minitorch/compat/torch_script.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from minitorch.compat import torch_script

# The folder whose `torch` package is MiniTorch; it holds nothing else, so no other name a
# script imports (`onnx`, `legacy`, its own `utils`) can be taken by a MiniTorch module.
ALIAS = Path(__file__).resolve().parent / "compat" / "alias"
USAGE = "usage: python -m minitorch.run_as_torch script.py [args ...]"


def main(argv: list[str]) -> None:
    """Run ``argv[0]`` with ``import torch`` meaning MiniTorch."""
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE + "\n\n" + (__doc__ or ""))
        raise SystemExit(0 if argv else 2)
    script = Path(argv[0])
    if not script.is_file():
        raise SystemExit(f"run_as_torch: no such script: {script}\n{USAGE}")
    if "torch" in sys.modules:  # cannot happen from the command line; guards a second call in one process
        raise SystemExit("run_as_torch: the real torch is already imported in this process")
    # As `python script.py` does: the script's folder first (for its own imports), and
    # before even that, the folder whose `torch` package is MiniTorch.
    sys.path[0:1] = [str(ALIAS), str(script.resolve().parent)]
    sys.argv = [str(script), *argv[1:]]
    torch_script.run_program(script.resolve())


if __name__ == "__main__":
    main(sys.argv[1:])
