"""Run a benchmark's worker on N MPI ranks: ``on_ranks(script, n, args, timeout)`` -> rank 0's JSON output.

The mpiexec next to this Python (the ``mpich`` wheel's) starts ``python script --worker
*args`` on ``n`` ranks with one BLAS thread each; the whole job is killed after
``timeout`` seconds. Rank 0 prints one line of JSON last, which is returned parsed.
"""

import json
import os
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
    out = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env, cwd=ROOT)
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({out.returncode}):\n{out.stdout}\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])
