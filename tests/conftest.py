"""Shared fixtures for the MiniTorch test suite.

Kept small on purpose: each test module builds its own inputs. What lives here is what
every module needs: a seeded NumPy generator and a guard that puts the autograd engine's
global switches (grad mode, debug, anomaly, overridden backwards, observers) back the way
they were, so one failing test cannot leak state into the next.
"""

import numpy as np
import pytest

import minitorch
from minitorch.autograd import anomaly, engine, grad_mode


@pytest.fixture
def rng():
    """A NumPy Generator with a fixed seed: each test sees the same random inputs every run."""
    return np.random.default_rng(0)


@pytest.fixture(autouse=True)
def _clean_autograd_state():
    """Reset the engine's process-wide switches after every test."""
    yield
    grad_mode._STATE[0] = True
    anomaly.ANOMALY[0] = False
    minitorch.autograd.set_debug(False)
    minitorch.autograd.restore_backward()
    engine._OBSERVERS.clear()
