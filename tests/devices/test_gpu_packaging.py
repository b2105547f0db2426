"""The GPU install routes: pip's ``gpu`` extra and conda's ``environment-gpu.yml``.

CuPy is never in the base or dev dependencies: a machine without a GPU gets it only through
the ``gpu-compile`` extra (CuPy's code generator, NVRTC and the CUDA headers, which
``make setup`` installs so that ``make test`` compiles every kernel), without cuBLAS and the
rest of ``[ctk]``. The conda GPU file is environment.yml plus CuPy and the CUDA version pin.
"""

from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib")  # Python >= 3.11
yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).resolve().parents[2]


def _names(deps):
    return [d.split()[0] if isinstance(d, str) else d for d in deps]


def test_gpu_extra_is_cupy_only():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    assert [d for d in extras["gpu"] if d.startswith("cupy")] == extras["gpu"]
    assert any(d.startswith("cupy-cuda12x[ctk]") for d in extras["gpu"])  # CuPy 14 needs [ctk] or a toolkit
    assert [d for d in extras["gpu13"] if d.startswith("cupy-cuda13x[ctk]")] == extras["gpu13"]
    for group in [project["dependencies"], extras["dev"], extras["gpu-check"]]:
        assert not any("cupy" in d for d in group)


def test_make_setup_installs_what_compiles_the_kernels_without_a_gpu():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = sorted(d.split(">")[0].split("[")[0] for d in project["optional-dependencies"]["gpu-compile"])
    assert names == ["cupy-cuda12x", "nvidia-cuda-nvrtc-cu12", "nvidia-cuda-runtime-cu12"]  # no [ctk]: no cuBLAS
    # the developer's install (make setup / make test), not the learner's lab-only one
    dev_install = [line for line in (ROOT / "Makefile").read_text().splitlines() if 'install -q -e ".[dev' in line]
    assert dev_install and all("gpu-compile" in line for line in dev_install), dev_install


def test_conda_gpu_environment_is_base_plus_cupy():
    base = yaml.safe_load((ROOT / "environment.yml").read_text())
    gpu = yaml.safe_load((ROOT / "environment-gpu.yml").read_text())
    assert gpu["channels"] == base["channels"]
    assert gpu["name"] != base["name"]
    extra = [d for d in gpu["dependencies"] if d not in base["dependencies"]]
    assert sorted(_names(extra)) == ["cuda-version>=12,<14", "cupy>=13"]
    assert [d for d in gpu["dependencies"] if d in base["dependencies"]] == base["dependencies"]
