"""A local JupyterHub serving the MiniTorch lessons to a class (`make hub`). Two modes:

**Classroom** (the hub runs as root; the default then): one OS user per learner, as The
Littlest JupyterHub does (hub/classroom.py). A learner's first login sets their password and
creates their system user, home 0700; their server, kernels and terminals run as that user,
with nbgrader set up for the course (the Assignments tab: fetch, submit, feedback) and
nbgrader's teacher tools disabled. The teacher (MINITORCH_HUB_ADMIN) is a separate user who
owns the nbgrader course folder (0700) and lands on the Formgrader. Learners cannot read the
checkout, lessons/solutions/, the course source or the hub's state (hub/classroom_site.py
has the layout). Idle servers are stopped (jupyterhub-idle-culler); memory and CPU are
limited per server where cgroups can be written (hub/classroom_limits.py).

**Demo** (not root, or MINITORCH_HUB_MODE=demo; hub/demo_config.py): every server runs as the
hub's own OS user, any name with one shared password, each learner's copy of the lessons in
STATE/users/NAME. HTTP is kept apart, but code in one learner's kernel can read every other
learner's folder: a demo, not a class.

Settings come from the environment (the Makefile and tests/course/ set them):
    MINITORCH_HUB_MODE       "classroom" or "demo" (default: classroom as root, else demo)
    MINITORCH_HUB_SITE       classroom: the hub's folder (default /srv/minitorch)
    MINITORCH_COURSE_DIR     classroom: the nbgrader course to serve (default course/)
    MINITORCH_HUB_DIR        demo: state and learners' folders (default .hub/)
    MINITORCH_HUB_PORT       the public port on 127.0.0.1 (default 8000)
    MINITORCH_HUB_PASSWORD   demo: the shared password (default "minitorch")
    MINITORCH_HUB_ADMIN      the teacher's user name, a hub admin (default "teacher")
    MINITORCH_HUB_MEM_LIMIT, MINITORCH_HUB_CPU_LIMIT   classroom: per server (default 2G, 1)
    MINITORCH_HUB_CULL_AFTER classroom: seconds before an idle server is stopped (default 3600)
    MINITORCH_HUB_API_TOKEN  if set, a "classroom" service with this token and the admin role
"""

import os
import sys
from pathlib import Path

c = get_config()  # noqa: F821 (JupyterHub provides get_config)

REPO = Path(__file__).resolve().parent.parent
LESSONS = REPO / "lessons"
MODE = os.environ.get("MINITORCH_HUB_MODE") or ("classroom" if os.getuid() == 0 else "demo")
if MODE == "classroom":
    sys.path.insert(0, str(Path(__file__).resolve().parent))  # hub/classroom*.py
    from classroom_site import Site

    SITE = Site(os.environ.get("MINITORCH_HUB_SITE", "/srv/minitorch"))
    STATE = SITE.state
else:
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

# ---------------------------------------------------------------- who may log in, each server
ADMIN = os.environ.get("MINITORCH_HUB_ADMIN", "teacher")
token = os.environ.get("MINITORCH_HUB_API_TOKEN")
if token:  # for scripts (and the tests): create users, start servers, issue tokens
    c.JupyterHub.services = [{"name": "classroom", "api_token": token}]
    c.JupyterHub.load_roles = [{"name": "admin", "services": ["classroom"]}]
HERE = Path(__file__).resolve().parent
if MODE == "classroom":
    if os.getuid() != 0:
        raise SystemExit("MINITORCH_HUB_MODE=classroom needs root: it creates a system user per learner")
    exec((HERE / "classroom_config.py").read_text())
else:
    print("make hub: DEMO mode (not root): every learner's server runs as this one OS user, "
          "so learners can read each other's files; see docs/jupyterhub.md", file=sys.stderr)
    exec((HERE / "demo_config.py").read_text())
