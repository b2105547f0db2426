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


@pytest.mark.parametrize("dtype", [np.bool_, np.int64, np.float32, np.float64], ids=lambda d: np.dtype(d).name)
def test_every_minitorch_dtype_round_trips(dtype):
    values = np.arange(6).reshape(2, 3).astype(dtype)
    obj = {"t": minitorch.tensor(values), "a": values, "scalar": minitorch.tensor(values[0, 0]),
           "empty": values[:0], "fortran": np.asfortranarray(values)}
    buffer = io.BytesIO()
    minitorch.save(obj, buffer)
    buffer.seek(0)
    out = minitorch.load(buffer)
    assert out["t"].dtype == minitorch.tensor(values).dtype and out["t"].data.dtype == dtype
    for key in ("a", "empty", "fortran"):
        assert out[key].dtype == dtype
        np.testing.assert_array_equal(out[key], obj[key])
    assert out["scalar"].shape == ()
    assert out["a"].flags.writeable  # loaded arrays are ordinary, writable arrays


def test_a_big_endian_entry_loads_as_native_float32():
    header = b'{"format": "minitorch", "version": 1, "root": {"__array__": "a0", "tensor": true}}'
    buffer = io.BytesIO()  # as save would write it on a big-endian machine
    np.savez(buffer, __minitorch__=np.frombuffer(header, dtype=np.uint8), a0=np.array([1.5, -2.0], dtype=">f4"))
    buffer.seek(0)
    out = minitorch.load(buffer)
    assert out.dtype == minitorch.float32 and out.data.dtype.isnative
    np.testing.assert_array_equal(out.data, [1.5, -2.0])


@pytest.mark.parametrize(
    ("array", "words"),
    [(np.ones(2, np.int32), "int32"), (np.ones(2, np.complex64), "complex")],
    ids=["int32", "complex64"],
)
def test_save_refuses_arrays_load_would_refuse(tmp_path, array, words):
    with pytest.raises(MiniTorchError, match=f"save: the array at root\\['opt'\\]\\[0\\] holds {words}"):
        minitorch.save({"opt": [array]}, tmp_path / "x")


def test_float16_round_trips(tmp_path):
    half = minitorch.tensor([1.5, -65504.0, 6e-8], dtype=minitorch.float16)
    minitorch.save({"w": half, "raw": np.ones(2, np.float16)}, tmp_path / "h")
    out = minitorch.load(tmp_path / "h")
    assert out["w"].dtype == minitorch.float16 and out["raw"].dtype == np.float16
    np.testing.assert_array_equal(out["w"].data, half.data)


def test_save_refuses_nesting_load_would_refuse(tmp_path):
    deep = 1
    for _ in range(150):
        deep = [deep]
    with pytest.raises(MiniTorchError, match="nested more than 100 levels"):
        minitorch.save(deep, tmp_path / "x")


def test_only_entries_named_by_the_header_are_read(tmp_path):
    path = tmp_path / "m.mt"
    minitorch.save({"w": minitorch.ones(2)}, path)
    with zipfile.ZipFile(path, "a") as zf:  # an extra entry nobody refers to (even a hostile one)
        zf.writestr("extra.npy", b"anything at all")
    assert list(minitorch.load(path)) == ["w"]
