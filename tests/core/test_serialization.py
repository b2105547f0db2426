"""minitorch.save / load: round trips, no pickle, clear errors for foreign or damaged files."""

import io
import zipfile

import numpy as np
import pytest

import minitorch
from minitorch import nn
from minitorch.errors import MiniTorchError


def test_state_dict_round_trip(tmp_path):
    model = nn.Sequential(nn.Linear(4, 3), nn.BatchNorm1d(3))
    model(minitorch.randn(5, 4))
    path = tmp_path / "model.mt"  # any file name: no ".npz" is appended
    minitorch.save(model.state_dict(), path)
    assert path.exists()
    loaded = minitorch.load(path)
    assert list(loaded) == list(model.state_dict())
    for key, value in model.state_dict().items():
        assert isinstance(loaded[key], minitorch.Tensor)
        assert loaded[key].dtype == value.dtype
        np.testing.assert_array_equal(loaded[key].data, value.data)
    fresh = nn.Sequential(nn.Linear(4, 3), nn.BatchNorm1d(3))
    fresh.load_state_dict(loaded)
    assert fresh[1].num_batches_tracked.item() == 1


def test_nested_structures_and_file_objects():
    obj = {"epoch": 3, "lr": 0.5, "name": "mlp", "flags": [True, None], "shape": (2, 3),
           "state": {0: {"step": 2, "buf": np.arange(3.0)}}, "w": minitorch.ones(2)}
    buffer = io.BytesIO()
    minitorch.save(obj, buffer)
    buffer.seek(0)
    out = minitorch.load(buffer)
    assert out["epoch"] == 3 and out["lr"] == 0.5 and out["name"] == "mlp"
    assert out["flags"] == [True, None] and out["shape"] == (2, 3)
    assert list(out["state"]) == [0] and out["state"][0]["step"] == 2
    np.testing.assert_array_equal(out["state"][0]["buf"], np.arange(3.0))
    assert isinstance(out["w"], minitorch.Tensor)


def test_file_holds_no_pickle(tmp_path):
    path = tmp_path / "m.npz"
    minitorch.save(nn.Linear(2, 2).state_dict(), path)
    with zipfile.ZipFile(path) as zf:
        assert all(name.endswith(".npy") for name in zf.namelist())
    with np.load(path, allow_pickle=False) as archive:  # readable by plain NumPy, no pickle
        assert "__minitorch__" in archive.files


def test_unsupported_values_are_refused(tmp_path):
    with pytest.raises(MiniTorchError, match="can't store a object"):
        minitorch.save({"x": object()}, tmp_path / "x")


def test_corrupt_and_foreign_files_give_clear_errors(tmp_path):
    garbage = tmp_path / "garbage.bin"
    garbage.write_bytes(b"definitely not a checkpoint")
    with pytest.raises(MiniTorchError, match="not a MiniTorch checkpoint"):
        minitorch.load(garbage)

    plain = tmp_path / "plain.npz"
    np.savez(plain, w=np.ones(3))
    with pytest.raises(MiniTorchError, match="without a MiniTorch header"):
        minitorch.load(plain)

    good = tmp_path / "good.npz"
    minitorch.save({"w": minitorch.ones(1000)}, good)
    truncated = tmp_path / "truncated.npz"
    truncated.write_bytes(good.read_bytes()[:300])
    with pytest.raises(MiniTorchError):
        minitorch.load(truncated)


def test_a_pytorch_file_is_refused_with_a_hint(tmp_path):
    torch = pytest.importorskip("torch")
    path = tmp_path / "model.pt"
    torch.save(torch.nn.Linear(2, 2).state_dict(), path)
    with pytest.raises(MiniTorchError, match="PyTorch file"):
        minitorch.load(path)


def test_map_location_keeps_cpu():
    buffer = io.BytesIO()
    minitorch.save({"w": minitorch.ones(2)}, buffer)
    buffer.seek(0)
    assert minitorch.load(buffer, map_location="cpu")["w"].device == "cpu"
