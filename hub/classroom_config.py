"""Classroom mode of hub/jupyterhub_config.py, run by it (``c``, ``SITE``, ``ADMIN``, ... are its names).

One OS user per learner (hub/classroom.py), the hub's folder laid out by hub/classroom_site.py.
"""
# ruff: noqa: F821
import classroom
import classroom_limits
import classroom_site

classroom.ensure_class_group()
classroom_site.ensure_folders(SITE)
classroom.ensure_system_user(ADMIN, SITE.home)
classroom_site.prepare(SITE, teacher=ADMIN)

# ---------------------------------------------------------------- who may log in
c.JupyterHub.authenticator_class = classroom.FirstUsePasswordAuthenticator
c.FirstUsePasswordAuthenticator.password_file = str(SITE.state / "passwords.json")
c.FirstUsePasswordAuthenticator.roster_file = str(SITE.state / "roster.txt")  # make roster
c.Authenticator.allow_all = True  # every name (on the roster, once there is one)
c.Authenticator.admin_users = {ADMIN}
# System user names: lower-case letters, digits, - and _, starting with a letter.
c.Authenticator.username_pattern = r"^[a-z][a-z0-9_-]{0,30}$"
c.JupyterHub.admin_access = False  # an admin may not open a learner's server
_passwords = classroom.FirstUsePasswordAuthenticator(
    password_file=c.FirstUsePasswordAuthenticator.password_file)
print(f"classroom hub: the teacher {ADMIN!r} logs in with the password in "
      f"{classroom.teacher_password(_passwords, ADMIN, SITE.state)} (root only)", file=sys.stderr)

# ---------------------------------------------------------------- each user's server
c.JupyterHub.spawner_class = classroom.ClassroomSpawner
c.ClassroomSpawner.homes = str(SITE.home)
c.ClassroomSpawner.teacher = ADMIN
c.ClassroomSpawner.course_dir = str(SITE.course)
classroom.ClassroomSpawner.site_env = SITE.learner_env
c.Spawner.cmd = [str(SITE.venv_bin / "jupyterhub-singleuser")]
c.Spawner.default_url = "/lab"  # the Assignments tab: Nbgrader > Assignment List
c.Spawner.notebook_dir = "~"
c.Spawner.start_timeout = 90
c.Spawner.http_timeout = 90
c.Spawner.mem_limit = os.environ.get("MINITORCH_HUB_MEM_LIMIT", "2G")
c.Spawner.cpu_limit = float(os.environ.get("MINITORCH_HUB_CPU_LIMIT", "1"))
enforced = classroom_limits.supported()
print(f"classroom hub in {SITE.root}: per-server limits enforced: {sorted(enforced) or 'none'}",
      file=sys.stderr)

# ---------------------------------------------------------------- stop idle servers
cull_after = int(os.environ.get("MINITORCH_HUB_CULL_AFTER", "3600"))
c.JupyterHub.services = list(c.JupyterHub.services or []) + [{
    "name": "idle-culler",
    "command": [sys.executable, "-m", "jupyterhub_idle_culler", f"--timeout={cull_after}",
                f"--cull-every={max(10, min(300, cull_after // 4))}"],
}]
c.JupyterHub.load_roles = list(c.JupyterHub.load_roles or []) + [{
    "name": "idle-culler",
    "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"],
    "services": ["idle-culler"],
}]
