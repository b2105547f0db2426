"""The GPU install routes: pip's ``gpu`` extra and conda's ``environment-gpu.yml``.

CuPy is never in the base or dev dependencies (a 137 MB wheel CI doesn't need); the
conda GPU file is environment.yml plus CuPy and the CUDA version pin, nothing else.
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
    for group in [project["dependencies"], extras["dev"]]:
        assert not any("cupy" in d for d in group)


def test_conda_gpu_environment_is_base_plus_cupy():
    base = yaml.safe_load((ROOT / "environment.yml").read_text())
    gpu = yaml.safe_load((ROOT / "environment-gpu.yml").read_text())
    assert gpu["channels"] == base["channels"]
    assert gpu["name"] != base["name"]
    extra = [d for d in gpu["dependencies"] if d not in base["dependencies"]]
    assert sorted(_names(extra)) == ["cuda-version>=12,<14", "cupy>=13"]
    assert [d for d in gpu["dependencies"] if d in base["dependencies"]] == base["dependencies"]
