"""A local JupyterHub serving the MiniTorch lessons to several learners (`make hub`).

One machine, one OS account: JupyterHub's dummy authenticator (any user name, one shared
password) and its SimpleLocalProcessSpawner (each learner's Jupyter server is a local
process, started in that learner's own folder). On first login a learner's folder gets a
fresh copy of the learner notebooks from lessons/; later logins keep their work.

This is a classroom *demo*: the hub keeps learners apart (one learner's token or cookie
cannot reach another's server), but every server runs as the same OS user, so code a
learner runs in a kernel could read another learner's folder. For a real class use
Zero-to-JupyterHub (one container and volume per learner): docs/jupyterhub.md.

Settings come from the environment (the Makefile and tests/course/test_hub.py set them):
    MINITORCH_HUB_DIR        state: database, cookie secret, learners' folders (default .hub/)
    MINITORCH_HUB_PORT       the public port on 127.0.0.1 (default 8000)
    MINITORCH_HUB_PASSWORD   the shared password (default "minitorch")
    MINITORCH_HUB_ADMIN      the teacher's user name, a hub admin (default "teacher")
    MINITORCH_HUB_API_TOKEN  if set, a "classroom" service with this token and the admin role
"""

import os
import shutil
import sys
from pathlib import Path

c = get_config()  # noqa: F821 (JupyterHub provides get_config)

REPO = Path(__file__).resolve().parent.parent
LESSONS = REPO / "lessons"
STATE = Path(os.environ.get("MINITORCH_HUB_DIR", REPO / ".hub")).resolve()
USERS = STATE / "users"
PORT = int(os.environ.get("MINITORCH_HUB_PORT", "8000"))
VENV_BIN = Path(sys.executable).parent  # the hub runs from the project's venv

# ---------------------------------------------------------------- network: localhost only
c.JupyterHub.bind_url = f"http://127.0.0.1:{PORT}"
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = int(os.environ.get("MINITORCH_HUB_INTERNAL_PORT", PORT + 1))
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{os.environ.get('MINITORCH_HUB_PROXY_PORT', PORT + 2)}"
c.Spawner.ip = "127.0.0.1"
# configurable-http-proxy from npm, installed into .hub/ by `make hub` (else from PATH).
local_proxy = REPO / ".hub" / "node_modules" / ".bin" / "configurable-http-proxy"
if local_proxy.exists():
    c.ConfigurableHTTPProxy.command = [str(local_proxy)]

# ---------------------------------------------------------------- state files
STATE.mkdir(parents=True, exist_ok=True)
c.JupyterHub.db_url = f"sqlite:///{STATE / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(STATE / "jupyterhub_cookie_secret")
c.JupyterHub.pid_file = str(STATE / "jupyterhub.pid")
c.ConfigurableHTTPProxy.pid_file = str(STATE / "jupyterhub-proxy.pid")

# ---------------------------------------------------------------- who may log in
c.JupyterHub.authenticator_class = "dummy"
c.DummyAuthenticator.password = os.environ.get("MINITORCH_HUB_PASSWORD", "minitorch")
c.Authenticator.allow_all = True  # any learner name, with the shared password
c.Authenticator.admin_users = {os.environ.get("MINITORCH_HUB_ADMIN", "teacher")}

token = os.environ.get("MINITORCH_HUB_API_TOKEN")
if token:  # for scripts (and the load test): create users, start servers, issue tokens
    c.JupyterHub.services = [{"name": "classroom", "api_token": token}]
    c.JupyterHub.load_roles = [{"name": "admin", "services": ["classroom"]}]

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
