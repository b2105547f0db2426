"""minitorch.kernels.cpu.host_memory: freed NumPy temporaries are reused, not faulted in afresh."""

import platform
import subprocess
import sys

import numpy as np
import pytest

import minitorch  # noqa: F401  (the import sets the thresholds)
from minitorch.kernels.cpu import host_memory

glibc = pytest.mark.skipif(
    not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc", reason="mallopt is glibc's"
)


def _faults_of_big_temporaries(steps: int = 20) -> int:
    """Minor page faults while a loop allocates, touches and frees 4 MB arrays."""
    import resource

    x = np.ones((32, 64, 512), dtype=np.float32)
    for _ in range(3):  # the first allocations may fault: the heap grows to hold them
        y = x * 2
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(steps):
        y = x * 2  # a fresh 4 MB result, written in full, freed at the next iteration
        y += 1
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before


@glibc
def test_big_temporaries_reuse_freed_memory():
    # With glibc's defaults each 4 MB result would be fresh mmap'd pages: 1024 faults each.
    assert host_memory.keep_freed_memory() is True
    assert _faults_of_big_temporaries() < 200


def _kept_at_import(**env: str) -> str:
    """``host_memory.KEPT_AT_IMPORT`` in a fresh process with ``env``."""
    code = "import minitorch; from minitorch.kernels.cpu import host_memory as h; print(h.KEPT_AT_IMPORT)"
    out = subprocess.run([sys.executable, "-c", code], env={**env, "PATH": "", "PYTHONPATH": ":".join(sys.path)},
                         capture_output=True, text=True, check=True, timeout=120)  # fmt: skip
    return out.stdout.strip()


@glibc
def test_the_import_keeps_freed_memory_with_the_fast_kernels_on():
    assert _kept_at_import() == "True"


@glibc
@pytest.mark.parametrize("variable", ["MINITORCH_KEEP_FREED_MEMORY", "MINITORCH_FAST_KERNELS"])
def test_either_environment_variable_keeps_glibc_defaults(variable):
    assert _kept_at_import(**{variable: "0"}) == "False"


def test_no_glibc_leaves_malloc_alone(monkeypatch):
    monkeypatch.setattr(host_memory.platform, "libc_ver", lambda: ("", ""))
    assert host_memory.keep_freed_memory() is False
