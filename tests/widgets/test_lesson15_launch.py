"""Lesson 15's MPI launch is bounded: a deadlocked run is killed after its timeout and says why."""

import time

import pytest

from widgets.lessons import lesson15_data_parallel as lesson15

DEADLOCK = """
from mpi4py import MPI
comm = MPI.COMM_WORLD
comm.ssend(comm.rank, dest=(comm.rank + 1) % comm.size)   # every rank sends first: no one receives
print(comm.recv(source=(comm.rank - 1) % comm.size))
"""


@pytest.mark.skipif(not lesson15.MPIEXEC.exists(), reason="mpiexec (mpich) not installed")
def test_a_deadlocked_run_is_stopped_and_named(capsys):
    start = time.monotonic()
    out = lesson15.launch(DEADLOCK, n=2, timeout=4)
    assert out is None
    assert time.monotonic() - start < 30
    printed = capsys.readouterr().out
    assert "stopped after 4 s" in printed and "deadlock" in printed


@pytest.mark.skipif(not lesson15.MPIEXEC.exists(), reason="mpiexec (mpich) not installed")
def test_a_failing_run_prints_its_error(capsys):
    assert lesson15.launch("raise SystemExit('rank failed on purpose')", n=2, timeout=60) is None
    printed = capsys.readouterr().out
    assert "the MPI run failed (exit code" in printed and "rank failed on purpose" in printed
