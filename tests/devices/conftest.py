"""The fake GPU shared by the device tests: ``fake_cupy.FakeCupy`` installed as ``cupy``."""

import sys

import pytest
from fake_cupy import FakeCupy

import minitorch
from minitorch import backends


@pytest.fixture
def fake_gpu(monkeypatch):
    """A usable fake GPU for one test (the backends are probed again before and after it)."""
    fake = FakeCupy()
    monkeypatch.setitem(sys.modules, "cupy", fake)
    backends.reset_probes()
    assert minitorch.cuda.is_available()
    yield fake
    backends.reset_probes()
