"""``minitorch-course`` in-process: the lessons it writes, the package-manager lines, the first-cell install check.

The installed wheel, as a learner who is not root, is ``tests/install/test_learner_install.py``.
"""

import json
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # tools/ is a repository script folder, not an installed package

from minitorch_course import cli, doctor, notebooks, system_packages  # noqa: E402
from tools import first_cell  # noqa: E402

ALL_NOTEBOOKS = sorted(
    [
        *ROOT.glob("lessons/[0-9][0-9]_*.ipynb"),
        *ROOT.glob("lessons/zh/[0-9][0-9]_*.ipynb"),
        *ROOT.glob("lessons/solutions/[0-9][0-9]_*.ipynb"),
        *ROOT.glob("lessons/solutions/zh/[0-9][0-9]_*.ipynb"),
    ]
)


# ------------------------------------------------------------------ minitorch-course lessons
def test_lessons_go_into_an_empty_folder_and_an_edited_copy_is_kept(tmp_path, capsys):
    folder = tmp_path / "mine"
    assert cli.main(["lessons", str(folder)]) == 0
    names = sorted(p.name for p in folder.glob("[0-9][0-9]_*.ipynb"))
    assert names == sorted(p.name for p in (ROOT / "lessons").glob("[0-9][0-9]_*.ipynb"))
    assert f"{len(names)} lesson notebooks written to {folder}" in capsys.readouterr().out
    manifest = json.loads((folder / notebooks.MANIFEST).read_text())
    assert manifest["lang"] == "en" and sorted(manifest["files"]) == names

    edited = folder / names[1]
    edited.write_text(edited.read_text() + " ")
    again = notebooks.write_lessons(folder)
    assert again.kept == [names[1]] and len(again.unchanged) == len(names) - 1 and not again.new
    assert edited.read_text().endswith(" ")  # never written over without --force
    assert notebooks.write_lessons(folder).kept == [names[1]]  # and not on the run after either
    forced = notebooks.write_lessons(folder, force=True)
    assert forced.replaced == [names[1]] and (folder / (names[1] + ".bak")).read_text().endswith(" ")
    assert edited.read_bytes() == (ROOT / "lessons" / names[1]).read_bytes()


def test_a_copy_as_written_by_an_older_version_is_updated(tmp_path):
    folder = tmp_path / "mine"
    notebooks.write_lessons(folder)
    old = folder / "00_welcome.ipynb"
    old.write_text('{"an": "older version"}')  # what an older version wrote, recorded in the manifest as such
    manifest = json.loads((folder / notebooks.MANIFEST).read_text())
    manifest["files"]["00_welcome.ipynb"] = notebooks._sha256(old.read_bytes())
    (folder / notebooks.MANIFEST).write_text(json.dumps(manifest))
    done = notebooks.write_lessons(folder)
    assert done.updated == ["00_welcome.ipynb"] and old.read_bytes() == (ROOT / "lessons/00_welcome.ipynb").read_bytes()


def test_chinese_lessons(tmp_path):
    notebooks.write_lessons(tmp_path, "zh")
    assert (tmp_path / "00_welcome.ipynb").read_bytes() == (ROOT / "lessons/zh/00_welcome.ipynb").read_bytes()
    with pytest.raises(ValueError, match="unknown language 'fr'"):
        notebooks.lesson_folder("fr")


def test_lab_writes_the_lessons_then_opens_lesson_00(tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(cli.subprocess, "call", lambda command: calls.append(command) or 0)
    assert cli.main(["lab", str(tmp_path / "course"), "--", "--no-browser"]) == 0
    (command,) = calls
    assert command[:3] == [sys.executable, "-m", "jupyterlab"] and "--no-browser" in command
    assert command[-1] == str((tmp_path / "course" / "00_welcome.ipynb").resolve())
    assert f"--ServerApp.root_dir={(tmp_path / 'course').resolve()}" in command
    assert (tmp_path / "course" / "00_welcome.ipynb").exists()


# ------------------------------------------------------------------ system packages, per operating system
@pytest.mark.parametrize(
    "release, manager",
    [
        ({"ID": "debian"}, "apt"),
        ({"ID": "ubuntu", "ID_LIKE": "debian"}, "apt"),
        ({"ID": "fedora"}, "dnf"),
        ({"ID": "rocky", "ID_LIKE": "rhel centos fedora"}, "dnf"),
        ({"ID": "arch"}, "pacman"),
        ({"ID": "opensuse-tumbleweed", "ID_LIKE": "opensuse suse"}, "zypper"),
    ],
)
def test_the_package_manager_of_each_linux(release, manager):
    assert system_packages.package_manager("Linux", release) == manager


def test_the_install_line_of_each_system():
    line = system_packages.install_command
    assert system_packages.package_manager("Darwin") == "brew"
    assert system_packages.package_manager("Windows") == "winget"
    assert line(["graphviz", "cjk-fonts"], "apt") == "sudo apt-get install -y graphviz fonts-noto-cjk"
    assert line(["graphviz", "cjk-fonts"], "dnf") == "sudo dnf install -y graphviz google-noto-sans-cjk-fonts"
    assert line(["graphviz", "cjk-fonts"], "pacman") == "sudo pacman -S --needed graphviz noto-fonts-cjk"
    assert line(["graphviz", "cjk-fonts"], "brew") == "brew install graphviz && brew install --cask font-noto-sans-cjk"
    assert line(["graphviz"], "winget") == "winget install -e --id Graphviz.Graphviz"
    assert line(["cjk-fonts"], "winget") is None and line(["graphviz"], None) is None


def test_system_deps_without_root_prints_this_systems_line_and_goes_on(monkeypatch, capsys):
    monkeypatch.setitem(system_packages.CHECKS, "graphviz", lambda: False)
    monkeypatch.setattr(system_packages, "is_root", lambda: False)
    monkeypatch.setattr(system_packages, "package_manager", lambda: "dnf")
    assert system_packages.main(["--install", "graphviz"]) == 0
    out = capsys.readouterr().out
    assert "sudo dnf install -y graphviz" in out and "Going on without them." in out


def test_system_deps_as_root_goes_on_when_the_install_fails(monkeypatch, capsys):
    monkeypatch.setitem(system_packages.CHECKS, "graphviz", lambda: False)
    monkeypatch.setattr(system_packages, "is_root", lambda: True)
    monkeypatch.setattr(system_packages, "package_manager", lambda: "apt")
    ran = []

    class Done:
        returncode = 100

    monkeypatch.setattr(system_packages.subprocess, "run", lambda command, shell: ran.append(command) or Done())
    assert system_packages.main(["--install", "graphviz"]) == 0
    assert "apt-get install -y -qq graphviz" in ran[0]
    assert "going on without them" in capsys.readouterr().out


# ------------------------------------------------------------------ doctor, in-process
def test_doctor_says_what_draws_the_graphs(monkeypatch):
    from widgets.draw import browser_view

    monkeypatch.setattr(browser_view, "dot_program", lambda: None)
    found = doctor.graphs("pacman")
    assert found.status == "note" and "drawn in the browser" in found.detail
    assert found.fix == "sudo pacman -S --needed graphviz"
    monkeypatch.setattr(browser_view, "VIZ_FILE", Path("/nonexistent/viz.js"))
    assert doctor.graphs("brew").status == "problem" and doctor.graphs("brew").fix == "brew install graphviz"
    report = doctor.report([doctor.graphs("brew")])
    assert "problem  graphs" in report and "fix: brew install graphviz" in report and "Problems: graphs" in report


def test_doctor_reports_numpys_blas_and_cpu_dispatch():
    found = doctor.numpy_blas_and_cpu()
    assert found.status == "ok" and "BLAS" in found.detail


# ------------------------------------------------------------------ the first cell of every lesson
@pytest.mark.parametrize("path", ALL_NOTEBOOKS, ids=lambda p: str(p.relative_to(ROOT / "lessons")))
def test_every_lessons_first_code_cell_starts_with_the_install_check(path):
    cell = first_cell.first_code_cell(nbformat.read(path, as_version=4))
    assert cell.source.startswith(first_cell.prelude()), "run python -m tools.first_cell, then make lessons"


def test_the_install_check_pins_this_version_and_is_replaced_not_repeated():
    version = first_cell.course_version()
    assert f"%pip install minitorch-course=={version}" in first_cell.prelude()
    once = first_cell.with_prelude("import numpy as np\n", "0.0.1")
    again = first_cell.with_prelude(once)
    assert again.count("try:") == 1 and f"=={version}" in again and again.endswith("\nimport numpy as np\n")
