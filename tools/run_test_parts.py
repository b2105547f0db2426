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

The part ``package-reference`` runs the package tests again with every fast kernel off
(``MINITORCH_FAST_KERNELS=0``): the ops as taught in ``minitorch/functions/`` alone must
pass the whole suite, as they do with their fast paths (``minitorch/kernels/``) on.

The part ``solutions-zh`` runs the Chinese solution notebooks (``lessons/solutions/zh``, made by
``make lessons``) under nbval the same way: the same code with the widgets speaking Chinese,
against the outputs of their own last run. ``learner-copies`` runs the Chinese copies too.

Every core works: each pytest part runs on ``WORKERS`` processes (pytest-xdist; the number
of cores this process may use, or ``MINITORCH_TEST_WORKERS``), a test file or notebook
staying whole on one worker (``--dist loadfile``: a module's fixtures, a server, an MPI
job or a notebook's kernel are made once). With several workers each one gets one BLAS
thread (unless the environment sets one), so the workers do not fight over the cores. Tests
that start servers or browsers take free ports from the OS and temporary folders of their
own, so two at once do not collide. The summary ends with the slowest tests of each part
(from pytest's JUnit XML report), so a suite that grows slower shows where.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
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
BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
PART_NAMES = ("lint", "package", "package-reference", "solutions", "solutions-zh", "learner-copies", "narrow-cpu")
NOTEBOOK_PARTS = ("solutions", "solutions-zh", "learner-copies", "narrow-cpu")  # slowest by notebook, not by cell
SLOWEST_SHOWN = 5  # tests per part in the summary


def workers() -> int:
    """How many pytest processes a part runs on: ``MINITORCH_TEST_WORKERS``, else this process's cores."""
    chosen = os.environ.get("MINITORCH_TEST_WORKERS", "").strip()
    if chosen:
        return max(1, int(chosen))
    cores = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else range(os.cpu_count() or 1)
    return max(1, len(cores))


def spread(n: int) -> list[str]:
    """pytest's arguments to run on ``n`` workers, whole files per worker ([] for one, or without xdist)."""
    if n < 2 or importlib.util.find_spec("xdist") is None:
        return []
    return ["-n", str(n), "--dist", "loadfile"]


def worker_env(base: dict[str, str], n: int) -> dict[str, str]:
    """``base`` with one BLAS thread per process when ``n`` processes share the cores (unless set already)."""
    env = dict(base)
    if n > 1:
        for name in BLAS_THREADS:
            env.setdefault(name, "1")
    return env


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


def parts(n: int = 1) -> dict[str, list[tuple[list[str], dict[str, str] | None]]]:
    """Each part's commands, in order, with the environment of each (None: this one's); pytest on ``n`` workers."""
    lessons = sorted(str(p.relative_to(ROOT)) for p in [*(ROOT / "lessons").glob("*.ipynb"),
                                                        *(ROOT / "lessons" / "zh").glob("*.ipynb")])
    bin_dir = Path(PY).parent
    here = worker_env(dict(os.environ), n)
    on_workers = spread(n)
    return {
        "lint": [
            ([str(bin_dir / "ruff"), "check", "minitorch", "minitorch_course", "widgets", "tests", "bench", "tools",
              "examples", "setup.py"], None),
            ([str(bin_dir / "mypy")], None),
        ],
        "package": [([PY, "-m", "pytest", *on_workers, "tests"], here)],
        # The same tests on the ops as taught: every fast kernel off (minitorch/kernels/).
        "package-reference": [([PY, "-m", "pytest", *on_workers, "tests"], {**here, "MINITORCH_FAST_KERNELS": "0"})],
        "solutions": [(NBVAL + on_workers + SOLUTIONS, here)],
        "solutions-zh": [(NBVAL + on_workers + SOLUTIONS_ZH, here)],
        "learner-copies": [(NBVAL + on_workers + ["--nbval-lax", *lessons], here)],
        "narrow-cpu": [(NBVAL + on_workers + SOLUTIONS, worker_env(narrowed_cpu_env(), n))],
    }


def slowest(report: Path, by_file: bool = False, count: int = SLOWEST_SHOWN) -> list[tuple[float, str]]:
    """The ``count`` slowest tests of a JUnit XML report, (seconds, name), slowest first.

    ``by_file``: the time of each file (a notebook: its cells added up) instead of each test.
    """
    if not report.exists():
        return []
    try:
        cases = list(ET.parse(report).getroot().iter("testcase"))
    except ET.ParseError:
        return []
    times: dict[str, float] = {}
    for case in cases:
        where = case.get("file") or case.get("classname", "")
        name = where if by_file else f"{where}::{case.get('name', '')}"
        times[name] = times.get(name, 0.0) + float(case.get("time") or 0)
    return sorted(((t, n) for n, t in times.items()), reverse=True)[:count]


def default_parts(environ: dict[str, str]) -> list[str]:
    """The parts ``make test`` runs: all of them in CI, all but ``package-reference`` elsewhere.

    The reference run repeats the package tests (about half of the suite's time), which
    would take a newcomer's ``make test`` past 15 minutes on two cores; CI (``CI=true``,
    set by .ci/run) runs it on every change, and ``make test-reference`` runs it alone.
    ``MINITORCH_TEST_REFERENCE=1`` adds it to ``make test`` anywhere.
    """
    wanted = environ.get("CI") == "true" or environ.get("MINITORCH_TEST_REFERENCE") == "1"
    return [name for name in PART_NAMES if wanted or name != "package-reference"]


def main(argv: list[str]) -> int:
    """Run the named parts (the default ones when none is named); print the timing summary; 1 if any failed."""
    chosen = argv or default_parts(dict(os.environ))
    unknown = [name for name in chosen if name not in PART_NAMES]
    if unknown:
        print(f"unknown part(s) {unknown}; the parts are {list(PART_NAMES)}", file=sys.stderr)
        return 2
    n = workers()
    table = parts(n)
    reports = Path(tempfile.mkdtemp(prefix="minitorch-test-reports-"))
    results = []
    try:
        for name in chosen:
            print(f"\n=== {name}" + (f" (on {n} workers)" if spread(n) and name != "lint" else ""), flush=True)
            start, ok = time.perf_counter(), True
            for i, (command, env) in enumerate(table[name]):
                if env is not None and "NPY_DISABLE_CPU_FEATURES" in env:
                    print(f"NPY_DISABLE_CPU_FEATURES={env['NPY_DISABLE_CPU_FEATURES']!r} "
                          f"OPENBLAS_CORETYPE={env['OPENBLAS_CORETYPE']}", flush=True)
                if "pytest" in command:
                    command = [*command, f"--junitxml={reports / f'{name}-{i}.xml'}"]
                ok = subprocess.run(command, cwd=ROOT, env=env).returncode == 0 and ok
            by_file = name in NOTEBOOK_PARTS
            results.append((name, time.perf_counter() - start, ok, sorted(
                (t for i in range(len(table[name])) for t in slowest(reports / f"{name}-{i}.xml", by_file)),
                reverse=True)))
    finally:
        shutil.rmtree(reports, ignore_errors=True)
    print(f"\n=== time per part (pytest on {n} worker(s))")
    for name, seconds, ok, _ in results:
        print(f"  {name:16} {seconds / 60:5.1f} min  {'ok' if ok else 'FAILED'}")
    total = sum(seconds for _, seconds, _, _ in results)
    print(f"  {'total':16} {total / 60:5.1f} min")
    if any(tests for _, _, _, tests in results):
        print("\n=== the slowest tests of each part, in seconds (for the notebooks: each notebook, its cells added up)")
    for name, _, _, tests in results:
        for seconds, test in tests[:SLOWEST_SHOWN]:
            print(f"  {name:16} {seconds:7.1f}  {test}")
    return 0 if all(ok for _, _, ok, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
