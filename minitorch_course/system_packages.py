"""The optional system packages, and the one command that installs each on this computer.

Nothing here is needed to run the course: without Graphviz's ``dot`` the graphs are drawn in the
browser, without the Noto CJK fonts only the Chinese lessons' figures lack their characters,
and Chromium only runs the project's browser tests. Each is named per package manager:

    python3 -m minitorch_course.system_packages graphviz cjk-fonts           # say what is missing
    python3 -m minitorch_course.system_packages --install graphviz cjk-fonts # and, as root, install it

``make system-deps`` runs the second: as root with a package manager it knows (apt, dnf,
pacman, zypper) it installs what is missing, and goes on without it if that fails; otherwise
it prints the line to run (``sudo dnf install ...``, ``brew install ...``). It never fails.
``minitorch-course doctor`` uses the same table. Standard library only.
"""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path

# what -> package manager -> package name (None: that manager does not have it)
PACKAGES: dict[str, dict[str, str | None]] = {
    "graphviz": {
        "apt": "graphviz",
        "dnf": "graphviz",
        "pacman": "graphviz",
        "zypper": "graphviz",
        "brew": "graphviz",
        "winget": "Graphviz.Graphviz",
        "conda": "graphviz",
    },
    "cjk-fonts": {
        "apt": "fonts-noto-cjk",
        "dnf": "google-noto-sans-cjk-fonts",
        "pacman": "noto-fonts-cjk",
        "zypper": "noto-sans-cjk-fonts",
        "brew": "font-noto-sans-cjk",
        "winget": None,
        "conda": None,
    },
    "chromium": {
        "apt": "chromium",
        "dnf": "chromium",
        "pacman": "chromium",
        "zypper": "chromium",
        "brew": "chromium",
        "winget": None,
        "conda": None,
    },
}
WHY = {
    "graphviz": "Graphviz's dot program: graphs drawn in Python and stored as SVG (without it: drawn in the browser)",
    "cjk-fonts": "the Noto Sans CJK SC font: Chinese text in the Chinese lessons' figures and graphs",
    "chromium": "Chromium: the project's browser tests (make test), not the lessons",
}
# How each manager installs a list of packages ({} is the list).
INSTALL = {
    "apt": "sudo apt-get install -y {}",
    "dnf": "sudo dnf install -y {}",
    "pacman": "sudo pacman -S --needed {}",
    "zypper": "sudo zypper install -y {}",
    "brew": "brew install {}",
    "winget": "winget install -e --id {}",
    "conda": "conda install -c conda-forge {}",
}
CASKS = {"font-noto-sans-cjk", "chromium"}  # brew installs these with --cask
# Linux distributions (os-release ID / ID_LIKE) -> manager, then the programs that tell.
DISTRO_MANAGERS = {
    "debian": "apt",
    "ubuntu": "apt",
    "fedora": "dnf",
    "rhel": "dnf",
    "centos": "dnf",
    "arch": "pacman",
    "manjaro": "pacman",
    "suse": "zypper",
    "opensuse": "zypper",
}
MANAGER_PROGRAMS = {
    "apt": "apt-get",
    "dnf": "dnf",
    "pacman": "pacman",
    "zypper": "zypper",
    "brew": "brew",
    "winget": "winget",
}
ROOT_INSTALLS = {  # what root runs without sudo, quietly
    "apt": "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq {} >/dev/null",
    "dnf": "dnf install -y -q {}",
    "pacman": "pacman -S --needed --noconfirm {}",
    "zypper": "zypper --non-interactive install {}",
}
CJK_FONT = "Noto Sans CJK SC"  # widgets.style.CJK_FONT


def os_release(path: str = "/etc/os-release") -> dict[str, str]:
    """The fields of /etc/os-release ({} where there is none)."""
    fields = {}
    try:
        text = Path(path).read_text()
    except OSError:
        return fields
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep:
            fields[key.strip()] = value.strip().strip('"')
    return fields


def package_manager(system: str | None = None, release: dict[str, str] | None = None) -> str | None:
    """The package manager of this computer: apt, dnf, pacman, zypper, brew, winget, or None."""
    system = system or platform.system()
    if system == "Darwin":
        return "brew"
    if system == "Windows":
        return "winget"
    release = os_release() if release is None else release
    for distro in [release.get("ID", ""), *release.get("ID_LIKE", "").split()]:
        if distro in DISTRO_MANAGERS:
            return DISTRO_MANAGERS[distro]
    for manager in ("apt", "dnf", "pacman", "zypper"):
        if shutil.which(MANAGER_PROGRAMS[manager]):
            return manager
    return None


def install_command(whats: list[str], manager: str | None) -> str | None:
    """The one line that installs ``whats`` with ``manager`` (None when it has none of them)."""
    if manager is None:
        return None
    names = [PACKAGES[w].get(manager) for w in whats]
    names = [n for n in names if n]
    if not names:
        return None
    if manager == "brew":
        formulae = [n for n in names if n not in CASKS]
        casks = [n for n in names if n in CASKS]
        lines = ([INSTALL["brew"].format(" ".join(formulae))] if formulae else []) + (
            [INSTALL["brew"].format("--cask " + " ".join(casks))] if casks else []
        )
        return " && ".join(lines)
    if manager == "winget":  # one package per winget command
        return " ; ".join(INSTALL["winget"].format(n) for n in names)
    return INSTALL[manager].format(" ".join(names))


def has_cjk_font() -> bool:
    """True when fontconfig knows the CJK font (Linux); elsewhere, when a font file of that name is found."""
    if shutil.which("fc-list"):
        done = subprocess.run(["fc-list", CJK_FONT], capture_output=True, text=True, timeout=30)
        return bool(done.stdout.strip())
    folders = [
        Path.home() / "Library" / "Fonts",
        Path("/Library/Fonts"),
        Path(os.environ.get("WINDIR", "C:/Windows")) / "Fonts",
        Path(os.environ.get("LOCALAPPDATA", "")) / "Microsoft" / "Windows" / "Fonts",
    ]
    return any(folder.is_dir() and any(folder.glob("NotoSansCJK*")) for folder in folders)


def has_chromium() -> bool:
    return bool(shutil.which("chromium") or shutil.which("chromium-browser") or os.access("/usr/bin/chromium", os.X_OK))


CHECKS = {"graphviz": lambda: shutil.which("dot") is not None, "cjk-fonts": has_cjk_font, "chromium": has_chromium}


def missing(whats: list[str]) -> list[str]:
    """Those of ``whats`` this computer lacks."""
    return [w for w in whats if not CHECKS[w]()]


def is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def main(argv: list[str]) -> int:
    """Say (or, with --install as root, install) the missing optional packages; always 0: they are optional."""
    install = "--install" in argv
    whats = [a for a in argv if not a.startswith("--")] or list(PACKAGES)
    unknown = [w for w in whats if w not in PACKAGES]
    if unknown:
        print(f"unknown system package(s) {unknown}; known: {list(PACKAGES)}", file=sys.stderr)
        return 2
    lacking = missing(whats)
    if not lacking:
        return 0
    manager = package_manager()
    print("Optional system packages missing here:")
    for what in lacking:
        print(f"  - {WHY[what]}")
    if install and is_root() and manager in ROOT_INSTALLS:
        names = " ".join(n for n in (PACKAGES[w].get(manager) for w in lacking) if n)
        print(f"installing with {manager}: {names}", flush=True)
        done = subprocess.run(ROOT_INSTALLS[manager].format(names), shell=True)
        if done.returncode == 0:
            return 0
        print(f"could not install them ({manager} exited {done.returncode}); going on without them.")
        return 0
    line = install_command(lacking, manager)
    if line:
        print(f"To install them ({manager}):\n    {line}")
    else:
        print("Install them with your system's package manager (Graphviz: https://graphviz.org/download/).")
    print("Going on without them.")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
