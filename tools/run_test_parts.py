"""``make test``: every part of the test suite, one after another, and what each one cost.

    python -m tools.run_test_parts            # all parts
    python -m tools.run_test_parts lint package

Every part runs even when an earlier one failed, so one report shows everything that is
broken; the exit status is 1 if any part failed. The summary at the end gives each part's
wall time, so a suite that grows slower shows where.

The part ``narrow-cpu`` runs the solution notebooks a second time with NumPy's SIMD kernels
narrowed to its baseline (``NPY_DISABLE_CPU_FEATURES``: every dispatch target this CPU has)
and OpenBLAS forced to an older kernel (``OPENBLAS_CORETYPE``). The last float32 digits of
a sum or a matrix product depend on those kernels, so the stored outputs must not show
them: this part proves they match on another CPU too.

The part ``solutions-zh`` runs the Chinese solution notebooks (``lessons/solutions/zh``, made by
``make lessons``) under nbval the same way: the same code with the widgets speaking Chinese,
against the outputs of their own last run. ``learner-copies`` runs the Chinese copies too.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
NBVAL = [PY, "-m", "pytest", "-p", "no:cacheprovider", "--nbval-current-env"]
NBVAL_STORED = ["--nbval", "--nbval-sanitize-with", "lessons/nbval_sanitize.cfg"]
# the English solutions; the translated ones (lessons/solutions/zh) are their own part
SOLUTIONS = [*NBVAL_STORED, "lessons/solutions", "--ignore=lessons/solutions/zh"]
SOLUTIONS_ZH = [*NBVAL_STORED, "lessons/solutions/zh"]
# An OpenBLAS kernel every x86-64 CPU with AVX runs, older than the one it would pick itself.
OLD_OPENBLAS_KERNEL = "Sandybridge"


def narrowed_cpu_env() -> dict[str, str]:
    """The environment of the ``narrow-cpu`` part: NumPy's dispatch targets off, an old OpenBLAS kernel."""
    code = (
        "from numpy._core._multiarray_umath import __cpu_dispatch__ as d, __cpu_features__ as f\n"
        "print(' '.join(t for t in d if f.get(t)))"
    )
    targets = subprocess.run([PY, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    env = dict(os.environ, OPENBLAS_CORETYPE=OLD_OPENBLAS_KERNEL)
    env.pop("OPENBLAS_L2_SIZE", None)
    if targets:
        env["NPY_DISABLE_CPU_FEATURES"] = targets
    return env


def parts() -> dict[str, list[tuple[list[str], dict[str, str] | None]]]:
    """Each part's commands, in order, with the environment of each (None: this one's)."""
    lessons = sorted(str(p.relative_to(ROOT)) for p in [*(ROOT / "lessons").glob("*.ipynb"),
                                                        *(ROOT / "lessons" / "zh").glob("*.ipynb")])
    bin_dir = Path(PY).parent
    return {
        "lint": [
            ([str(bin_dir / "ruff"), "check", "minitorch", "minitorch_course", "widgets", "tests", "bench", "tools",
              "examples", "setup.py"], None),
            ([str(bin_dir / "mypy")], None),
        ],
        "package": [([PY, "-m", "pytest", "tests"], None)],
        "solutions": [(NBVAL + SOLUTIONS, None)],
        "solutions-zh": [(NBVAL + SOLUTIONS_ZH, None)],
        "learner-copies": [(NBVAL + ["--nbval-lax", *lessons], None)],
        "narrow-cpu": [(NBVAL + SOLUTIONS, narrowed_cpu_env())],
    }


def main(argv: list[str]) -> int:
    """Run the named parts (all when none is named); print the timing summary; 1 if any failed."""
    table = parts()
    chosen = argv or list(table)
    unknown = [name for name in chosen if name not in table]
    if unknown:
        print(f"unknown part(s) {unknown}; the parts are {list(table)}", file=sys.stderr)
        return 2
    results = []
    for name in chosen:
        print(f"\n=== {name}", flush=True)
        start, ok = time.perf_counter(), True
        for command, env in table[name]:
            if env is not None and "NPY_DISABLE_CPU_FEATURES" in env:
                print(f"NPY_DISABLE_CPU_FEATURES={env['NPY_DISABLE_CPU_FEATURES']!r} "
                      f"OPENBLAS_CORETYPE={env['OPENBLAS_CORETYPE']}", flush=True)
            ok = subprocess.run(command, cwd=ROOT, env=env).returncode == 0 and ok
        results.append((name, time.perf_counter() - start, ok))
    print("\n=== time per part")
    for name, seconds, ok in results:
        print(f"  {name:16} {seconds / 60:5.1f} min  {'ok' if ok else 'FAILED'}")
    total = sum(seconds for _, seconds, _ in results)
    print(f"  {'total':16} {total / 60:5.1f} min")
    return 0 if all(ok for _, _, ok in results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
