"""The ``minitorch-course`` command.

    minitorch-course lessons DIR [--lang zh] [--force]   # the learner notebooks of this version, into DIR
    minitorch-course lab [DIR] [--lang zh] [-- jupyter lab options]   # JupyterLab on lesson 00 in DIR
    minitorch-course doctor                              # what this computer has and lacks, with fixes

No make, bash or system package manager is needed: the same commands on Linux, macOS and
Windows. ``lab`` writes the lessons into DIR first when they are not there (never over a
changed copy), then runs this Python's JupyterLab on ``DIR/00_welcome.ipynb``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from minitorch_course import notebooks, version

DEFAULT_FOLDER = "minitorch-lessons"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="minitorch-course", description="The MiniTorch course: lessons, lab, doctor.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {version()}")
    sub = parser.add_subparsers(dest="command", required=True)
    lessons = sub.add_parser("lessons", help="write the learner notebooks into a folder")
    lessons.add_argument("folder", help="where to write them (created if missing)")
    lessons.add_argument("--lang", choices=notebooks.LANGUAGES, default="en", help="the lessons' language")
    lessons.add_argument(
        "--force", action="store_true", help="also replace notebooks you changed (yours are kept as NN_name.ipynb.bak)"
    )
    lab = sub.add_parser("lab", help="open JupyterLab on lesson 00 (writing the lessons first if needed)")
    lab.add_argument(
        "folder", nargs="?", default=DEFAULT_FOLDER, help=f"the lessons' folder (default {DEFAULT_FOLDER})"
    )
    lab.add_argument("--lang", choices=notebooks.LANGUAGES, default="en", help="the lessons' language")
    lab.add_argument("jupyter_args", nargs=argparse.REMAINDER, help="after --: options for jupyter lab")
    sub.add_parser("doctor", help="what this computer has and lacks for the course, and how to fix it")
    return parser


def lessons_command(folder: str, lang: str, force: bool) -> int:
    written = notebooks.write_lessons(folder, lang, force)
    print(written.summary())
    print(f"Open them:  minitorch-course lab {folder}" + (f" --lang {lang}" if lang != "en" else ""))
    return 0


def lab_command(folder: str, lang: str, jupyter_args: list[str]) -> int:
    path = Path(folder).expanduser()
    if not (path / notebooks.FIRST_LESSON).exists():
        print(notebooks.write_lessons(path, lang).summary())
    args = [a for a in jupyter_args if a != "--"]
    if hasattr(os, "geteuid") and os.geteuid() == 0 and "--allow-root" not in args:
        args.append("--allow-root")  # containers often run as root, and JupyterLab refuses it unless told
    command = [
        sys.executable,
        "-m",
        "jupyterlab",
        f"--ServerApp.root_dir={path.resolve()}",
        *args,
        str((path / notebooks.FIRST_LESSON).resolve()),
    ]
    print("Starting JupyterLab on", path / notebooks.FIRST_LESSON, flush=True)
    try:
        return subprocess.call(command)
    except KeyboardInterrupt:
        return 0


def main(argv: list[str] | None = None) -> int:
    options = _parser().parse_args(argv)
    if options.command == "lessons":
        return lessons_command(options.folder, options.lang, options.force)
    if options.command == "lab":
        return lab_command(options.folder, options.lang, options.jupyter_args)
    from minitorch_course import doctor

    return doctor.main()


if __name__ == "__main__":
    sys.exit(main())
