"""Shared fixtures for the MiniTorch test suite.

Kept small on purpose: each test module builds its own inputs. What lives here is what
every module needs: a seeded NumPy generator and a guard that puts the autograd engine's
global switches (grad mode, debug, anomaly, overridden backwards, observers) back the way
they were, so one failing test cannot leak state into the next.
"""

import numpy as np
import pytest

import minitorch
from minitorch.switches import SWITCHES


@pytest.fixture
def rng():
    """A NumPy Generator with a fixed seed: each test sees the same random inputs every run."""
    return np.random.default_rng(0)


@pytest.fixture(autouse=True)
def _clean_autograd_state():
    """Put the engine's process-wide switches back as they were before every test.

    Observers are restored, not cleared: ``widgets`` registers one when it is imported.
    """
    observers = minitorch.autograd.backward_observers()
    yield
    SWITCHES.reset()
    minitorch.autograd.restore_backward()
    for observer in minitorch.autograd.backward_observers():
        minitorch.autograd.remove_backward_observer(observer)
    for observer in observers:
        minitorch.autograd.add_backward_observer(observer)


# ---------------------------------------------------------------------- devices
def _cuda_param():
    """The "cuda" case: runs on a usable GPU, skipped with the probe's reason otherwise."""
    usable = minitorch.cuda.is_available()
    reason = "no usable GPU: " + minitorch.cuda.unavailable_reason()
    return pytest.param("cuda", marks=[pytest.mark.gpu, pytest.mark.skipif(not usable, reason=reason)], id="cuda")


@pytest.fixture(params=["cpu", _cuda_param()])
def device(request):
    """Each device MiniTorch can run on: "cpu" always, "cuda" where a GPU is usable."""
    return request.param
