"""Put the pinned WebAssembly build of Graphviz (``@viz-js/viz``, npm) into the widgets package.

    python -m tools.fetch_viz            # fetch it unless it is there already (make setup runs this)
    python -m tools.fetch_viz --check    # exit 1 (saying why) if it is missing or not the pinned file

Where Graphviz's ``dot`` program is not installed, ``draw_graph`` lays its graphs out in the
notebook's browser with this file (``widgets/draw/browser/``). It is not committed: this tool
fetches the npm package with the machine's ``npm`` (``npm pack``: the tarball only, no
``node_modules``), checks it against the pinned integrity hash and copies ``dist/viz.js``
(an ES module with the WebAssembly inlined, about 1.2 MB) to ``VIZ_FILE``, where the wheel
and the editable install take it from as package data. ``setup.py`` runs the same code when
pip builds the package from source (``pip install git+URL``): see ``docs/WIDGETS.md``.

Standard library only: ``setup.py`` imports this file in pip's build environment.
"""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BROWSER_DIR = ROOT / "widgets" / "draw" / "browser"
VIZ_FILE = BROWSER_DIR / "viz.js"
# The pin, read by the widgets too: package, version, the tarball's integrity
# (`npm view @viz-js/viz@VERSION dist.integrity`) and the SHA-256 of the file taken from it.
PIN = json.loads((BROWSER_DIR / "viz.json").read_text())
PACKAGE, VERSION, INTEGRITY = PIN["package"], PIN["version"], PIN["integrity"]
MEMBER, FILE_SHA256 = PIN["member"], PIN["sha256"]


class FetchError(RuntimeError):
    """The pinned file could not be fetched (no npm, no network, a different file)."""


def file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def is_current(target: Path = VIZ_FILE) -> bool:
    """True when ``target`` is the pinned ``dist/viz.js``."""
    return target.is_file() and file_sha256(target) == FILE_SHA256


def _integrity(tarball: Path) -> str:
    digest = hashlib.sha512(tarball.read_bytes()).digest()
    return "sha512-" + base64.b64encode(digest).decode("ascii")


def fetch(target: Path = VIZ_FILE, npm: str | None = None) -> Path:
    """Fetch the pinned package with npm and write its ``dist/viz.js`` to ``target``; FetchError if impossible."""
    if is_current(target):
        return target
    npm = npm or shutil.which("npm")
    if npm is None:
        raise FetchError(
            f"npm is not installed, so {PACKAGE}@{VERSION} (Graphviz for the browser) cannot be "
            "fetched. Install Node.js with npm, or Graphviz's dot program, which makes it unneeded."
        )
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run(
            [npm, "pack", f"{PACKAGE}@{VERSION}", "--pack-destination", tmp, "--json", "--loglevel=error"],
            capture_output=True,
            text=True,
            timeout=300,
        )
        if done.returncode != 0:
            raise FetchError(f"npm pack {PACKAGE}@{VERSION} failed: {done.stderr.strip()[-400:]}")
        tarball = Path(tmp) / json.loads(done.stdout)[0]["filename"]  # viz-js-viz-3.31.0.tgz
        if _integrity(tarball) != INTEGRITY:
            raise FetchError(f"{tarball.name} is not the pinned {PACKAGE}@{VERSION} (integrity differs)")
        with tarfile.open(tarball) as archive:
            member = archive.extractfile(MEMBER)
            if member is None:
                raise FetchError(f"{tarball.name} has no {MEMBER}")
            data = member.read()
    if hashlib.sha256(data).hexdigest() != FILE_SHA256:
        raise FetchError(f"{MEMBER} of {PACKAGE}@{VERSION} is not the pinned file (SHA-256 differs)")
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".partial")
    partial.write_bytes(data)
    partial.replace(target)
    return target


def main(argv: list[str]) -> int:
    if "--check" in argv:
        if is_current():
            print(f"{VIZ_FILE.relative_to(ROOT)}: {PACKAGE}@{VERSION}, as pinned")
            return 0
        print(
            f"{VIZ_FILE.relative_to(ROOT)} is missing or not {PACKAGE}@{VERSION}: run python -m tools.fetch_viz",
            file=sys.stderr,
        )
        return 1
    try:
        path = fetch()
    except FetchError as exc:
        print(f"fetch_viz: {exc}", file=sys.stderr)
        return 1
    print(f"{path.relative_to(ROOT)}: {PACKAGE}@{VERSION}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
