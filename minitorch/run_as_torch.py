"""``python -m minitorch.run_as_torch script.py [args]``: run a PyTorch script on MiniTorch, unchanged.

For this run only, the folder ``minitorch/compat`` (which holds a ``torch`` package that is
just MiniTorch, see ``minitorch/compat/torch/__init__.py``) goes first on ``sys.path``, then
the script runs as ``__main__`` with its own arguments, as ``python script.py args`` would
run it. Nothing is installed and no other process sees the alias.
"""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

import numpy as np

COMPAT = Path(__file__).resolve().parent / "compat"
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
    sys.path[0:1] = [str(COMPAT), str(script.resolve().parent)]
    sys.argv = [str(script), *argv[1:]]
    try:
        runpy.run_path(str(script), run_name="__main__")
    except AttributeError as error:
        note = data_method_note(error)
        if note and hasattr(error, "add_note"):  # Python 3.11+: printed under the traceback
            error.add_note(note)
        elif note:
            print(note, file=sys.stderr)
        raise


def data_method_note(error: AttributeError) -> str | None:
    """What to write instead of ``p.data.add_(...)``, when ``error`` is that call failing (else None).

    In PyTorch ``p.data`` is a Tensor; in MiniTorch it is the NumPy array itself, which has
    no in-place Tensor methods. ``p.data += -lr * p.grad`` works on both.
    """
    name = getattr(error, "name", None) or ""
    if not isinstance(getattr(error, "obj", None), np.ndarray) or not name.endswith("_"):
        return None
    return (
        f"run_as_torch: in MiniTorch `.data` is the NumPy array itself, which has no `{name}` method. "
        f"Call it on the tensor under torch.no_grad() (`with torch.no_grad(): p.{name}(...)`), or use "
        "NumPy's operators on the array (`p.data += -lr * p.grad`, `p.data[...] = 0`): both work in PyTorch too. "
        "See docs/DIFFERENCES-FROM-PYTORCH.md."
    )


if __name__ == "__main__":
    main(sys.argv[1:])
