"""The classroom hub's authenticator and spawner: one OS user per learner (``make hub`` as root).

As The Littlest JupyterHub does, the hub runs as root and creates a system user for each
learner on their first login; that learner's Jupyter server and kernels run as that user,
with a 0700 home. A name that already belongs to a system account the hub did not create
(root, daemon, ...) is refused.

``FirstUsePasswordAuthenticator``: a name's first login sets its password (stored as a
salted scrypt hash in the hub's private state); later logins must give it. With a roster
(``make roster``), only the roster's ids and the teacher may log in.
"""

import grp
import hashlib
import hmac
import json
import os
import pwd
import secrets
import subprocess
from pathlib import Path

import classroom_limits
from jupyterhub.auth import Authenticator
from jupyterhub.spawner import LocalProcessSpawner, set_user_setuid
from traitlets import Integer, Unicode

CLASS_GROUP = "minitorch-class"  # every system user this hub created, and only those


class ClassroomError(Exception):
    """A login or a server start that the classroom must refuse."""


def ensure_system_user(name, homes):
    """The system user ``name`` (created in ``homes`` on first use); refuses foreign accounts."""
    try:
        account = pwd.getpwnam(name)
    except KeyError:
        account = None
    if account is not None:
        if name not in grp.getgrnam(CLASS_GROUP).gr_mem:
            raise ClassroomError(f"{name!r} is a system account this hub did not create")
        return account
    home = Path(homes) / name
    subprocess.run(["useradd", "--create-home", "--home-dir", str(home), "--shell", "/bin/bash",
                    "--user-group", "--groups", CLASS_GROUP, name], check=True, capture_output=True)
    os.chmod(home, 0o700)
    account = pwd.getpwnam(name)
    quiet_lab(home, account)
    return account


def quiet_lab(home, account):
    """JupyterLab settings for a class: no news or update checks popping up over the lessons."""
    folder = home / ".jupyter" / "lab" / "user-settings" / "@jupyterlab" / "apputils-extension"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False}))
    for path in [folder, *folder.parents]:
        if path == home:
            break
        os.chown(path, account.pw_uid, account.pw_gid)
    os.chown(folder / "notification.jupyterlab-settings", account.pw_uid, account.pw_gid)


def ensure_class_group():
    try:
        grp.getgrnam(CLASS_GROUP)
    except KeyError:
        subprocess.run(["groupadd", "--system", CLASS_GROUP], check=True, capture_output=True)


class FirstUsePasswordAuthenticator(Authenticator):
    """The first login of a name sets its password; later ones must match it."""

    password_file = Unicode(help="JSON file of name -> salted scrypt hash (root only)").tag(config=True)
    roster_file = Unicode("", help="if it exists: one allowed name a line").tag(config=True)
    min_password_length = Integer(6).tag(config=True)

    def _load(self):
        path = Path(self.password_file)
        return json.loads(path.read_text()) if path.exists() else {}

    def _save(self, hashes):
        path = Path(self.password_file)
        path.write_text(json.dumps(hashes))
        os.chmod(path, 0o600)

    def on_roster(self, name):
        roster = Path(self.roster_file) if self.roster_file else None
        if roster is None or not roster.exists() or name in self.admin_users:
            return True
        return name in roster.read_text().split()

    def set_password(self, name, password):
        """Store ``password`` for ``name`` (replacing any earlier one)."""
        hashes = self._load()
        salt = secrets.token_hex(16)
        hashes[name] = [salt, _hash(password, salt)]
        self._save(hashes)

    def has_password(self, name):
        return name in self._load()

    async def authenticate(self, handler, data):
        name, password = data["username"], data["password"]
        if not self.on_roster(name):
            self.log.warning("login refused: %s is not on the roster", name)
            return None
        hashes = self._load()
        if name not in hashes:
            if len(password) < self.min_password_length:
                self.log.warning("first login of %s refused: password shorter than %d",
                                 name, self.min_password_length)
                return None
            self.set_password(name, password)
            return name
        salt, expected = hashes[name]
        return name if hmac.compare_digest(_hash(password, salt), expected) else None


def teacher_password(authenticator, name, state):
    """The teacher's first password: made here (never by whoever logs in first), kept root-only."""
    path = Path(state) / "teacher-password"
    if not authenticator.has_password(name):
        password = secrets.token_urlsafe(12)
        authenticator.set_password(name, password)
        path.write_text(password + "\n")
        os.chmod(path, 0o600)
    return path


def _hash(password, salt):
    return hashlib.scrypt(password.encode(), salt=salt.encode(), n=2**14, r=8, p=1).hex()


class ClassroomSpawner(LocalProcessSpawner):
    """LocalProcessSpawner whose users are created on first start, with limits where possible."""

    homes = Unicode(help="where learners' homes are created").tag(config=True)
    teacher = Unicode(help="the teacher's name: its server gets nbgrader's teacher tools").tag(config=True)
    course_dir = Unicode(help="the teacher's nbgrader course folder (their server starts there)").tag(config=True)
    site_env = None  # set by the config: callable(teacher: bool) -> environment dict

    async def start(self):
        ensure_system_user(self.user.name, self.homes)
        is_teacher = self.user.name == self.teacher
        self.environment.update(self.site_env(is_teacher))
        if is_teacher:
            self.notebook_dir = self.course_dir
            self.default_url = "/formgrader"
        return await super().start()

    def make_preexec_fn(self, name):
        become_user = set_user_setuid(name)
        join_limits = classroom_limits.preexec(name, self.mem_limit, self.cpu_limit)

        def preexec():
            join_limits()  # still root here: enter this learner's cgroup, then drop privileges
            become_user()

        return preexec

    async def stop(self, now=False):
        await super().stop(now=now)
        classroom_limits.remove(self.user.name)
