"""Run a benchmark's worker on N MPI ranks: ``on_ranks(script, n, args, timeout)`` -> rank 0's JSON output.

The mpiexec next to this Python (the ``mpich`` wheel's) starts ``python script --worker
*args`` on ``n`` ranks with one BLAS thread each; the whole job is killed after
``timeout`` seconds. Rank 0 prints one line of JSON last, which is returned parsed.
"""

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def on_ranks(script, n, args=(), timeout=600):
    """Rank 0's last line of output (JSON) from ``mpiexec -n n python script --worker *args``."""
    mpiexec = Path(sys.executable).parent / "mpiexec"
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1",
               PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    command = [str(mpiexec), "-n", str(n), sys.executable, str(script), "--worker", *map(str, args)]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT,
                            start_new_session=True)  # its own process group: a timeout kills every rank
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise RuntimeError(f"{' '.join(command)} ran over {timeout} s; every rank was killed") from None
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({proc.returncode}):\n{out}\n{err}")
    return json.loads(out.strip().splitlines()[-1])
