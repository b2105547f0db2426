"""Helpers shared by the classroom tests (nbgrader, JupyterHub): `from classroom import ...`.

A missing component (nbgrader, jupyterhub, node's configurable-http-proxy) skips these
tests locally, with the reason, but fails them under CI (``CI=true``): CI must run them,
as for the browser tests.
"""

import os
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
VENV_BIN = Path(sys.executable).parent


def in_ci():
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def require(reason):
    """Skip (locally) or fail (under CI) when ``reason`` is not None."""
    if reason is None:
        return
    if in_ci():
        pytest.fail(f"CI=true, so this classroom test must run, but: {reason}", pytrace=False)
    pytest.skip(reason)


def venv_env(**extra):
    """os.environ with this Python's bin/ first on PATH (nbgrader runs ``alembic`` by name)."""
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(VENV_BIN), env.get("PATH", "")])
    env.update(extra)
    return env
