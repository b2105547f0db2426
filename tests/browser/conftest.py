"""A real JupyterLab in a real (headless) browser, for tests that must see what a learner sees.

Fixtures:
- ``lab``: one JupyterLab server per test session, on 127.0.0.1 with a random token and
  port, with HOME, Jupyter and matplotlib dirs in a temp dir (nothing from the user's
  home leaks in, nothing is written there), the news popup and autosave switched off.
- ``browser``: Debian's Chromium (``/usr/bin/chromium``) driven by Playwright's sync API.
- ``run_notebook(path, extra_files=())``: copies the notebook into the server's temp root,
  opens it, runs all cells through the Run menu, waits until every cell has run and
  returns the Playwright ``page`` (outputs are in the DOM: cells are not virtualised).
- ``screenshot(locator_or_page, name)``: saves ``tests/browser/screenshots/<name>.png``.

When Chromium or Playwright is missing the tests skip with the reason, except under CI
(``CI=true``), where a missing browser is a failure: CI must really run them.
"""

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("MINITORCH_CHROMIUM", "/usr/bin/chromium")
REPO = Path(__file__).resolve().parents[2]
SCREENSHOTS = Path(__file__).resolve().parent / "screenshots"
CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
# JupyterLab settings for a quiet, deterministic page: no news/update popup, no autosave
# (the test must not write into notebooks), every cell in the DOM (no windowing).
LAB_SETTINGS = {
    "@jupyterlab/apputils-extension/notification": {"fetchNews": "false", "checkForUpdates": False},
    "@jupyterlab/docmanager-extension/plugin": {"autosave": False},
    "@jupyterlab/notebook-extension/tracker": {"windowingMode": "none"},
}


def _in_ci():
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def _missing_browser_reason():
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install playwright; never `playwright install`)"
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        return f"no Chromium at {CHROMIUM} (apt-get install chromium)"
    if shutil.which("jupyter", path=str(Path(sys.executable).parent)) is None:
        return "jupyter is not installed next to this Python"
    return None


def pytest_runtest_setup(item):
    """Skip browser tests when the browser stack is missing -- but fail under CI."""
    if "browser" not in item.keywords:
        return
    reason = _missing_browser_reason()
    if reason is None:
        return
    if _in_ci():
        pytest.fail(f"CI=true, so the browser test must run, but: {reason}", pytrace=False)
    pytest.skip(reason)


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _write_settings(settings_dir):
    for key, values in LAB_SETTINGS.items():
        path = Path(settings_dir) / (key + ".jupyterlab-settings")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))


class Lab:
    """A running JupyterLab server: ``url``, ``token``, ``root`` (its notebook dir).

    ``env_overrides``: variables for the server and its kernels on top of this process's (``PATH`` without
    Graphviz's ``dot``, say).
    """

    def __init__(self, base, env_overrides=None):
        self.base = Path(base)
        self.root = self.base / "root"
        self.root.mkdir()
        self.token = uuid.uuid4().hex
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        home = self.base / "home"
        settings = self.base / "settings"
        for d in (home, settings, self.base / "workspaces", self.base / "mpl", self.base / "runtime"):
            d.mkdir()
        _write_settings(settings)
        env = dict(os.environ)
        env.update(
            HOME=str(home),
            JUPYTER_CONFIG_DIR=str(home / ".jupyter"),
            JUPYTER_DATA_DIR=str(home / ".local/share/jupyter"),
            JUPYTER_RUNTIME_DIR=str(self.base / "runtime"),
            IPYTHONDIR=str(home / ".ipython"),
            MPLCONFIGDIR=str(self.base / "mpl"),
            # kernels import this checkout's minitorch and widgets, whatever is installed
            PYTHONPATH=os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")]).rstrip(os.pathsep),
        )
        env.update(env_overrides or {})
        jupyter = str(Path(sys.executable).parent / "jupyter")
        self.log = open(self.base / "server.log", "w")  # noqa: SIM115 (closed in stop())
        self.process = subprocess.Popen(
            [jupyter, "lab", "--no-browser", "--ip", "127.0.0.1", "--port", str(self.port), "--allow-root",
             f"--IdentityProvider.token={self.token}", f"--ServerApp.root_dir={self.root}",
             f"--LabApp.workspaces_dir={self.base / 'workspaces'}", f"--LabApp.user_settings_dir={settings}"],
            env=env, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True,
        )
        self._wait_ready()

    def api(self, path, method="GET"):
        request = urllib.request.Request(f"{self.url}{path}", method=method,
                                         headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(request, timeout=10) as response:
            body = response.read()
        return json.loads(body) if body else None

    def _wait_ready(self, timeout=60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"jupyter lab exited early; see {self.base / 'server.log'}")
            try:
                self.api("/api/status")
                return
            except (urllib.error.URLError, ConnectionError, OSError):
                time.sleep(0.3)
        raise RuntimeError("jupyter lab did not answer /api/status within 60 s")

    def wait_kernel_connected(self, timeout=60):
        """Wait until some session's kernel is idle and has a client connected (the page)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            kernels = [s["kernel"] for s in self.api("/api/sessions")]
            if any(k.get("execution_state") == "idle" and k.get("connections", 0) > 0 for k in kernels):
                return
            time.sleep(0.3)
        raise AssertionError(f"no kernel was idle and connected within {timeout} s")

    def delete_sessions(self):
        """Shut down every kernel this server started (kernels outlive the page)."""
        try:
            for session in self.api("/api/sessions"):
                self.api(f"/api/sessions/{session['id']}", method="DELETE")
        except (urllib.error.URLError, OSError):
            pass

    def stop(self):
        self.delete_sessions()
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)  # the group this fixture created
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        self.log.close()


@pytest.fixture(scope="session")
def lab(tmp_path_factory):
    server = Lab(tmp_path_factory.mktemp("jupyterlab"))
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def lab_without_dot(tmp_path_factory, path_without_dot):
    """A JupyterLab whose kernels find no Graphviz ``dot``: every graph is drawn in the browser."""
    server = Lab(tmp_path_factory.mktemp("jupyterlab-no-dot"), {"PATH": path_without_dot})
    try:
        yield server
    finally:
        server.stop()


# Module scope, not session: while a Playwright sync context is open its event loop runs in
# this thread, and any later test that opens its own (the classroom round in tests/course)
# would be refused ("using Playwright Sync API inside the asyncio loop").
@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS, headless=True)
        try:
            yield chromium
        finally:
            chromium.close()


def wait_until_all_cells_ran(page, timeout_s=120):
    """Wait until every code cell shows an execution count and the kernel is idle."""
    page.wait_for_function(
        """() => {
            const cells = [...document.querySelectorAll('.jp-Notebook .jp-CodeCell')];
            if (!cells.length) return false;
            const done = cells.every(c => /\\[\\d+\\]/.test(c.querySelector('.jp-InputPrompt')?.textContent || ''));
            const idle = document.querySelector(".jp-Notebook-ExecutionIndicator[data-status='idle']");
            return done && idle !== null;
        }""",
        timeout=timeout_s * 1000,
        polling=500,
    )


def run_all(page, attempts=3):
    """Run > Run All Cells; again if no cell started (a kernel still connecting drops the request)."""
    for _ in range(attempts):
        page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
        page.locator(".lm-Menu-item[data-command='runmenu:run-all']").click()
        try:
            page.wait_for_function(
                r"""() => [...document.querySelectorAll('.jp-CodeCell .jp-InputPrompt')]
                          .some(p => /\[(\*|\d+)\]/.test(p.textContent))""",
                timeout=15_000, polling=250)
            return
        except Exception:
            page.keyboard.press("Escape")
    raise AssertionError(f"Run All started no cell in {attempts} attempts")


def _notebook_runner(lab, browser):
    """``(run, close)``: ``run(path, extra_files=(), timeout_s=90) -> page`` opens a copy in ``lab`` and runs all."""
    contexts = []

    def run(path, extra_files=(), timeout_s=90):
        path = Path(path)
        shutil.copy(path, lab.root / path.name)
        for extra in extra_files:
            extra = Path(extra)
            target = lab.root / extra.name
            (shutil.copytree if extra.is_dir() else shutil.copy)(extra, target)
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(60_000)
        page.goto(f"{lab.url}/lab/tree/{path.name}?reset&token={lab.token}")
        page.wait_for_selector(".jp-Notebook .jp-Cell")
        page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']")
        page.wait_for_function(
            "() => (document.querySelector('.jp-Toolbar-kernelName')?.textContent || '').includes('Python')")
        lab.wait_kernel_connected()
        run_all(page)
        try:
            wait_until_all_cells_ran(page, timeout_s)
        except Exception as exc:
            SCREENSHOTS.mkdir(exist_ok=True)
            page.screenshot(path=str(SCREENSHOTS / f"failed_{path.stem}.png"))
            prompts = page.locator(".jp-CodeCell .jp-InputPrompt").all_inner_texts()
            raise AssertionError(f"{path.name}: not every cell ran within {timeout_s} s; prompts {prompts}; "
                                 f"see screenshots/failed_{path.stem}.png and {lab.base / 'server.log'}") from exc
        return page

    def close():
        for context in contexts:
            context.close()
        contexts.clear()
        lab.delete_sessions()

    return run, close


@pytest.fixture
def run_notebook(lab, browser):
    """``run_notebook(path, extra_files=()) -> page``: open a copy in JupyterLab and Run All."""
    run, close = _notebook_runner(lab, browser)
    yield run
    close()


@pytest.fixture
def run_notebook_without_dot(lab_without_dot, browser):
    """``run_notebook`` in the JupyterLab whose kernels have no Graphviz ``dot``."""
    run, close = _notebook_runner(lab_without_dot, browser)
    yield run
    close()


@pytest.fixture
def screenshot():
    """``screenshot(locator_or_page, name)`` -> the saved path under tests/browser/screenshots/."""
    SCREENSHOTS.mkdir(exist_ok=True)

    def take(target, name):
        path = SCREENSHOTS / f"{name}.png"
        target.screenshot(path=str(path))
        return path

    return take
