"""Running scripts on several MPI ranks from pytest: ``mpi_run(args, n=2, timeout=60)``.

``mpiexec`` comes from the ``mpich`` wheel, next to this Python (``.venv/bin/mpiexec``).
Each run gets a timeout; on timeout the whole process group (mpiexec and every rank) is
killed, so a deadlocked collective cannot hang the suite.

When mpi4py or mpiexec is missing the tests skip with the reason, except under CI
(``CI=true``), where that is a failure: CI must really run them (``make test`` installs
them from the ``dist`` extra).
"""

import importlib.util
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
# The fake CuPy lives with the device tests; the NCCL tests build on it.
if str(HERE.parent / "devices") not in sys.path:
    sys.path.append(str(HERE.parent / "devices"))


def in_ci():
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def find_mpiexec():
    """The mpiexec next to this Python (the mpich wheel's), else one on PATH, else None."""
    local = Path(sys.executable).parent / "mpiexec"
    if local.exists() and os.access(local, os.X_OK):
        return str(local)
    return shutil.which("mpiexec")


def missing_mpi_reason():
    if importlib.util.find_spec("mpi4py") is None:
        return 'mpi4py is not installed (pip install "mpi4py>=4" "mpich>=4", or make setup)'
    if find_mpiexec() is None:
        return 'no mpiexec next to this Python or on PATH (pip install "mpich>=4")'
    return None


def require_mpi():
    """Skip (fail under CI) when MPI is missing."""
    reason = missing_mpi_reason()
    if reason is not None:
        if in_ci():
            pytest.fail(f"CI=true but MPI is missing: {reason}")
        pytest.skip(reason)


def clean_env():
    """This environment without the variables an MPI process of ours may have set, one BLAS thread."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PMI_", "PMIX_", "MPIR_", "HYDRA_", "MPI_"))}
    env.update(OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1", PYTHONHASHSEED="0")
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), str(HERE), str(HERE.parent / "devices"), env.get("PYTHONPATH", "")])
    return env


def run_mpi(args, n=2, timeout=60, mpiexec_options=()):
    """Run ``python *args`` on ``n`` ranks; returns (returncode, stdout, stderr). Kills all on timeout."""
    command = [find_mpiexec(), *mpiexec_options, "-n", str(n), sys.executable, *args]
    proc = subprocess.Popen(command, cwd=REPO, env=clean_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)  # its own process group, to kill it whole
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail(f"mpiexec -n {n} {' '.join(args)} ran over {timeout} s (killed)\n{out}\n{err}")
    return proc.returncode, out, err


@pytest.fixture
def mpi_run():
    """``mpi_run(args, n=2, timeout=60)``: see the module docstring."""
    require_mpi()
    return run_mpi
