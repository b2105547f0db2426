"""The local JupyterHub (hub/jupyterhub_config.py, `make hub`) under a small class's load.

Four learners log in with the shared password, each gets a server with their own copy of
the lessons, opens lesson 02 (a notebook session) and runs it to the end through their
server's kernel channel -- all four at the same time. Every cell must run without an
error. Then isolation: a learner's token cannot read, write or start kernels in another
learner's server, and on disk each learner's work is in their own folder only.

Everything listens on 127.0.0.1 with free ports; every step has a timeout; the servers,
their kernels, the proxy and the hub are stopped at the end (by API, then by PID).
"""

import asyncio
import http.cookiejar
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid

import nbformat
import pytest
from classroom import REPO, VENV_BIN, require, venv_env  # tests/course/classroom.py

LEARNERS = ["ada", "bob", "cy", "dee"]
LESSON = "02_graphs_chain_rule.ipynb"
PASSWORD = "class-of-four"
PROXY = REPO / ".hub" / "node_modules" / ".bin" / "configurable-http-proxy"
CELL_TIMEOUT = 120  # seconds for one cell, four kernels sharing two cores
RUN_TIMEOUT = 300  # the whole lesson, all four learners


def _missing_hub():
    try:
        import jupyterhub  # noqa: F401
        import tornado.websocket  # noqa: F401
    except ImportError:
        return "jupyterhub is not installed (pip install -e '.[course]')"
    if not (VENV_BIN / "jupyterhub-singleuser").exists():
        return "jupyterhub-singleuser is not next to this Python"
    if not PROXY.exists() and shutil.which("configurable-http-proxy") is None:
        return "configurable-http-proxy is not installed (make hub-proxy: npm install into .hub/)"
    if shutil.which("node") is None:
        return "node is not installed (configurable-http-proxy runs on it)"
    return None


def _free_ports(n):
    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


class Hub:
    """A running hub: ``api(method, path, token)`` calls it through the proxy."""

    def __init__(self, root):
        self.root = root
        self.token = uuid.uuid4().hex
        port, internal, proxy = _free_ports(3)
        self.url = f"http://127.0.0.1:{port}"
        env = venv_env(MINITORCH_HUB_DIR=str(root), MINITORCH_HUB_PORT=str(port),
                       MINITORCH_HUB_INTERNAL_PORT=str(internal), MINITORCH_HUB_PROXY_PORT=str(proxy),
                       MINITORCH_HUB_PASSWORD=PASSWORD, MINITORCH_HUB_API_TOKEN=self.token,
                       MINITORCH_HUB_MODE="demo")  # the one-OS-user demo; test_classroom.py: the class
        self.log = open(root / "hub.log", "w")
        self.proc = subprocess.Popen([str(VENV_BIN / "jupyterhub"), "-f", str(REPO / "hub" / "jupyterhub_config.py")],
                                     cwd=root, env=env, stdout=self.log, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        self.server_pids = set()

    def api(self, method, path, token=None, body=None, timeout=30):
        """(status, parsed JSON or text) for one request; never raises on an HTTP error status."""
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

    def wait_ready(self, timeout=60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, f"the hub exited: {self.log_tail()}"
            try:
                if self.api("GET", "/hub/api/", timeout=2)[0] == 200:
                    return
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            time.sleep(0.3)
        raise AssertionError(f"the hub did not answer within {timeout} s: {self.log_tail()}")

    def log_tail(self):
        self.log.flush()
        return (self.root / "hub.log").read_text(errors="replace")[-3000:]

    def stop(self):
        """Stop every server (kernels with them), then the hub (which stops its proxy); then by PID."""
        for name in LEARNERS:
            try:
                status, user = self.api("GET", f"/hub/api/users/{name}", timeout=5)
                pid = (user or {}).get("servers", {}).get("", {}).get("state", {}).get("pid") if status == 200 else None
                if pid:
                    self.server_pids.add(pid)
                self.api("DELETE", f"/hub/api/users/{name}/server", timeout=30)
            except Exception:  # the hub may already be gone: the PIDs below still get cleaned
                pass
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)
        # The hub stops its servers and proxy itself; whatever is left is killed by PID,
        # checking the command line first (a PID may have been reused since).
        leftovers = {pid: "jupyterhub-singleuser" for pid in self.server_pids if pid}
        proxy_pid_file = self.root / "jupyterhub-proxy.pid"
        if proxy_pid_file.exists() and proxy_pid_file.read_text().strip():
            leftovers[int(proxy_pid_file.read_text())] = "configurable-http-proxy"
        for pid, word in leftovers.items():
            if _alive(pid) and word in _cmdline(pid):
                os.kill(pid, signal.SIGKILL)
        self.log.close()


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    require(_missing_hub())
    hub = Hub(tmp_path_factory.mktemp("hub"))
    try:
        hub.wait_ready()
        yield hub
    finally:
        hub.stop()


def login(hub, name, password):
    """Log in through the hub's login form; the status of the POST (302 = logged in)."""
    jar = http.cookiejar.CookieJar()

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar), NoRedirect)
    page = opener.open(hub.url + "/hub/login", timeout=10).read().decode()
    xsrf = re.search(r'name="_xsrf"\s+value="([^"]+)"', page).group(1)
    form = urllib.parse.urlencode({"username": name, "password": password, "_xsrf": xsrf}).encode()
    try:
        return opener.open(hub.url + "/hub/login", data=form, timeout=30).status
    except urllib.error.HTTPError as error:
        return error.code


def execute_request(code, session):
    return {"header": {"msg_id": uuid.uuid4().hex, "msg_type": "execute_request", "username": "test",
                       "session": session, "date": "", "version": "5.3"},
            "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
            "content": {"code": code, "silent": False, "store_history": True, "user_expressions": {},
                        "allow_stdin": False, "stop_on_error": False}}


async def run_cells(hub, name, token, kernel_id, cells):
    """Execute ``cells`` in order on the kernel; fill their outputs; return the cells' errors."""
    from tornado.httpclient import HTTPRequest
    from tornado.websocket import websocket_connect

    session = uuid.uuid4().hex
    url = hub.url.replace("http", "ws") + f"/user/{name}/api/kernels/{kernel_id}/channels?session_id={session}"
    ws = await asyncio.wait_for(websocket_connect(HTTPRequest(url, headers={"Authorization": f"token {token}"})), 30)
    errors = []
    try:
        for index, cell in enumerate(cells):
            request = execute_request(cell.source, session)
            await ws.write_message(json.dumps(request))
            cell.outputs, replied, idle = [], False, False
            while not (replied and idle):
                raw = await asyncio.wait_for(ws.read_message(), CELL_TIMEOUT)
                assert raw is not None, f"{name}: kernel channel closed at cell {index}"
                msg = json.loads(raw)
                if msg.get("parent_header", {}).get("msg_id") != request["header"]["msg_id"]:
                    continue
                kind = msg["msg_type"]
                if kind == "execute_reply":
                    replied = True
                    if msg["content"]["status"] != "ok":
                        errors.append((index, msg["content"].get("ename"), msg["content"].get("evalue")))
                elif kind == "status":
                    idle = msg["content"]["execution_state"] == "idle"
                elif kind in ("stream", "display_data", "execute_result", "error"):
                    cell.outputs.append(nbformat.v4.output_from_msg(msg))
    finally:
        ws.close()
    return errors


async def learner_runs_lesson(hub, name, token):
    """Open the lesson (a notebook session), run every code cell, save it with its outputs."""
    loop = asyncio.get_running_loop()

    def api(*args, **kwargs):
        return loop.run_in_executor(None, lambda: hub.api(*args, token=token, **kwargs))

    status, model = await api("GET", f"/user/{name}/api/contents/{LESSON}")
    assert status == 200, f"{name} cannot open their lesson: {status} {model}"
    nb = nbformat.from_dict(model["content"])
    status, session = await api("POST", f"/user/{name}/api/sessions",
                                body={"path": LESSON, "type": "notebook", "kernel": {"name": "python3"}})
    assert status == 201, f"{name}: no session: {status} {session}"
    code_cells = [c for c in nb.cells if c.cell_type == "code"]
    code_cells.append(nbformat.v4.new_code_cell("import os; print(os.getcwd())"))  # where the kernel runs
    errors = await run_cells(hub, name, token, session["kernel"]["id"], code_cells)
    cwd = "".join(o.get("text", "") for o in code_cells[-1].outputs).strip()
    status, _ = await api("PUT", f"/user/{name}/api/contents/{LESSON}",
                          body={"type": "notebook", "format": "json", "content": nb})
    assert status == 200, f"{name} could not save the lesson: {status}"
    await api("DELETE", f"/user/{name}/api/sessions/{session['id']}")  # stops the kernel
    return {"errors": errors, "cwd": cwd, "cells": len(code_cells) - 1}


@pytest.fixture(scope="module")
def classroom(hub):
    """Every learner logged in, with a running server and a token; lesson 02 run by all at once."""
    for name in LEARNERS:
        assert login(hub, name, PASSWORD) == 302, f"{name} could not log in"
    tokens = {}
    for name in LEARNERS:
        status, model = hub.api("POST", f"/hub/api/users/{name}/tokens", body={"note": "load test"})
        assert status == 201, (status, model)
        tokens[name] = model["token"]
    for name in LEARNERS:  # each learner starts their own server, with their own token
        status, _ = hub.api("POST", f"/hub/api/users/{name}/server", token=tokens[name])
        assert status in (201, 202), f"{name}: server did not start ({status}): {hub.log_tail()}"
    deadline = time.monotonic() + 90
    for name in LEARNERS:
        while True:
            user = hub.api("GET", f"/hub/api/users/{name}")[1]
            server = user["servers"].get("", {})
            if server.get("ready"):
                hub.server_pids.add(server.get("state", {}).get("pid"))
                break
            assert time.monotonic() < deadline, f"{name}'s server not ready: {hub.log_tail()}"
            time.sleep(0.5)

    async def everyone():
        runs = [learner_runs_lesson(hub, name, tokens[name]) for name in LEARNERS]
        return await asyncio.wait_for(asyncio.gather(*runs), RUN_TIMEOUT)

    started = time.monotonic()
    results = dict(zip(LEARNERS, _run_in_own_loop(everyone)))
    return {"tokens": tokens, "results": results, "seconds": time.monotonic() - started}


def _run_in_own_loop(coroutine_function):
    """``asyncio.run`` in a thread of its own: earlier tests in the same process (the browser
    tests drive Chromium through Playwright's event loop) may leave a loop running here."""
    box = {}

    def target():
        try:
            box["result"] = asyncio.run(coroutine_function())
        except BaseException as exc:  # re-raised in the test's thread below
            box["error"] = exc

    worker = threading.Thread(target=target, name="learners")
    worker.start()
    worker.join()
    if "error" in box:
        raise box["error"]
    return box["result"]


def test_wrong_password_is_refused(hub):
    assert login(hub, "mallory", "not-the-password") != 302


def test_four_learners_run_lesson_02_at_once(classroom):
    for name, result in classroom["results"].items():
        assert result["cells"] > 10
        assert result["errors"] == [], f"{name}: cells raised {result['errors']}"


def test_each_learner_works_in_their_own_folder(hub, classroom):
    lesson = nbformat.read(REPO / "lessons" / LESSON, as_version=4)
    for name, result in classroom["results"].items():
        home = hub.root / "users" / name
        assert result["cwd"] == str(home)
        saved = nbformat.read(home / LESSON, as_version=4)
        assert [c.source for c in saved.cells] == [c.source for c in lesson.cells]
        assert any(c.get("outputs") for c in saved.cells), f"{name}'s run was not saved in their folder"
        lessons = sorted(p.name for p in (REPO / "lessons").glob("*.ipynb"))
        assert sorted(p.name for p in home.glob("*.ipynb")) == lessons


def test_a_learner_cannot_reach_another_learners_server(hub, classroom):
    tokens = classroom["tokens"]
    for name, other in zip(LEARNERS, LEARNERS[1:] + LEARNERS[:1]):
        token = tokens[name]
        status, _ = hub.api("GET", f"/user/{other}/api/contents/{LESSON}", token=token)
        assert status == 403, f"{name} could read {other}'s lesson ({status})"
        intruder = {"type": "file", "format": "text", "content": f"written by {name}"}
        status, _ = hub.api("PUT", f"/user/{other}/api/contents/{name}.txt", token=token, body=intruder)
        assert status == 403, f"{name} could write into {other}'s folder ({status})"
        status, _ = hub.api("POST", f"/user/{other}/api/kernels", token=token, body={"name": "python3"})
        assert status == 403, f"{name} could start a kernel on {other}'s server ({status})"
        assert not (hub.root / "users" / other / f"{name}.txt").exists()
        # ... and the same requests with their own token reach their own server.
        status, _ = hub.api("PUT", f"/user/{name}/api/contents/{name}.txt", token=token, body=intruder)
        assert status == 201
    for name in LEARNERS:  # on disk: each learner's note is in their folder only
        found = sorted(p.parent.name for p in (hub.root / "users").glob(f"*/{name}.txt"))
        assert found == [name]


def test_servers_and_kernels_stop_with_the_hub(tmp_path):
    """A hub of its own (so the shared one stays up): after stop(), no process it started lives on."""
    require(_missing_hub())
    hub = Hub(tmp_path)
    try:
        hub.wait_ready()
        assert hub.api("POST", "/hub/api/users/eve")[0] == 201
        assert hub.api("POST", "/hub/api/users/eve/server")[0] in (201, 202)
        deadline = time.monotonic() + 60
        while not hub.api("GET", "/hub/api/users/eve")[1]["servers"].get("", {}).get("ready"):
            assert time.monotonic() < deadline, hub.log_tail()
            time.sleep(0.5)
        server_pid = hub.api("GET", "/hub/api/users/eve")[1]["servers"][""]["state"]["pid"]
        proxy_pid = int((tmp_path / "jupyterhub-proxy.pid").read_text())
    finally:
        hub.stop()
    for pid in (hub.proc.pid, server_pid, proxy_pid):
        deadline = time.monotonic() + 10
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not _alive(pid), f"process {pid} outlived the hub"


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (exited, not yet reaped by its parent) counts as stopped.
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def _cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""
