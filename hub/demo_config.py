"""Demo mode of hub/jupyterhub_config.py, run by it (``c``, ``USERS``, ... are its names).

One OS user for all: any name, one shared password, each learner's lessons in USERS/NAME.
"""
# ruff: noqa: F821
import os
import shutil
from pathlib import Path

# ---------------------------------------------------------------- who may log in
c.JupyterHub.authenticator_class = "dummy"
c.DummyAuthenticator.password = os.environ.get("MINITORCH_HUB_PASSWORD", "minitorch")
c.Authenticator.allow_all = True  # any learner name, with the shared password
c.Authenticator.admin_users = {ADMIN}

# ---------------------------------------------------------------- each learner's server
c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = str(USERS / "{username}")
c.Spawner.cmd = [str(VENV_BIN / "jupyterhub-singleuser")]
c.Spawner.default_url = "/lab/tree/00_welcome.ipynb"
c.Spawner.environment = {"PATH": f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
c.Spawner.start_timeout = 60
c.Spawner.http_timeout = 60
if os.getuid() == 0:  # containers often run as root; Jupyter refuses root unless told
    c.Spawner.args = ["--ServerApp.allow_root=True"]


def give_lessons(spawner):
    """Copy the learner notebooks into the learner's folder; never overwrite their work."""
    home = Path(spawner.home_dir)
    home.mkdir(parents=True, exist_ok=True)
    for notebook in sorted(LESSONS.glob("*.ipynb")):
        if not (home / notebook.name).exists():
            shutil.copy(notebook, home / notebook.name)


c.Spawner.pre_spawn_hook = give_lessons
