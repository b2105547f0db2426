"""``bench/gpu_check.sh`` sets itself up: the CUDA version it picks, and a dry run without a GPU.

The dry run is the real script on this machine (no NVIDIA driver): it must create its venv,
install CuPy and what the checks need from PyPI, install the project, then stop at "no usable
GPU" with the probe's reason, exit status 2 and the one report file. To keep the download
small it installs the ``gpu-compile`` extra (CuPy without cuBLAS; ``GPU_CHECK_EXTRA``) instead
of ``gpu``'s 1.5 GB ``[ctk]``, which nothing could use without a GPU; pip's cache usually
has those wheels already, from ``make setup``.

Skipped where a GPU is usable or ``nvidia-smi`` exists: ``gpu_check.sh`` itself runs this
directory there.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import minitorch

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "gpu_check.sh"
BASE_PYTHON = getattr(sys, "_base_executable", sys.executable)  # this venv's interpreter, without the venv

pytestmark = pytest.mark.skipif(
    minitorch.cuda.is_available() or shutil.which("nvidia-smi") is not None,
    reason="a GPU machine: bench/gpu_check.sh runs for real here (and runs this file)",
)


def _in_ci():
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def _has_cupy(python):
    return subprocess.run([python, "-c", "import cupy"], capture_output=True, timeout=120).returncode == 0


def run_script(tmp_path, python, path_dirs=(), **env):
    """Run gpu_check.sh with PATH = ``path_dirs`` + /usr/bin:/bin; returns (exit status, stdout, report)."""
    environment = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "GPU_CHECK_EXTRA", "OUT")}
    environment.update(PATH=":".join([*map(str, path_dirs), "/usr/bin", "/bin"]), PYTHON=str(python),
                       OUT=str(tmp_path / "out"), **env)
    done = subprocess.run(["bash", str(SCRIPT)], cwd=ROOT, env=environment, capture_output=True, text=True,
                          timeout=900)
    report = tmp_path / "out" / "gpu_check.md"
    return done.returncode, done.stdout + done.stderr, report.read_text() if report.exists() else ""


def fake_nvidia_smi(folder, cuda):
    """An ``nvidia-smi`` that prints the banner of a driver for CUDA ``cuda``."""
    folder.mkdir()
    script = folder / "nvidia-smi"
    script.write_text(
        "#!/bin/sh\n"
        'case "$1" in --query-gpu*) echo "NVIDIA H100 80GB HBM3, 580.00";; *)\n'
        f'echo "| NVIDIA-SMI 580.00   Driver Version: 580.00   CUDA Version: {cuda}     |";; esac\n'
    )
    script.chmod(0o755)
    return folder


@pytest.mark.parametrize(("cuda", "extra"), [("12.4", "gpu"), ("13.0", "gpu13"), (None, "gpu")])
def test_the_cuda_version_of_the_driver_picks_the_extra(tmp_path, cuda, extra):
    if _has_cupy(BASE_PYTHON):
        pytest.skip(f"{BASE_PYTHON} has CuPy: no venv would be made")
    dirs = [fake_nvidia_smi(tmp_path / "bin", cuda)] if cuda else []
    status, out, report = run_script(tmp_path, BASE_PYTHON, dirs, GPU_CHECK_PLAN="1")
    assert status == 0, out
    assert f"plan: venv with the {extra} extra" in report
    assert (f"CUDA {cuda.split('.')[0]}" in report) if cuda else ("nvidia-smi: not found" in report)


def test_a_python_with_cupy_is_used_as_it_is(tmp_path):
    if not _has_cupy(sys.executable):
        pytest.skip("this Python has no CuPy (the gpu-compile extra is not installed)")
    status, out, report = run_script(tmp_path, sys.executable, GPU_CHECK_PLAN="1")
    assert status == 0 and f"plan: use {sys.executable} (it has CuPy)" in report, out


def test_dry_run_installs_then_stops_at_no_gpu(tmp_path):
    """The whole set-up for real, into a new venv, then the clear stop: exit 2, "no usable GPU: <why>"."""
    if _has_cupy(BASE_PYTHON):
        pytest.skip(f"{BASE_PYTHON} has CuPy: no venv would be made")
    venv = tmp_path / "venv"
    try:
        _dry_run(tmp_path, venv)
    finally:
        shutil.rmtree(venv, ignore_errors=True)  # about 500 MB: not kept among pytest's last temp folders


def _dry_run(tmp_path, venv):
    status, out, report = run_script(tmp_path, BASE_PYTHON, GPU_CHECK_VENV=str(venv), GPU_CHECK_EXTRA="gpu-compile")
    if "FAILED: pip install" in report and not _in_ci():
        pytest.skip("pip could not install from PyPI here (offline?): " + report[-600:])
    assert status == 2, out + report
    assert "nvidia-smi: not found" in report and f"a venv at {venv}" in report
    assert "| set-up | venv" in report and "| usable GPU | NO |" in report
    assert "no usable GPU: CuPy is installed but no CUDA device was found" in report  # the probe ran, in the venv
    assert "nothing was run on a GPU" in out
    python = venv / "bin" / "python"
    where = subprocess.run([str(python), "-c", "import cupy, pytest, sklearn, minitorch; print(minitorch.__file__)"],
                           capture_output=True, text=True, timeout=120, cwd="/")
    assert where.stdout.strip() == str(ROOT / "minitorch" / "__init__.py")  # the project, editable
