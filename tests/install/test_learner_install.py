"""The course as a learner installs it: the wheel in a clean venv, as a user who is not root, without Graphviz.

Once per test run (module fixture ``learner``, about two minutes):

1. build the wheel from this checkout (``pip wheel``, with ``MINITORCH_REQUIRE_VIZ=1``: it must
   carry Graphviz for the browser) and download what it depends on into a wheelhouse;
2. as a throwaway user who is not root (CI runs as root: one is created, and deleted after),
   with a Python that user can run, outside the repository and with no PYTHONPATH: a new venv,
   the dependencies installed offline from the wheelhouse, then the wheel (timed, sized);
3. a lesson opened where the course is not installed says in one line what to ``%pip install``.

Then the tests run, as that user, with Graphviz's ``dot`` removed from PATH: ``minitorch-course
lessons`` into an empty folder (and again, keeping an edited copy), lessons 00, 02, 04 and 08 top
to bottom with nbclient (no error; every cell that shows a graph in the solution shows one
drawn in the browser), ``minitorch-course doctor`` with and without ``dot``, and ``minitorch-course
lab`` serving the lessons' folder.
"""

import json
import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
import zipfile
from pathlib import Path

import nbformat
import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))  # tools/ is a repository script folder, not an installed package

from minitorch_course import system_packages  # noqa: E402
from tools import first_cell  # noqa: E402

SOLUTIONS = REPO / "lessons" / "solutions"
RUN_LESSONS = Path(__file__).resolve().parent / "run_lessons.py"
LESSONS_RUN = ("00_welcome.ipynb", "02_graphs_chain_rule.ipynb", "04_engine.ipynb", "08_training.ipynb")
USER = "minitorch-learner"


def _in_ci():
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


class Learner:
    """A user who is not root, a folder of theirs outside the repository, and commands run as them."""

    def __init__(self, folder, user):
        self.folder = Path(folder)
        self.user = user  # None: this process's own user (already not root)
        self.home = self.folder / "home"
        self.home.mkdir()
        self.venv = self.folder / "venv"
        self.timings = {}

    def env(self, path=None):
        """An environment like a new terminal's: no PYTHONPATH, HOME in the learner's folder, the venv first on PATH."""
        path = path or os.environ.get("PATH", "/usr/bin:/bin")
        return {
            "HOME": str(self.home),
            "PATH": f"{self.venv / 'bin'}{os.pathsep}{path}",
            "LANG": "C.UTF-8",
            "MPLCONFIGDIR": str(self.home / ".matplotlib"),
            "JUPYTER_PLATFORM_DIRS": "1",
            "CI": "",
            "PYTHONDONTWRITEBYTECODE": "1",
        }

    def command(self, args, env):
        prefix = ["runuser", "-u", self.user, "--"] if self.user else []
        return [*prefix, "env", "-i", *(f"{k}={v}" for k, v in env.items()), *map(str, args)]

    def run(self, args, path=None, timeout=600, check=True):
        done = subprocess.run(
            self.command(args, self.env(path)), cwd=self.folder, capture_output=True, text=True, timeout=timeout
        )
        if check and done.returncode != 0:
            raise AssertionError(
                f"{' '.join(map(str, args))} exited {done.returncode}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
            )
        return done

    def popen(self, args, path=None):
        return subprocess.Popen(
            self.command(args, self.env(path)),
            cwd=self.folder,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )


def _python_for(learner):
    """A Python 3.10+ the learner can run and make a venv with: this one's base, or the system's python3."""
    for candidate in dict.fromkeys(
        [getattr(sys, "_base_executable", sys.executable), shutil.which("python3"), "/usr/bin/python3"]
    ):
        if not candidate:
            continue
        done = learner.run(
            [
                candidate,
                "-c",
                "import sys, venv, ensurepip; assert sys.version_info >= (3, 10); "
                "print('%d.%d.%d' % sys.version_info[:3])",
            ],
            check=False,
            timeout=60,
        )
        if done.returncode == 0:
            return candidate, done.stdout.strip()
    pytest.fail("no Python 3.10+ with venv that the learner's user can run")


def _requirements(wheel):
    """The wheel's own dependencies (Requires-Dist without an extra)."""
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        lines = archive.read(name).decode().splitlines()
    return [
        line.split(":", 1)[1].strip() for line in lines if line.startswith("Requires-Dist:") and "extra ==" not in line
    ]


def _size_mb(folder):
    return sum(f.stat().st_size for f in Path(folder).rglob("*") if f.is_file() and not f.is_symlink()) / 1e6


@pytest.fixture(scope="module")
def learner(make_path_without):
    if shutil.which("npm") is None and not (REPO / "widgets/draw/browser/viz.js").exists():
        if _in_ci():
            pytest.fail("CI=true, but neither npm nor widgets/draw/browser/viz.js is here to build the wheel")
        pytest.skip("the wheel needs widgets/draw/browser/viz.js: run make setup (needs npm)")
    is_root = os.geteuid() == 0
    folder = Path(tempfile.mkdtemp(prefix="minitorch-learner-"))  # /tmp: outside the repository
    user = None
    if is_root:
        if shutil.which("useradd") is None or shutil.which("runuser") is None:
            pytest.fail("running as root, but useradd/runuser are missing: cannot make a learner who is not root")
        subprocess.run(["userdel", USER], capture_output=True)  # a leftover of an interrupted run
        subprocess.run(
            ["useradd", "--no-create-home", "--home-dir", str(folder / "home"), "--shell", "/bin/sh", USER],
            check=True,
            capture_output=True,
        )
        user = USER
    try:
        person = Learner(folder, user)
        wheels = folder / "wheels"
        wheels.mkdir()
        start = time.perf_counter()
        env = dict(os.environ, MINITORCH_REQUIRE_VIZ="1")
        built = subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "wheel",
                "-q",
                "--no-deps",
                "--no-build-isolation",
                "-w",
                str(wheels),
                str(REPO),
            ],
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
        (wheel,) = wheels.glob("minitorch_course-*.whl")
        person.timings["wheel build s"] = time.perf_counter() - start
        # what the learner runs from the repository, copied to their folder (the checkout may be unreadable to them)
        shutil.copy(RUN_LESSONS, folder / RUN_LESSONS.name)
        hosted = folder / "hosted"
        hosted.mkdir()
        shutil.copy(REPO / "lessons" / "00_welcome.ipynb", hosted)
        person.without_dot = make_path_without({"dot"}, folder / "path-without-dot")  # the learner's own PATH
        if user:
            uid = pwd.getpwnam(user)
            for path in [folder, *folder.rglob("*")]:
                os.chown(path, uid.pw_uid, uid.pw_gid)
        python, version = _python_for(person)
        start = time.perf_counter()  # the dependencies, for the learner's Python version (as root: the cache is ours)
        downloaded = subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "-q",
                "--only-binary=:all:",
                "--python-version",
                version,
                "-d",
                str(wheels),
                *_requirements(wheel),
            ],
            capture_output=True,
            text=True,
            timeout=900,
        )
        assert downloaded.returncode == 0, downloaded.stderr[-3000:]
        person.timings["download s"] = time.perf_counter() - start
        os.chmod(folder, 0o755)
        for path in wheels.iterdir():
            os.chmod(path, 0o644)
        start = time.perf_counter()
        person.run([python, "-m", "venv", person.venv])
        # --no-compile: a learner's pip byte-compiles too (the README's install time includes it); here it only costs
        pip = [
            person.venv / "bin" / "python",
            "-m",
            "pip",
            "install",
            "-q",
            "--no-compile",
            "--no-index",
            "--find-links",
            wheels,
        ]
        person.run([*pip, *_requirements(wheel)])
        person.timings["install dependencies s"] = time.perf_counter() - start
        # 3. a hosted notebook without the course: the lesson alone, as Colab would open it
        person.runner = folder / RUN_LESSONS.name
        person.hosted = json.loads(
            person.run(
                [person.venv / "bin" / "python", person.runner, hosted, "00_welcome.ipynb"], path=person.without_dot
            ).stdout
        )
        start = time.perf_counter()
        person.run([*pip, wheel])
        person.timings["install wheel s"] = time.perf_counter() - start
        person.timings["venv MB"] = _size_mb(person.venv)
        person.wheel, person.python, person.python_version = wheel, python, version
        print("\nlearner install:", {k: round(v, 1) for k, v in person.timings.items()}, python, version)
        yield person
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        if user:
            subprocess.run(["userdel", user], capture_output=True)


def test_a_lesson_where_the_course_is_not_installed_says_the_pip_line(learner):
    report = learner.hosted["00_welcome.ipynb"]
    first = next(iter(report["cells"].values()))
    assert report["error"] is not None  # Run All stops at the first cell
    assert first["stderr"].strip() == (
        f"UsageError: MiniTorch is not installed here: run  {first_cell.install_line()}  then run this cell again"
    )
    assert first["output_types"] == ["stream"]  # that one line, no traceback


def test_the_learner_is_not_root_and_uses_only_the_installed_package(learner):
    whoami = learner.run(["id", "-u"]).stdout.strip()
    assert whoami != "0"
    where = learner.run(
        [
            learner.venv / "bin" / "python",
            "-c",
            "import minitorch, widgets, minitorch_course; print(minitorch.__file__, widgets.__file__)",
        ]
    )
    assert str(learner.venv) in where.stdout and str(REPO) not in where.stdout
    assert shutil.which("minitorch-course", path=str(learner.venv / "bin"))


@pytest.fixture(scope="module")
def lessons(learner):
    """``minitorch-course lessons`` into an empty folder of the learner's; the nbclient report of four lessons."""
    folder = learner.folder / "my-lessons"
    done = learner.run(["minitorch-course", "lessons", folder], path=learner.without_dot)
    count = len(list((REPO / "lessons").glob("[0-9][0-9]_*.ipynb")))
    assert f"{count} lesson notebooks written to {folder}" in done.stdout, done.stdout
    report = json.loads(
        learner.run(
            [learner.venv / "bin" / "python", learner.runner, folder, *LESSONS_RUN],
            path=learner.without_dot,
            timeout=900,
        ).stdout
    )
    return folder, report


def test_minitorch_course_lessons_writes_every_lesson_and_keeps_an_edited_copy(learner, lessons):
    folder, _report = lessons
    expected = sorted(p.name for p in (REPO / "lessons").glob("[0-9][0-9]_*.ipynb"))
    assert sorted(p.name for p in folder.glob("[0-9][0-9]_*.ipynb")) == expected
    for name in expected:
        assert (folder / name).read_bytes() == (REPO / "lessons" / name).read_bytes()
    edited = folder / "01_tensors.ipynb"
    learner.run(["sh", "-c", f"echo ' ' >> {edited}"])
    again = learner.run(["minitorch-course", "lessons", folder], path=learner.without_dot)
    assert "Kept your changed copies of 01_tensors.ipynb" in again.stdout and edited.read_text().endswith(" \n")
    forced = learner.run(["minitorch-course", "lessons", folder, "--force"], path=learner.without_dot)
    assert "replaced your changed 01_tensors.ipynb" in forced.stdout
    assert edited.read_bytes() == (REPO / "lessons" / "01_tensors.ipynb").read_bytes()
    assert (folder / "01_tensors.ipynb.bak").read_text().endswith(" \n")
    zh = learner.folder / "zh-lessons"
    learner.run(["minitorch-course", "lessons", zh, "--lang", "zh"], path=learner.without_dot)
    assert (zh / "00_welcome.ipynb").read_bytes() == (REPO / "lessons" / "zh" / "00_welcome.ipynb").read_bytes()


def _graph_cells(name):
    """Ids of the cells of a solution that show a graph: stored SVG, or a backward stepper."""
    nb = nbformat.read(SOLUTIONS / name, as_version=4)
    return [
        c.id
        for c in nb.cells
        if c.cell_type == "code"
        and (any("image/svg+xml" in o.get("data", {}) for o in c.get("outputs", [])) or "BackwardStepper(" in c.source)
    ]


@pytest.mark.parametrize("name", LESSONS_RUN)
def test_lessons_run_top_to_bottom_without_dot_and_show_every_graph(lessons, name):
    _folder, report = lessons
    lesson = report[name]
    assert lesson["error"] is None, lesson["error"]
    for cell_id in _graph_cells(name):
        cell = lesson["cells"][cell_id]
        assert "image/svg+xml" not in cell["mimetypes"], cell_id  # no dot: nothing drawn in Python
        assert cell["graphs"] >= 1, f"{name} cell {cell_id} shows no graph: {cell}"
    print(f"{name}: {lesson['seconds']} s")


def _doctor(learner, path):
    done = learner.run(["minitorch-course", "doctor"], path=path, check=False, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_doctor_with_dot(learner):
    if shutil.which("dot") is None:
        pytest.skip("Graphviz's dot is not installed here")
    out = _doctor(learner, None)
    assert f"ok       Python            {learner.python_version}" in out
    assert "ok       NumPy" in out and "BLAS" in out and "CPU dispatch" in out
    assert "ok       graphs            Graphviz dot" in out and "drawn in Python and stored as SVG" in out
    for part in ("CJK fonts", "GPU", "MPI", "JupyterLab"):
        assert part in out
    # the learner install has no MPI (the dist extra) and no CuPy (gpu): each says the pip line
    assert 'minitorch-course[dist]"' in out and 'minitorch-course[gpu]"' in out


def test_doctor_without_dot_says_graphs_are_drawn_in_the_browser_and_how_to_get_dot(learner):
    out = _doctor(learner, learner.without_dot)
    assert "note     graphs            no Graphviz dot program: graphs are drawn in the browser" in out
    fix = system_packages.install_command(["graphviz"], system_packages.package_manager())
    if fix:
        assert f"fix: {fix}" in out
    assert "Everything the lessons need is here." in out


def test_minitorch_course_lab_serves_the_lessons_folder(learner, lessons):
    folder, _ = lessons
    token, port = uuid.uuid4().hex, _free_port()
    server = learner.popen(
        [
            "minitorch-course",
            "lab",
            folder,
            "--",
            "--no-browser",
            "--port",
            port,
            f"--IdentityProvider.token={token}",
            "--ServerApp.open_browser=False",
        ],
        path=learner.without_dot,
    )
    try:
        listing = _wait_for_contents(f"http://127.0.0.1:{port}/api/contents", token, server)
        names = {item["name"] for item in listing["content"]}
        assert "00_welcome.ipynb" in names and "08_training.ipynb" in names
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            out, _ = server.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            out, _ = server.communicate()
    assert "00_welcome.ipynb" in out  # the lesson it was asked to open


def _free_port():
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for_contents(url, token, server, timeout=90):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise AssertionError(f"minitorch-course lab exited {server.returncode}: {server.stdout.read()[-3000:]}")
        try:
            request = urllib.request.Request(url, headers={"Authorization": f"token {token}"})
            with urllib.request.urlopen(request, timeout=5) as response:
                return json.loads(response.read())
        except OSError:
            time.sleep(0.5)
    raise AssertionError(f"minitorch-course lab did not answer {url} within {timeout} s")
