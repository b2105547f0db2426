"""Start a script on N MPI ranks from a notebook, bounded in time: ``launch(script, n, timeout)``.

``mpiexec`` comes with the ``mpich`` wheel, next to this Python. The ranks run in a
temporary folder with one BLAS thread each; whatever stops them is printed in words
(mpiexec missing, the time limit, a rank's error) and ``None`` returned, so the cells
after a failed run say "no measurements" instead of raising.
"""

import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from widgets.i18n import _

MPIEXEC = Path(sys.executable).parent / "mpiexec"


def launch(script: str, n: int = 2, timeout: float = 180) -> str | None:
    """Run ``script`` on ``n`` MPI ranks for at most ``timeout`` seconds: rank 0's stdout, or None."""
    if not MPIEXEC.exists():
        print(_('mpiexec not found: pip install "mpi4py>=4" "mpich>=4" (or make setup), then rerun this cell'))
        return None
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "script.py"
        path.write_text(script)
        env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
        proc = subprocess.Popen([str(MPIEXEC), "-n", str(n), sys.executable, str(path)], cwd=folder, env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)  # mpiexec and every rank: they share its session
            proc.communicate()
            print(_("stopped after {timeout:g} s, still running: every rank was killed (a machine this busy may "
                    "need a longer timeout). The cells below have no measurements to show.", timeout=timeout))
            return None
    if proc.returncode != 0:
        print(_("the MPI run failed (exit code {code}); the end of its error output:\n{error}", code=proc.returncode,
                error=err[-2000:]))
        return None
    return out
