"""``python -m minitorch.run_as_torch``: ``import torch`` is MiniTorch for that run only, and nothing else."""

import subprocess
import sys
import textwrap

import pytest

import minitorch


def _run(tmp_path, code, *args, name="script.py"):
    script = tmp_path / name
    script.write_text(textwrap.dedent(code))
    return subprocess.run([sys.executable, "-m", "minitorch.run_as_torch", script, *args], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)


def test_torch_is_minitorch_and_its_submodules_are_minitorchs(tmp_path):
    done = _run(tmp_path, """
        import sys
        import minitorch
        import torch
        import torch.nn as nn
        import torch.nn.functional as F
        import torch.optim.lr_scheduler
        from torch import optim
        from torch.utils.data import DataLoader, Dataset, TensorDataset
        assert torch is minitorch and nn is minitorch.nn and F is minitorch.nn.functional
        assert optim is minitorch.optim and torch.optim.lr_scheduler is minitorch.optim.lr_scheduler
        assert DataLoader is minitorch.data.DataLoader and TensorDataset is minitorch.data.TensorDataset
        assert Dataset is minitorch.data.Dataset and torch.utils.data is minitorch.utils.data
        # a submodule MiniTorch had not loaded yet is loaded once, under its own name
        import torch.examples.digits as d
        assert d is sys.modules["minitorch.examples.digits"] and d.__spec__.name == "minitorch.examples.digits"
        print("args", sys.argv[1:], __name__)
    """, "--epochs", "3")
    assert done.returncode == 0, done.stderr
    assert "args ['--epochs', '3'] __main__" in done.stdout


def test_the_scripts_folder_is_on_the_path_as_with_python(tmp_path):
    (tmp_path / "helper.py").write_text("VALUE = 42\n")
    done = _run(tmp_path, "import helper\nimport torch\nprint(helper.VALUE, torch.tensor(2.0).item())\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["42", "2.0"]


def test_something_minitorch_lacks_fails_with_the_ordinary_error(tmp_path):
    done = _run(tmp_path, "import torch\ntorch.fft.fft(torch.ones(4))\n")
    assert done.returncode != 0 and "AttributeError" in done.stderr and "fft" in done.stderr
    done = _run(tmp_path, "import torch.fft\n")
    assert "ModuleNotFoundError" in done.stderr and "torch.fft" in done.stderr


def test_usage_and_missing_script(tmp_path):
    done = subprocess.run([sys.executable, "-m", "minitorch.run_as_torch"], capture_output=True, text=True)
    assert done.returncode == 2 and "usage" in done.stdout
    done = subprocess.run([sys.executable, "-m", "minitorch.run_as_torch", tmp_path / "nope.py"],
                          capture_output=True, text=True)
    assert done.returncode == 1 and "no such script" in done.stderr


def test_the_alias_is_not_visible_outside_the_run():
    """Importing minitorch never puts the alias on the path (only run_as_torch does)."""
    from minitorch.run_as_torch import ALIAS

    assert str(ALIAS) not in sys.path
    assert sys.modules.get("torch") is not minitorch


def test_minitorch_utils_data_is_the_data_package():
    from minitorch.utils import data

    assert data.DataLoader is minitorch.data.DataLoader and data.TensorDataset is minitorch.data.TensorDataset


@pytest.mark.parametrize("name", ["DataLoader", "Dataset", "TensorDataset", "default_collate"])
def test_torch_utils_data_names_exist(name):
    from minitorch.utils import data

    assert hasattr(data, name)


def test_importing_the_alias_by_its_package_name_changes_nothing():
    """A tool that imports every module of minitorch (pkgutil.walk_packages) must not hijack ``torch``."""
    code = (
        "import sys, minitorch.compat.alias.torch\n"
        "print('torch' in sys.modules, any(type(f).__name__ == '_AliasFinder' for f in sys.meta_path))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.split() == ["False", "False"], done.stderr
