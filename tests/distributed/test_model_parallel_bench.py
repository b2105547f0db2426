"""The model-parallel benchmarks run (tiny sizes; no timing is checked): ``bench/zero_memory.py``,
``bench/tp_comm.py`` and ``bench/pipeline_bubble.py`` each launch their workers under mpiexec
and print their tables. Each run is bounded; on timeout its whole process group is killed.
"""

import os
import signal
import subprocess
import sys

import pytest
from conftest import REPO, clean_env, require_mpi


def run_bench(args, timeout=240):
    """``python bench/<args>`` in its own process group: its stdout (killed whole after ``timeout`` s)."""
    require_mpi()
    proc = subprocess.Popen([sys.executable, *args], cwd=REPO, env=clean_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail(f"{' '.join(args)} ran over {timeout} s (killed)\n{out}\n{err}")
    assert proc.returncode == 0, f"{' '.join(args)} failed:\n{out}\n{err}"
    return out


def test_zero_memory_prints_each_ranks_share():
    out = run_bench(["bench/zero_memory.py", "--layers", "1"])
    rows = [line for line in out.splitlines() if line.startswith(("| 2 |", "| 4 |"))]
    assert len(rows) == 2 and "| 231,392 | 1,851,136 B |" in rows[0]


def test_tp_comm_counts_the_two_all_reduces():
    out = run_bench(["bench/tp_comm.py", "--dim", "8", "--tokens", "4", "--steps", "1"])
    assert "bytes per step: 256 counted, 256 predicted (two all-reduces of 4 x 8 float32); equal: True" in out


def test_pipeline_bubble_prints_every_configuration():
    out = run_bench(["bench/pipeline_bubble.py", "--compute", "device", "--forward-ms", "1", "--steps", "1",
                     "--stages", "2"])
    rows = [line for line in out.splitlines() if line.startswith("| 2 |")]
    assert len(rows) == 4 and all("(p-1)" not in r for r in rows)
    assert {r.split("|")[3].strip() for r in rows} == {"ScheduleGPipe", "Schedule1F1B"}
