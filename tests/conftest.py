"""Shared fixtures for the MiniTorch test suite.

Kept small on purpose: each test module builds its own inputs. What lives here is what
every module needs: a seeded NumPy generator and a guard that puts the autograd engine's
global switches (grad mode, debug, anomaly, overridden backwards, observers) back the way
they were, so one failing test cannot leak state into the next.
"""

import re

import numpy as np
import pytest

import minitorch
from minitorch.autograd.engine import ENGINE
from minitorch.switches import SWITCHES

ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def pytest_collection_modifyitems(items):
    """Refuse test ids that hold a memory address (``<function <lambda> at 0x7f...>``).

    Such an id differs from one process to the next, and ``make test`` runs the suite on
    several pytest-xdist workers, which must collect the same ids: name the case instead.
    """
    bad = [item.nodeid for item in items if ADDRESS.search(item.nodeid)]
    if bad:
        raise pytest.UsageError(f"{len(bad)} test id(s) hold a memory address, which changes between processes "
                                f"(pytest-xdist's workers must collect the same ids): {bad[:3]}")


@pytest.fixture
def rng():
    """A NumPy Generator with a fixed seed: each test sees the same random inputs every run."""
    return np.random.default_rng(0)


@pytest.fixture(autouse=True)
def _clean_autograd_state():
    """Put every piece of process-wide state back to its defaults after each test.

    That state lives in three named objects, each with ``reset()``: ``SWITCHES`` (grad mode,
    debug, anomaly, kernels, default dtype and device, autocast, the conv design), the
    engine's ``ENGINE`` (observers, queued callbacks, passes running) and the op registry
    (``restore_backward()`` undoes every ``override_backward``). Observers that were there
    before the test (a widget's recorder, if a test module opened one) are put back.
    """
    observers = minitorch.autograd.backward_observers()
    yield
    SWITCHES.reset()
    minitorch.autograd.restore_backward()
    ENGINE.reset()
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


def path_without(programs, folder):
    """A PATH like this one on which none of ``programs`` is found (Graphviz's ``dot``, say).

    Removing a whole folder such as /usr/bin would take Python and the shell with it, so
    ``folder`` gets a link to every other program of every PATH folder, and that folder
    alone is the PATH.
    """
    import os
    from pathlib import Path

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for entry in os.environ.get("PATH", "").split(os.pathsep):
        if not entry or not os.path.isdir(entry):
            continue
        for item in os.scandir(entry):
            link = folder / item.name
            if item.name in programs or link.exists() or link.is_symlink():
                continue  # a program hidden, or one an earlier PATH folder already has
            if item.is_file() and os.access(item.path, os.X_OK):
                link.symlink_to(item.path)
    return str(folder)


@pytest.fixture(scope="session")
def path_without_dot(tmp_path_factory):
    """A PATH on which Graphviz's ``dot`` is not found: graphs are drawn in the browser."""
    return path_without({"dot"}, tmp_path_factory.mktemp("path-without-dot"))


@pytest.fixture(scope="session")
def make_path_without():
    """``path_without(programs, folder)`` for tests that need such a PATH in a folder of their own."""
    return path_without
