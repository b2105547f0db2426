"""``save(model)`` of a whole Module and ``load``'s rule about it, as PyTorch 2.13's (issue 23).

PyTorch pickles the module; since 2.6 ``torch.load`` refuses it unless ``weights_only=False``
or the classes are on the safe-globals list, with a ``pickle.UnpicklingError``. MiniTorch
writes no pickle, and its ``load`` follows the same rule with the same error type.
"""

import io
import pickle
import subprocess
import sys
import textwrap
import zipfile

import numpy as np
import pytest

import minitorch
from minitorch import nn
from minitorch.serialization import WeightsOnlyLoadError, add_safe_globals, clear_safe_globals, safe_globals

torch = pytest.importorskip("torch")


class TiedLM(nn.Module):
    """An embedding whose weight the output layer shares (nanoGPT's weight tying), and a function attribute."""

    def __init__(self, vocab=7, width=4):
        super().__init__()
        self.wte = nn.Embedding(vocab, width)
        self.block = nn.Sequential(nn.Linear(width, width), nn.ReLU(), nn.LayerNorm(width))
        self.lm_head = nn.Linear(width, vocab, bias=False)
        self.lm_head.weight = self.wte.weight
        self.activation = nn.functional.gelu
        self.config = {"vocab": vocab, "width": width, "names": ("a", "b")}
        self.register_buffer("mask", minitorch.tril(minitorch.ones(3, 3)))

    def forward(self, idx):
        return self.lm_head(self.activation(self.block(self.wte(idx))))


ALL_CLASSES = [TiedLM, nn.Embedding, nn.Sequential, nn.Linear, nn.ReLU, nn.LayerNorm, nn.functional.gelu]


@pytest.fixture(autouse=True)
def _empty_safe_list():
    clear_safe_globals()
    yield
    clear_safe_globals()


def test_a_whole_module_comes_back_with_weights_only_false(tmp_path):
    model = TiedLM()
    model.eval()
    minitorch.save(model, tmp_path / "m.pt")
    again = minitorch.load(tmp_path / "m.pt", weights_only=False)
    assert type(again) is TiedLM and not again.training
    idx = minitorch.tensor([[1, 2, 6]])
    np.testing.assert_array_equal(again(idx).detach().numpy(), model(idx).detach().numpy())
    assert again.lm_head.weight is again.wte.weight  # still tied: one Parameter
    assert isinstance(again.wte.weight, nn.Parameter) and again.wte.weight.requires_grad
    assert again.activation is nn.functional.gelu and again.config == model.config
    assert list(again.state_dict()) == list(model.state_dict())
    assert again.mask.tolist() == model.mask.tolist() and not again.mask.requires_grad
    again.lm_head.weight.sum().backward()  # it trains
    assert again.wte.weight.grad is not None


@pytest.mark.parametrize("lib", ["minitorch", "torch"])
def test_the_default_load_refuses_a_whole_module_with_an_unpickling_error(lib, tmp_path):
    mod = minitorch if lib == "minitorch" else torch
    mod.save(mod.nn.Linear(2, 3), tmp_path / "m.pt")
    with pytest.raises(pickle.UnpicklingError):
        mod.load(tmp_path / "m.pt")
    with pytest.raises(pickle.UnpicklingError):
        mod.load(tmp_path / "m.pt", weights_only=True)
    with mod.serialization.safe_globals([mod.nn.Linear]):
        assert type(mod.load(tmp_path / "m.pt")) is mod.nn.Linear
    assert type(mod.load(tmp_path / "m.pt", weights_only=False)) is mod.nn.Linear


def test_the_refusal_names_what_the_file_needs(tmp_path):
    minitorch.save(TiedLM(), tmp_path / "m.pt")
    with pytest.raises(WeightsOnlyLoadError, match="TiedLM") as caught:
        minitorch.load(tmp_path / "m.pt")
    assert "weights_only=False" in str(caught.value) and "add_safe_globals" in str(caught.value)
    with safe_globals(ALL_CLASSES[:-1]), pytest.raises(WeightsOnlyLoadError, match="gelu"):
        minitorch.load(tmp_path / "m.pt")  # one function still missing
    add_safe_globals(ALL_CLASSES)
    assert type(minitorch.load(tmp_path / "m.pt")) is TiedLM


def test_state_dicts_load_as_before_whatever_weights_only_says(tmp_path):
    model = TiedLM()
    minitorch.save(model.state_dict(), tmp_path / "sd.pt")
    for weights_only in (None, True, False):
        loaded = minitorch.load(tmp_path / "sd.pt", weights_only=weights_only)
        assert list(loaded) == list(model.state_dict())


def test_a_module_inside_a_checkpoint_dict(tmp_path):
    model = TiedLM()
    minitorch.save({"model": model, "step": 3, "best": minitorch.tensor(0.5)}, tmp_path / "ck.pt")
    ck = minitorch.load(tmp_path / "ck.pt", weights_only=False)
    assert ck["step"] == 3 and ck["best"].item() == 0.5 and type(ck["model"]) is TiedLM


def test_what_cannot_be_found_again_is_refused_at_save(tmp_path):
    model = nn.Linear(2, 2)
    model.hook = lambda x: x
    with pytest.raises(minitorch.errors.MiniTorchError, match="lambda"):
        minitorch.save(model, tmp_path / "m.pt")


def _forge(path, target, old, new):
    """Copy the checkpoint at ``path`` to ``target`` with ``old`` replaced by ``new`` in its JSON header."""
    with zipfile.ZipFile(path) as archive:
        entries = {name: archive.read(name) for name in archive.namelist()}
    header = np.load(io.BytesIO(entries["__minitorch__.npy"])).tobytes().decode()
    buffer = io.BytesIO()
    np.save(buffer, np.frombuffer(header.replace(old, new).encode(), dtype=np.uint8))
    entries["__minitorch__.npy"] = buffer.getvalue()
    with zipfile.ZipFile(target, "w") as archive:
        for name, data in entries.items():
            archive.writestr(name, data)


def test_a_forged_class_name_is_refused_without_running_code(tmp_path):
    minitorch.save(nn.Linear(2, 2), tmp_path / "m.pt")
    _forge(tmp_path / "m.pt", tmp_path / "forged.pt", "minitorch.nn.layers:Linear", "os:system")
    with pytest.raises(WeightsOnlyLoadError, match="os:system"):
        minitorch.load(tmp_path / "forged.pt")
    with pytest.raises(minitorch.errors.MiniTorchError, match="not a Module class"):
        minitorch.load(tmp_path / "forged.pt", weights_only=False)
    _forge(tmp_path / "m.pt", tmp_path / "bad.pt", "minitorch.nn.layers:Linear", "os:<lambda>")
    with pytest.raises(minitorch.errors.MiniTorchError, match="not an import name"):
        minitorch.load(tmp_path / "bad.pt", weights_only=False)


def test_save_model_runs_unchanged_under_run_as_torch(tmp_path):
    script = tmp_path / "whole.py"
    script.write_text(textwrap.dedent("""
        import torch
        from torch import nn
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(3, 2)
            def forward(self, x):
                return self.fc(x).relu()
        torch.manual_seed(0)
        net = Net()
        with torch.no_grad():
            net.fc.weight.copy_(torch.arange(6.0).reshape(2, 3) / 10)
        torch.save(net, "net.pt")
        again = torch.load("net.pt", weights_only=False)
        print(type(again).__name__, again(torch.ones(1, 3)).tolist() == net(torch.ones(1, 3)).tolist())
        try:
            torch.load("net.pt")
        except Exception as error:
            print(type(error).__name__)
    """))
    outputs = []
    for prefix in (["-m", "minitorch.run_as_torch"], []):
        done = subprocess.run([sys.executable, *prefix, script], capture_output=True, text=True, cwd=tmp_path,
                              timeout=120)
        assert done.returncode == 0, done.stderr
        outputs.append(done.stdout.split())
    assert outputs[0][:2] == outputs[1][:2] == ["Net", "True"]
    assert outputs[1][2] == "UnpicklingError" and outputs[0][2] == "WeightsOnlyLoadError"
