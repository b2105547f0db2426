"""The two build steps ``pyproject.toml`` cannot say; everything else about the package is there.

1. ``widgets/draw/browser/viz.js``, Graphviz for the browser (the drawing path without ``dot``),
   is not in the repository: it is fetched from npm, pinned, by ``tools/fetch_viz.py`` (``make
   setup`` does that first). When pip builds the package from source (``pip install git+URL``
   or ``pip install -e .``) and it is missing, this fetches it with npm. Without npm the build
   goes on, warning, and the installed package then says what to do where it would need it
   (``widgets/draw/browser_view.py``), unless ``MINITORCH_REQUIRE_VIZ=1`` (``make wheel``),
   which makes it an error: a wheel for learners must have it.
2. The learner notebooks (``lessons/*.ipynb``, ``lessons/zh/*.ipynb``) go into the wheel as
   ``minitorch_course/lessons/en|zh``, for ``minitorch-course lessons``; an editable install
   reads them from the checkout.
"""

import importlib.util
import os
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent


def _fetch_viz() -> None:
    spec = importlib.util.spec_from_file_location("fetch_viz", ROOT / "tools" / "fetch_viz.py")
    fetch_viz = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fetch_viz)
    try:
        fetch_viz.fetch()
    except fetch_viz.FetchError as exc:
        if os.environ.get("MINITORCH_REQUIRE_VIZ") == "1":
            raise SystemExit(f"MINITORCH_REQUIRE_VIZ=1, but {exc}") from None
        print(f"WARNING: building without Graphviz for the browser: {exc} Graphs then need Graphviz's dot program.")


class BuildPy(build_py):
    """build_py that first fetches viz.js and afterwards adds the learner notebooks."""

    def run(self):
        _fetch_viz()
        self.__dict__.pop("data_files", None)  # computed before viz.js existed: list the package data again
        super().run()
        if not getattr(self, "editable_mode", False):
            target = Path(self.build_lib) / "minitorch_course" / "lessons"
            shutil.rmtree(target, ignore_errors=True)  # a lesson renamed since the last build must not stay
            for lang, folder in (("en", ROOT / "lessons"), ("zh", ROOT / "lessons" / "zh")):
                (target / lang).mkdir(parents=True, exist_ok=True)
                for notebook in sorted(folder.glob("[0-9][0-9]_*.ipynb")):
                    shutil.copy2(notebook, target / lang / notebook.name)


setup(cmdclass={"build_py": BuildPy})
