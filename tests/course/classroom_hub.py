"""A classroom hub (hub/jupyterhub_config.py as root) for tests/course/test_classroom.py.

``ClassroomHub`` starts the hub in a temporary folder of its own with unique learner and
teacher names, answers ``api()`` calls, runs commands in a user's Jupyter terminal
(``terminal()``) and as the teacher (``teacher()``: hub/teacher.py), and ``close()`` stops
every process it started and removes every user and folder it created.
"""

import asyncio
import grp
import json
import os
import pwd
import random
import shutil
import signal
import socket
import string
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

from classroom import REPO, VENV_BIN, venv_env  # tests/course/classroom.py

CLASS_GROUP = "minitorch-class"  # hub/classroom.py
PROXY_BIN = REPO / ".hub" / "node_modules" / ".bin"


def missing_classroom():
    """Why the classroom hub cannot run here, or None."""
    if os.getuid() != 0:
        return "the classroom hub creates system users: it needs root"
    for tool in ("useradd", "userdel", "groupadd", "cp"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed"
    try:
        import jupyterhub  # noqa: F401
        import jupyterhub_idle_culler  # noqa: F401
        import nbgrader  # noqa: F401
    except ImportError as error:
        return f"{error.name} is not installed (pip install -e '.[course]')"
    if not (PROXY_BIN / "configurable-http-proxy").exists() and shutil.which("configurable-http-proxy") is None:
        return "configurable-http-proxy is not installed (make hub-proxy)"
    return None


def _free_ports(n):
    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


class ClassroomHub:
    """A running classroom hub; ``names[role]`` are its users' (unique) names."""

    def __init__(self, course, roles=("ada", "bob", "cy")):
        tag = "".join(random.choices(string.ascii_lowercase, k=5))
        self.names = {role: f"{role}{tag}" for role in roles}
        self.teacher_name = f"teach{tag}"
        self.group_existed = _group_exists(CLASS_GROUP)
        self.site = Path(tempfile.mkdtemp(prefix="minitorch-hub-"))
        os.chmod(self.site, 0o755)  # like /srv/minitorch: every user may traverse it
        self.course = course
        self.token = uuid.uuid4().hex
        port, internal, proxy = _free_ports(3)
        self.port, self.url = port, f"http://127.0.0.1:{port}"
        self.env = venv_env(
            MINITORCH_HUB_MODE="classroom", MINITORCH_HUB_SITE=str(self.site), MINITORCH_COURSE_DIR=str(course),
            MINITORCH_HUB_ADMIN=self.teacher_name, MINITORCH_HUB_API_TOKEN=self.token,
            MINITORCH_HUB_PORT=str(port), MINITORCH_HUB_INTERNAL_PORT=str(internal),
            MINITORCH_HUB_PROXY_PORT=str(proxy), MINITORCH_HUB_CULL_AFTER="900")
        self.env["PATH"] = f"{PROXY_BIN}{os.pathsep}{self.env['PATH']}"
        self.log_path = Path(tempfile.mkdtemp(prefix="minitorch-hub-log-")) / "hub.log"
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen([str(VENV_BIN / "jupyterhub"), "-f", str(REPO / "hub" / "jupyterhub_config.py")],
                                     cwd=self.site, env=self.env, stdout=self.log, stderr=subprocess.STDOUT,
                                     start_new_session=True)

    # ------------------------------------------------------------ talking to it
    def api(self, method, path, token=None, body=None, timeout=30):
        """(status, parsed JSON or text) of one request; never raises on an HTTP error status."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, method=method,
                                         headers={"Authorization": f"token {token or self.token}"})
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                status, text = response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            status, text = error.code, error.read().decode(errors="replace")
        try:
            return status, json.loads(text) if text else None
        except json.JSONDecodeError:
            return status, text

    def wait_ready(self, timeout=240):
        """Until the hub answers (its first start copies the runtime: up to a minute or two)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, f"the hub exited: {self.log_tail()}"
            try:
                if self.api("GET", "/hub/api/", timeout=2)[0] == 200:
                    return
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            time.sleep(0.5)
        raise AssertionError(f"the hub did not answer within {timeout} s: {self.log_tail()}")

    def log_tail(self, chars=4000):
        self.log.flush()
        return self.log_path.read_text(errors="replace")[-chars:]

    def user_token(self, name):
        status, model = self.api("POST", f"/hub/api/users/{name}/tokens", body={"note": "classroom test"})
        assert status == 201, (status, model)
        return model["token"]

    def teacher(self, *args, timeout=600):
        """hub/teacher.py ARGS (as root: it runs nbgrader as the teacher); its output."""
        proc = subprocess.run([str(VENV_BIN / "python"), str(REPO / "hub" / "teacher.py"), *args], env=self.env,
                              capture_output=True, text=True, timeout=timeout)
        assert proc.returncode == 0, f"teacher.py {args} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
        return proc.stdout + proc.stderr

    def terminal(self, name, token, command, timeout=120):
        """Run ``command`` in a new Jupyter terminal of ``name`` (as a learner would); its output."""
        status, model = self.api("POST", f"/user/{name}/api/terminals", token=token)
        assert status == 200, (status, model)
        try:
            return _in_own_loop(lambda: _terminal_io(self.url, name, token, model["name"], command, timeout))
        finally:
            self.api("DELETE", f"/user/{name}/api/terminals/{model['name']}", token=token)

    # ------------------------------------------------------------ cleaning up
    def close(self):
        """Stop the hub (it stops servers and proxy), then anything left by PID; remove users, folders."""
        users = [*self.names.values(), self.teacher_name]
        timings = {}
        started = time.monotonic()
        # The idle culler (a hub service) takes ~30 s to stop when the hub asks: stop it first.
        for pid in _children(self.proc.pid):
            _kill_if(pid, "jupyterhub_idle_culler", signal.SIGTERM)
        if self.proc.poll() is None:  # the hub stops every server at once on SIGTERM
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)
        timings["hub stopped"] = time.monotonic() - started
        _kill_processes_of(users)
        proxy_pid_file = self.site / "state" / "jupyterhub-proxy.pid"
        if proxy_pid_file.exists() and proxy_pid_file.read_text().strip():
            _kill_if(int(proxy_pid_file.read_text()), "configurable-http-proxy")
        for name in users:
            if _user_exists(name):
                subprocess.run(["userdel", "-r", name], capture_output=True, timeout=30)
        if not self.group_existed and _group_exists(CLASS_GROUP) and not grp.getgrnam(CLASS_GROUP).gr_mem:
            subprocess.run(["groupdel", CLASS_GROUP], capture_output=True, timeout=30)
        for name in users:  # the per-server cgroups (hub/classroom_limits.py), now empty
            for folder in Path("/sys/fs/cgroup").glob(f"**/minitorch-{name}"):
                try:
                    folder.rmdir()
                except OSError:
                    pass
        timings["users removed"] = time.monotonic() - started
        self.log.close()
        subprocess.run(["rm", "-rf", str(self.site)], timeout=120)  # ~90k hard links: faster than rmtree
        shutil.rmtree(self.log_path.parent, ignore_errors=True)
        timings["folders removed"] = time.monotonic() - started
        print("classroom hub closed:", {step: round(t, 1) for step, t in timings.items()}, flush=True)


async def _terminal_io(url, name, token, terminal, command, timeout):
    from tornado.httpclient import HTTPRequest
    from tornado.websocket import websocket_connect

    ws_url = url.replace("http", "ws") + f"/user/{name}/terminals/websocket/{terminal}"
    ws = await asyncio.wait_for(websocket_connect(HTTPRequest(ws_url, headers={"Authorization": f"token {token}"})), 30)
    # The echo of the typed line shows END""MARK; only the command's output shows ENDMARK.
    await ws.write_message(json.dumps(["stdin", f"{command}; echo END''MARK\r"]))
    output, deadline = "", time.monotonic() + timeout
    try:
        while "ENDMARK" not in output:
            raw = await asyncio.wait_for(ws.read_message(), max(1, deadline - time.monotonic()))
            assert raw is not None, f"{name}'s terminal closed: {output[-2000:]}"
            kind, *rest = json.loads(raw)
            if kind == "stdout":
                output += rest[0]
    finally:
        ws.close()
    return output


def _in_own_loop(coroutine_function):
    """``asyncio.run`` in a thread of its own (Playwright's sync API owns this thread's loop)."""
    box = {}

    def target():
        try:
            box["result"] = asyncio.run(coroutine_function())
        except BaseException as exc:  # re-raised in the caller's thread below
            box["error"] = exc

    worker = threading.Thread(target=target)
    worker.start()
    worker.join()
    if "error" in box:
        raise box["error"]
    return box["result"]


def _user_exists(name):
    try:
        pwd.getpwnam(name)
        return True
    except KeyError:
        return False


def _group_exists(name):
    try:
        grp.getgrnam(name)
        return True
    except KeyError:
        return False


def _kill_processes_of(users):
    """SIGKILL every process still running as one of ``users`` (their servers and kernels)."""
    uids = {pwd.getpwnam(name).pw_uid for name in users if _user_exists(name)}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid in uids:
                    os.kill(int(entry.name), signal.SIGKILL)
            except (FileNotFoundError, ProcessLookupError, PermissionError):
                pass


def _kill_if(pid, word, sig=signal.SIGKILL):
    """Send ``sig`` to ``pid`` if its command line still contains ``word`` (PIDs get reused)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            if word.encode() in f.read():
                os.kill(pid, sig)
    except (FileNotFoundError, ProcessLookupError):
        pass


def _children(pid):
    """The PIDs whose parent is ``pid``."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
        except (FileNotFoundError, ProcessLookupError, IndexError):
            pass
    return found
