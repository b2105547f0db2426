"""Rerun a lesson's training with every weight moved by one unit in the last place: does what it prints change?

    python tests/lessons/nudged_training.py 08 e7441940 e7441940 8 \
        "int(round(accuracy(model, X_test, y_test) * len(y_test)))"

Arguments: the lesson, the first and the last code cell to rerun (by cell id), how many
nudged runs, and Python expressions to print after each run (in the notebook's namespace).
The solution notebook's code cells before the first one run once; then the cells from the
first to the last run once as written and once per nudged run. In a nudged run every
parameter handed to an optimizer is moved by 0 or +-1 ulp (a random choice per weight),
the size of one rounding: if the expressions do not change, another CPU's rounding will
not change what the lesson prints either. tests/README.md lists what this measured.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import nbformat  # noqa: E402
import numpy as np  # noqa: E402

import minitorch  # noqa: E402

SOLUTIONS = Path(__file__).resolve().parents[2] / "lessons" / "solutions"


class QuietMonitor:
    """Stands in for the TrainingMonitor: the measurement needs no figures."""

    def __init__(self, *args, **kwargs):
        pass

    def update(self, *args, **kwargs):
        pass

    def close(self, *args, **kwargs):
        return None


def run_cell(source: str, namespace: dict) -> None:
    """Run one code cell quietly; a cell that raises on purpose (a lesson's demonstration) is let be."""
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            exec(compile(source, "<cell>", "exec"), namespace)
        except Exception:  # noqa: BLE001 (the lessons show some errors on purpose)
            pass
    plt.close("all")


def nudging(rng: np.random.Generator):
    """An Optimizer.__init__ that first moves each parameter's entries by 0 or +-1 ulp."""
    original = minitorch.optim.Optimizer.__init__

    def nudged(self, params, *args, **kwargs):
        params = list(params)
        for group in params:
            for p in group["params"] if isinstance(group, dict) else [group]:
                a = p.data
                direction = np.where(rng.integers(0, 2, a.shape) == 1, np.inf, -np.inf).astype(a.dtype)
                a[...] = np.where(rng.integers(0, 3, a.shape) == 0, a, np.nextafter(a, direction))
        original(self, params, *args, **kwargs)

    return original, nudged


def main(lesson: str, first: str, last: str, runs: int, expressions: list[str]) -> None:
    """Print ``expressions`` after the cells ``first``..``last`` ran as written, then ``runs`` times nudged."""
    (path,) = SOLUTIONS.glob(f"{lesson}_*.ipynb")
    os.chdir(path.parent)
    cells = [c for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]
    ids = [c.id for c in cells]
    start, stop = ids.index(first), ids.index(last)
    namespace = {"__name__": "__main__", "display": lambda *a, **k: None}
    for cell in cells[:start]:
        if "launch(" not in cell.source:  # lesson 15's mpiexec runs are not needed here
            run_cell(cell.source, namespace)
    namespace["TrainingMonitor"] = QuietMonitor
    for k in range(-1, runs):
        original, nudged = nudging(np.random.default_rng(k + 1))
        minitorch.optim.Optimizer.__init__ = nudged if k >= 0 else original
        try:
            for cell in cells[start:stop + 1]:
                run_cell(cell.source, namespace)
        finally:
            minitorch.optim.Optimizer.__init__ = original
        values = []
        for expression in expressions:
            try:
                values.append(repr(eval(expression, namespace)))
            except Exception as exc:  # noqa: BLE001 (report, and go on with the other expressions)
                values.append(f"{type(exc).__name__}: {exc}")
        print("as written" if k < 0 else f"nudged {k}", " | ".join(values), flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5:])
