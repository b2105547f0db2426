"""The classroom hub's folder (``make hub`` as root): what lives where, and who may read it.

    SITE/                  root 0755  (default /srv/minitorch, MINITORCH_HUB_SITE)
      state/               root 0700  the hub's database, cookie secret, learners' passwords
      runtime/             root 0755  read-only for everyone: what learner processes run
        python/ venv/        the project's interpreter and venv when other users cannot reach
                             them (e.g. under /root): hard-linked copies, or for a reachable
                             venv on an unreachable interpreter, a small venv reading its packages
        lib/                 a copy of minitorch/ and widgets/ (PYTHONPATH)
        config/common/       JUPYTER_CONFIG_PATH of every server: nbgrader course id and
                             exchange, terminals that keep the venv on PATH
        config/learner/      ... of learners only: nbgrader's teacher extensions disabled
      exchange/            root 1777  nbgrader's exchange; exchange/minitorch/ is the teacher's,
                                      with the modes nbgrader gives it (inbound 2733, ...)
      course/              teacher 0700  the nbgrader course (a copy of the repository's course/)
      home/NAME/           NAME 0700  each user's home

Learners never see the checkout, lessons/solutions/, course/source/ or state/.
"""

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
COURSE_ID = "minitorch"
# nbgrader's JupyterLab plugins and server extensions that only a teacher may use.
TEACHER_LAB_PLUGINS = ["@jupyter/nbgrader:formgrader", "@jupyter/nbgrader:create-assignment",
                       "@jupyter/nbgrader:course-list"]
TEACHER_SERVER_EXTENSIONS = ["nbgrader.server_extensions.formgrader", "nbgrader.server_extensions.course_list"]


class Site:
    """Paths of one classroom hub folder."""

    def __init__(self, root):
        self.root = Path(root).resolve()
        self.state = self.root / "state"
        self.runtime = self.root / "runtime"
        self.lib = self.runtime / "lib"
        self.config = self.runtime / "config"
        self.exchange = self.root / "exchange"
        self.course = self.root / "course"
        self.home = self.root / "home"

    @property
    def venv_bin(self):
        return Path((self.runtime / "venv-path").read_text().strip()) / "bin"

    @property
    def python_lib(self):
        return Path((self.runtime / "python-path").read_text().strip()) / "lib"

    def learner_env(self, teacher=False):
        """The environment every server of this site starts with (PATH, PYTHONPATH, config)."""
        config = [self.config / ("teacher" if teacher else "learner"), self.config / "common"]
        return {
            "PATH": f"{self.venv_bin}:/usr/local/bin:/usr/bin:/bin",
            "PYTHONPATH": str(self.lib),
            "LD_LIBRARY_PATH": str(self.python_lib),  # a copied interpreter finds its libpython
            "JUPYTER_CONFIG_PATH": os.pathsep.join(map(str, config)),
            "NBGRADER_EXCHANGE": str(self.exchange),
            "MPLBACKEND": "module://matplotlib_inline.backend_inline",
        }


def reachable_by_others(path):
    """Whether a user other than the owner can traverse every folder down to ``path``."""
    path = Path(path).resolve()
    for folder in [path, *path.parents]:
        if not os.stat(folder).st_mode & stat.S_IXOTH:
            return False
    return True


def _make_dir(path, mode, owner=None):
    path.mkdir(parents=True, exist_ok=True)
    os.chmod(path, mode)
    if owner is not None:
        shutil.chown(path, user=owner, group=owner)


def _link_copy(source, target, in_place=False):
    """A copy of ``source`` made of hard links (instant, no space) when on the same disk.

    Made next to ``target`` and moved into place, so a server never sees a half copy
    (``in_place``: written at ``target`` itself, which the caller moves)."""
    fresh, old = target.with_name(target.name + ".new"), target.with_name(target.name + ".old")
    if in_place:
        fresh = target
    for leftover in (fresh, old):
        if leftover.exists():
            shutil.rmtree(leftover)
    if subprocess.run(["cp", "-al", str(source), str(fresh)], capture_output=True).returncode != 0:
        shutil.rmtree(fresh, ignore_errors=True)
        subprocess.run(["cp", "-a", str(source), str(fresh)], check=True)
    if in_place:
        return
    if target.exists():
        target.rename(old)
    fresh.rename(target)
    if old.exists():
        shutil.rmtree(old)


def _rewrite(path, old, new):
    """Replace ``old`` by ``new`` in a text file, as a new file (never through a hard link)."""
    text = path.read_text()
    if old in text:
        mode = path.stat().st_mode
        path.unlink()
        path.write_text(text.replace(old, new))
        os.chmod(path, stat.S_IMODE(mode))


def install_runtime(site, venv=None, base=None):
    """Make the interpreter, the venv and the course's packages runnable by every user."""
    venv = Path(venv or sys.prefix).resolve()
    base = Path(base or sys.base_prefix).resolve()
    _make_dir(site.runtime, 0o755)
    # Build again only when the venv changed since (a pip install touches site-packages).
    source = f"{base} {venv} {max(p.stat().st_mtime for p in venv.glob('lib/*/site-packages'))}"
    stamp = site.runtime / "copied-from"
    if not (stamp.exists() and stamp.read_text() == source):
        python_home, venv_home = base, venv
        if not reachable_by_others(base):  # e.g. pyenv's interpreter under /root
            python_home = site.runtime / "python"
            _link_copy(base, python_home)
        if python_home != base or not reachable_by_others(venv):
            venv_home = site.runtime / "venv"
            _relocated_venv(venv, base, python_home, venv_home, overlay=reachable_by_others(venv))
        (site.runtime / "python-path").write_text(str(python_home))
        (site.runtime / "venv-path").write_text(str(venv_home))
        stamp.write_text(source)
    if site.lib.exists():
        shutil.rmtree(site.lib)
    for package in ("minitorch", "widgets"):
        shutil.copytree(REPO / package, site.lib / package, ignore=shutil.ignore_patterns("__pycache__"))
    subprocess.run(["chmod", "-R", "a+rX,go-w", str(site.lib)], check=True)


def _relocated_venv(venv, base, python_home, target, overlay):
    """A venv at ``target`` running on ``python_home`` with the packages of ``venv``.

    ``overlay`` (``venv`` is reachable by others): only bin/ and pyvenv.cfg are new; the
    packages are read in place (a .pth file adds them) and share/ and etc/ are links.
    Otherwise the whole venv is a hard-linked copy. Either way the scripts' ``#!`` lines and
    the python links are rewritten to the new places."""
    fresh = target.with_name(target.name + ".new")
    if overlay:
        if fresh.exists():
            shutil.rmtree(fresh)
        (fresh / "bin").mkdir(parents=True)
        shutil.copy(venv / "pyvenv.cfg", fresh / "pyvenv.cfg")
        for site_packages in venv.glob("lib/python*/site-packages"):
            inside = fresh / site_packages.relative_to(venv)
            inside.mkdir(parents=True)
            (inside / "minitorch-runtime.pth").write_text(
                f"import site; site.addsitedir({str(site_packages)!r})\n")
        for name in ("share", "etc", "include"):
            if (venv / name).exists():
                (fresh / name).symlink_to(venv / name)
        for entry in (venv / "bin").iterdir():
            if entry.is_symlink():
                (fresh / "bin" / entry.name).symlink_to(os.readlink(entry))
            else:
                shutil.copy2(entry, fresh / "bin" / entry.name)
    else:
        _link_copy(venv, fresh, in_place=True)
    for link in fresh.glob("bin/python*"):
        if link.is_symlink() and os.readlink(link).startswith(str(base)):
            pointed = os.readlink(link).replace(str(base), str(python_home))
            link.unlink()
            link.symlink_to(pointed)
    _rewrite(fresh / "pyvenv.cfg", str(base), str(python_home))
    for script in (fresh / "bin").iterdir():
        if script.is_file() and not script.is_symlink() and script.read_bytes()[:2] == b"#!":
            try:
                _rewrite(script, str(venv), str(target))
            except UnicodeDecodeError:
                pass
    subprocess.run(["chmod", "-R", "a+rX", str(fresh)], check=True)
    old = target.with_name(target.name + ".old")
    if target.exists():
        target.rename(old)
    fresh.rename(target)
    if old.exists():
        shutil.rmtree(old)


def write_config(site):
    """The Jupyter/nbgrader configuration learner and teacher servers read (JUPYTER_CONFIG_PATH)."""
    common, learner, teacher = (site.config / name for name in ("common", "learner", "teacher"))
    for folder in (common, learner / "labconfig", teacher):
        _make_dir(folder, 0o755)
    (common / "nbgrader_config.py").write_text(
        "c = get_config()  # written by hub/classroom_site.py\n"
        f"c.CourseDirectory.course_id = {COURSE_ID!r}\n"
        f"c.Exchange.root = {str(site.exchange)!r}\n")
    # A terminal's login shell would reset PATH from /etc/profile and lose the venv.
    _write_json(common / "jupyter_server_config.json",
                {"ServerApp": {"terminado_settings": {"shell_command": ["/bin/bash"]}}})
    _write_json(learner / "labconfig" / "page_config.json",
                {"disabledExtensions": {name: True for name in TEACHER_LAB_PLUGINS}})
    _write_json(learner / "jupyter_server_config.json",
                {"ServerApp": {"jpserver_extensions": {name: False for name in TEACHER_SERVER_EXTENSIONS}}})
    # The teacher's nbgrader settings are the course's own (course/nbgrader_config.py).
    (teacher / "nbgrader_config.py").write_text(
        "c = get_config()  # written by hub/classroom_site.py\n"
        f"load_subconfig({str(site.course / 'nbgrader_config.py')!r})\n")


def _write_json(path, data):
    import json

    path.write_text(json.dumps(data, indent=1) + "\n")


def ensure_folders(site):
    """The site's root-owned folders (before any user exists)."""
    _make_dir(site.root, 0o755)
    _make_dir(site.state, 0o700)
    _make_dir(site.home, 0o755)
    # nbgrader checks that every user can write the exchange root (its docs: chmod ugo+rw);
    # the sticky bit keeps one user from removing another's folder, and the course's own
    # folder belongs to the teacher before any learner could claim the name.
    _make_dir(site.exchange, 0o1777)


def protect_checkout():
    """Close the checkout's solutions and course source to other users (when they could reach it)."""
    for folder in (REPO / "lessons" / "solutions", REPO / "course"):
        if folder.exists() and reachable_by_others(folder.parent):
            os.chmod(folder, stat.S_IMODE(folder.stat().st_mode) & 0o700)


def prepare(site, teacher):
    """The teacher's folders, the runtime and the configuration (the teacher user must exist)."""
    ensure_folders(site)
    protect_checkout()
    _make_dir(site.exchange / COURSE_ID, 0o755, owner=teacher)
    _make_dir(site.course, 0o700, owner=teacher)
    install_runtime(site)
    write_config(site)
    sync_course(site, teacher)


def sync_course(site, teacher):
    """Copy the repository's course/ (config, plugins, source/, release/) into the teacher's.

    MINITORCH_COURSE_DIR names another folder to copy from (the tests build their own)."""
    course = Path(os.environ.get("MINITORCH_COURSE_DIR", REPO / "course"))
    for name in ("nbgrader_config.py", "minitorch_grading.py", "schedule.csv"):
        if (course / name).exists():
            shutil.copy(course / name, site.course / name)
    for folder in ("source", "release"):
        if (course / folder).exists():
            shutil.copytree(course / folder, site.course / folder, dirs_exist_ok=True)
    subprocess.run(["chown", "-R", f"{teacher}:{teacher}", str(site.course)], check=True)
