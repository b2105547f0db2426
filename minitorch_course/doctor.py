"""``minitorch-course doctor``: what this computer has and lacks for the course, and the fix for each.

One line per part, each with its status: ``ok``, ``note`` (works, with a limit worth knowing),
``missing`` (an optional part: some lessons run without it) or ``problem`` (the course cannot
run: the exit status is then 1), and under each that is not ok, the one command that fixes it
on this operating system (``system_packages``: apt, dnf, pacman, zypper, brew or winget).
"""

from __future__ import annotations

import importlib.util
import platform
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from minitorch_course import system_packages, version

PIP = f'"{sys.executable}" -m pip install'
EXTRA_INSTALL = PIP + ' "minitorch-course[{extra}]"'


@dataclass
class Finding:
    """One part of the report."""

    status: str  # ok, note, missing, problem
    part: str
    detail: str
    fix: str | None = None


def _python() -> Finding:
    v = sys.version_info
    detail = f"{platform.python_version()} ({sys.executable})"
    if v < (3, 10):
        return Finding(
            "problem",
            "Python",
            detail + ": the course needs 3.10 or newer",
            "install Python 3.10+ (https://www.python.org/downloads/) and minitorch-course into it",
        )
    return Finding("ok", "Python", detail)


def _course() -> Finding:
    from minitorch_course import notebooks

    try:
        counts = {lang: len(notebooks.lesson_files(lang)) for lang in notebooks.LANGUAGES}
    except FileNotFoundError as exc:
        return Finding("problem", "lessons", str(exc), PIP + " --force-reinstall minitorch-course")
    import minitorch

    where = Path(minitorch.__file__).resolve().parent.parent
    return Finding(
        "ok",
        "minitorch-course",
        f"{version()} in {where}; lessons: " + ", ".join(f"{n} {lang}" for lang, n in counts.items()),
    )


def numpy_blas_and_cpu() -> Finding:
    """NumPy's version, the BLAS it calls (and that BLAS's CPU kernel), and the SIMD targets NumPy dispatches to."""
    try:
        import numpy as np
    except ImportError:
        return Finding("problem", "NumPy", "not installed", PIP + " numpy")
    parts = [np.__version__]
    blas = None
    try:
        from threadpoolctl import threadpool_info

        info = [i for i in threadpool_info() if i.get("user_api") == "blas"]
        if info:
            i = info[0]
            blas = (
                f"BLAS {i.get('internal_api')} {i.get('version') or ''}".rstrip()
                + f" ({i.get('architecture') or 'kernel ?'}, {i.get('num_threads')} threads)"
            )
    except Exception:  # threadpoolctl missing or unable to read this BLAS
        pass
    config: dict = {}
    try:
        config = np.show_config(mode="dicts") or {}
    except Exception:  # NumPy < 1.25 prints only
        pass
    if blas is None:
        found = config.get("Build Dependencies", {}).get("blas", {})
        blas = f"BLAS {found.get('name', '?')} {found.get('version', '')}".rstrip()
    parts.append(blas)
    simd = config.get("SIMD Extensions", {})
    if simd:
        parts.append(
            f"CPU dispatch: baseline {' '.join(simd.get('baseline', [])) or '-'}, "
            f"found {' '.join(simd.get('found', [])) or '-'}"
        )
    return Finding("ok", "NumPy", ", ".join(parts))


def _dot_version(dot: str) -> str:
    try:
        done = subprocess.run([dot, "-V"], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"(dot -V failed: {exc})"
    text = (done.stderr or done.stdout).strip()  # "dot - graphviz version 2.43.0 (0)"
    return text.split("version", 1)[-1].strip() if "version" in text else text


def graphs(manager: str | None) -> Finding:
    """Graphviz's dot, or the browser's copy of Graphviz: one of the two must be there."""
    from widgets.draw import browser_view

    dot = browser_view.dot_program()
    fix = system_packages.install_command(["graphviz"], manager)
    viz = f"{browser_view.VIZ_PIN['package']} {browser_view.VIZ_PIN['version']}"
    if dot is not None:
        detail = f"Graphviz dot {_dot_version(dot)} ({dot}): graphs are drawn in Python and stored as SVG"
        if browser_view.use_browser():
            detail += f"; MINITORCH_DRAW=browser: drawn in the browser ({viz}) instead"
        return Finding("ok", "graphs", detail)
    if browser_view.VIZ_FILE.is_file() and importlib.util.find_spec("anywidget") is not None:
        return Finding(
            "note",
            "graphs",
            f"no Graphviz dot program: graphs are drawn in the browser by the bundled "
            f"{viz} (a widget; a notebook saved without widget state shows them as text). "
            "Installing Graphviz draws them in Python and stores them as SVG",
            fix,
        )
    lacking = "anywidget" if browser_view.VIZ_FILE.is_file() else f"the bundled {viz} ({browser_view.VIZ_FILE})"
    return Finding(
        "problem",
        "graphs",
        f"no Graphviz dot program, and no {lacking}: no graph can be drawn",
        fix or PIP + " --force-reinstall minitorch-course",
    )


def cjk_fonts(manager: str | None) -> Finding:
    if system_packages.has_cjk_font():
        return Finding("ok", "CJK fonts", f"{system_packages.CJK_FONT} (the Chinese lessons' figures)")
    return Finding(
        "missing",
        "CJK fonts",
        f"no {system_packages.CJK_FONT}: only the Chinese lessons need it (their "
        "figures would show boxes for Chinese characters; graphs drawn in the browser use any Chinese font)",
        system_packages.install_command(["cjk-fonts"], manager),
    )


def gpu() -> Finding:
    if importlib.util.find_spec("cupy") is None:
        return Finding(
            "missing",
            "GPU",
            "CuPy is not installed: lesson 10 runs its CPU parts only (a CUDA GPU and CuPy run all of it)",
            EXTRA_INSTALL.format(extra="gpu") + "   # CUDA 12 drivers; gpu13 for CUDA 13",
        )
    import minitorch

    if minitorch.cuda.is_available():
        return Finding("ok", "GPU", "CuPy with a usable CUDA device")
    return Finding(
        "missing", "GPU", f"no usable GPU ({minitorch.cuda.unavailable_reason()}): lesson 10 runs its CPU parts only"
    )


def mpi() -> Finding:
    mpiexec = Path(sys.executable).parent / ("mpiexec.exe" if sys.platform == "win32" else "mpiexec")
    if importlib.util.find_spec("mpi4py") is not None and (mpiexec.exists() or shutil.which("mpiexec")):
        return Finding("ok", "MPI", f"mpi4py and {mpiexec if mpiexec.exists() else shutil.which('mpiexec')}")
    return Finding(
        "missing",
        "MPI",
        "mpi4py/mpiexec not installed: lesson 15 (data parallel) needs them",
        EXTRA_INSTALL.format(extra="dist"),
    )


def jupyter() -> Finding:
    try:
        from importlib import metadata

        lab = metadata.version("jupyterlab")
    except Exception:
        return Finding("problem", "JupyterLab", "not installed", PIP + " jupyterlab")
    widgets = []
    for name in ("ipywidgets", "anywidget"):
        try:
            widgets.append(f"{name} {metadata.version(name)}")
        except Exception:
            return Finding(
                "problem", "JupyterLab", f"{name} is not installed: the lessons' widgets need it", PIP + f" {name}"
            )
    return Finding("ok", "JupyterLab", f"{lab}, " + ", ".join(widgets))


def findings() -> list[Finding]:
    """Every part, in the report's order."""
    manager = system_packages.package_manager()
    found = [_python(), _course(), numpy_blas_and_cpu(), jupyter(), graphs(manager), cjk_fonts(manager), gpu(), mpi()]
    return found


def report(found: list[Finding]) -> str:
    manager = system_packages.package_manager()
    head = (
        f"minitorch-course doctor: version {version()}, {platform.system()} {platform.machine()}, "
        f"package manager: {manager or 'none found'}"
    )
    lines = [head]
    for f in found:
        lines.append(f"  {f.status:8} {f.part:17} {f.detail}")
        if f.fix and f.status != "ok":
            lines.append(f"  {'':8} {'':17} fix: {f.fix}")
    problems = [f.part for f in found if f.status == "problem"]
    lines.append("Problems: " + ", ".join(problems) if problems else "Everything the lessons need is here.")
    return "\n".join(lines)


def main() -> int:
    found = findings()
    print(report(found))
    return 1 if any(f.status == "problem" for f in found) else 0
