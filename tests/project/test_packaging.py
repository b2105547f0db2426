"""pyproject.toml (pip) and environment.yml (conda) must describe the same stack.

A learner may install either way, so every package one file lists the other lists too,
with the same version bound. Known differences are spelled out here:
- conda-forge's ``python-graphviz`` is PyPI's ``graphviz`` (the Python wrapper), and
  conda's ``graphviz`` is the ``dot`` binary, which pip cannot install at all;
- ``python`` and ``pip`` are conda's own entries;
- the ``gpu``/``gpu13`` (CuPy, hardware-specific), ``gpu-compile`` (CUDA 12 wheels that
  compile the kernels without a GPU, for ``make test``), ``gpu-check`` (what
  ``bench/gpu_check.sh`` puts in the pip venv it makes) and ``bench`` (PyTorch, an oracle
  only) extras are pip-only on purpose.
"""

import re
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet

tomllib = pytest.importorskip("tomllib")  # Python >= 3.11
yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).resolve().parents[2]
CONDA_TO_PIP = {"python-graphviz": "graphviz"}
CONDA_ONLY = {"python", "pip", "graphviz"}  # conda's graphviz is the dot binary
PIP_ONLY_EXTRAS = {"gpu", "gpu13", "gpu-compile", "gpu-check", "bench"}


def normalize(name):
    return re.sub(r"[-_.]+", "-", name).lower()


@pytest.fixture(scope="module")
def pyproject():
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


@pytest.fixture(scope="module")
def environment():
    return yaml.safe_load((ROOT / "environment.yml").read_text())


def pip_requirements(pyproject):
    """name -> SpecifierSet for the runtime dependencies and every extra conda should have."""
    project = pyproject["project"]
    lines = list(project["dependencies"])
    for extra, deps in project.get("optional-dependencies", {}).items():
        if extra not in PIP_ONLY_EXTRAS:
            lines.extend(deps)
    requirements = [Requirement(line) for line in lines]
    return {normalize(r.name): r.specifier for r in requirements}


def conda_requirements(environment):
    """name (as pip calls it) -> SpecifierSet for the conda dependencies, plus the pip list."""
    conda, pip_section = {}, []
    for entry in environment["dependencies"]:
        if isinstance(entry, dict):
            pip_section.extend(entry.get("pip", []))
            continue
        match = re.fullmatch(r"([A-Za-z0-9_.\-]+)\s*(.*)", entry.strip())
        name, spec = match.group(1), match.group(2).replace(" ", "")
        if normalize(name) in CONDA_ONLY:
            continue
        conda[CONDA_TO_PIP.get(normalize(name), normalize(name))] = SpecifierSet(spec)
    return conda, pip_section


def test_both_files_parse(pyproject, environment):
    assert pyproject["project"]["name"]
    assert "conda-forge" in environment["channels"]
    assert environment["name"]


def test_same_packages_with_same_bounds(pyproject, environment):
    pip = pip_requirements(pyproject)
    conda, _ = conda_requirements(environment)
    assert sorted(set(pip) - set(conda)) == [], "listed in pyproject.toml but missing from environment.yml"
    assert sorted(set(conda) - set(pip)) == [], "listed in environment.yml but missing from pyproject.toml"
    different = {name: (str(pip[name]), str(conda[name])) for name in pip if pip[name] != conda[name]}
    assert different == {}, "version bounds differ (pyproject, environment.yml)"


def test_environment_installs_the_package_itself(environment):
    _, pip_section = conda_requirements(environment)
    assert "-e ." in pip_section


def test_environment_python_satisfies_requires_python(pyproject, environment):
    pythons = [e for e in environment["dependencies"] if isinstance(e, str) and re.match(r"python\s*[=<>]", e)]
    assert len(pythons) == 1
    version = re.search(r"(\d+\.\d+)", pythons[0]).group(1)
    assert SpecifierSet(pyproject["project"]["requires-python"]).contains(version)


def test_dot_binary_is_in_the_conda_environment(environment):
    names = [re.split(r"[\s<>=]", e)[0] for e in environment["dependencies"] if isinstance(e, str)]
    assert "graphviz" in names and "python-graphviz" in names


def test_framework_depends_on_numpy_only_and_torch_is_never_a_runtime_dependency(pyproject):
    runtime = {normalize(Requirement(line).name) for line in pyproject["project"]["dependencies"]}
    assert "numpy" in runtime
    assert "torch" not in runtime and "cupy-cuda12x" not in runtime
    extras = pyproject["project"]["optional-dependencies"]
    assert any(Requirement(line).name == "torch" for line in extras["bench"])
    assert any(normalize(Requirement(line).name) == "pyyaml" for line in extras["dev"])
