"""The fake GPU shared by the device tests: ``fake_cupy.FakeCupy`` installed as ``cupy``.

``cuda_source`` is imported first, so the installed CuPy (if any) is loaded before any test
puts a fake in its place in ``sys.modules``.
"""

import cuda_source  # noqa: F401 - loads the real CuPy before any fake replaces it
import fake_cupy
import pytest

import minitorch
from minitorch import backends
from minitorch.kernels import use_fast_kernels

cuda_source.installed_cupy()


@pytest.fixture
def fake_gpu(monkeypatch):
    """A usable fake GPU for one test (the backends are probed again before and after it)."""
    fake = fake_cupy.install(monkeypatch)
    backends.reset_probes()
    assert minitorch.cuda.is_available()
    yield fake
    backends.reset_probes()


@pytest.fixture
def fast_kernels():
    """The fast kernels on for one test that is about the GPU's kernels (even under
    ``MINITORCH_FAST_KERNELS=0``, where every other test runs the reference ops)."""
    with use_fast_kernels(True):
        yield
