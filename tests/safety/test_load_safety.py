"""minitorch.load on hostile or malformed files: each one is refused with a clear MiniTorchError.

A catalogue of files that are not MiniTorch checkpoints, or that are checkpoints someone
damaged or edited. For each: the exception type, the key words of its message, the file's
name in the message, and never a suggestion to unpickle (the step MiniTorch exists to avoid).
"""

import io
import json
import os
import pickle
import tracemalloc
import zipfile

import numpy as np
import pytest

import minitorch
from minitorch import serialization
from minitorch.errors import MiniTorchError

FORBIDDEN = ("allow_pickle", "pickle.load")


# --- building files --------------------------------------------------------------------


def npy(array):
    """The bytes of a .npy file holding ``array`` (object arrays included, for the hostile cases)."""
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, np.asarray(array), allow_pickle=True)
    return buffer.getvalue()


def zip_of(entries, compression=zipfile.ZIP_STORED):
    """A zip archive of ``{name: bytes}``."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as zf:
        for name, data in entries.items():
            zf.writestr(name, data)
    return buffer.getvalue()


def checkpoint(root, arrays=None, header=None, entries=None):
    """A checkpoint whose header holds ``root`` (or the raw ``header`` text/bytes), with the
    arrays ``{name: array}`` and any raw zip ``entries`` ``{entry name: bytes}``."""
    if header is None:
        header = json.dumps({"format": "minitorch", "version": 1, "root": root})
    if isinstance(header, str):
        header = header.encode("utf-8")
    entries = {"__minitorch__.npy": npy(np.frombuffer(header, dtype=np.uint8)), **(entries or {})}
    entries.update({f"{name}.npy": npy(array) for name, array in (arrays or {}).items()})
    return zip_of(entries)


def tensor_ref(name="a0"):
    """A header node for a tensor stored in the entry ``name``, as save writes it."""
    return {"__array__": name, "tensor": True}


def encoded_dict(**items):
    """A header node for a dict, as save writes it."""
    return {"__dict__": [[k, v] for k, v in items.items()]}


def encoded_list(*items):
    return {"__list__": list(items), "tuple": False}


W = encoded_dict(w=tensor_ref())
ONES = {"a0": np.ones(2)}


def with_header(**tree):
    return checkpoint(None, {"a0": np.ones(2)}, header=json.dumps(tree))


def good_checkpoint():
    buffer = io.BytesIO()
    minitorch.save({"w": minitorch.ones(1000), "b": minitorch.zeros(3)}, buffer)
    return buffer.getvalue()


def corrupted_data():
    """A byte of the array data flipped: the zip entry's CRC no longer matches."""
    data = bytearray(good_checkpoint())
    data[-400] ^= 0xFF
    return bytes(data)


def lying_npy_header():
    """An entry whose .npy header declares 10**12 float64 values (8 TB) but holds 16 bytes."""
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(buffer, {"descr": "<f8", "fortran_order": False, "shape": (10**12,)})
    return checkpoint(W, entries={"a0.npy": buffer.getvalue() + bytes(16)})


def deep_lists(depth):
    node = 1
    for _ in range(depth):
        node = {"__list__": [node], "tuple": False}
    return node


def dev_zero(tmp_path):
    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero on this system")
    return "/dev/zero"


def pytorch_file(tmp_path):
    torch = pytest.importorskip("torch")
    path = tmp_path / "model.pt"
    torch.save(torch.nn.Linear(2, 2).state_dict(), path)
    return path


def pytorch_legacy_file(tmp_path):
    torch = pytest.importorskip("torch")
    path = tmp_path / "legacy.pt"
    torch.save(torch.nn.Linear(2, 2).state_dict(), path, _use_new_zipfile_serialization=False)
    return path


def case(content, *words, id, **load_kwargs):
    """One catalogue entry: file content (bytes, or a function of tmp_path giving a path)."""
    return pytest.param(content, words, load_kwargs, id=id)


CATALOGUE = [
    # Not a zip at all: said from the first bytes, without reading the whole file.
    case(b"a,b,c\n1,2,3\n", "not a MiniTorch checkpoint", "text file", "a,b,c", id="csv-text"),
    case(b'{"w": [1, 2]}', "not a MiniTorch checkpoint", "text file", id="json-text"),
    case(b"\x80\x04\x95\x00\x00\x00\x00", "Python pickle", "never unpickles", id="pickle-bytes"),
    case(pickle.dumps({"w": [1.0, 2.0]}), "Python pickle", "never unpickles", id="pickle-of-a-dict"),
    case(pickle.dumps({"w": 1}, protocol=2), "Python pickle", id="pickle-protocol-2"),
    case(dev_zero, "not a MiniTorch checkpoint", "all zero", id="dev-zero"),
    case(b"", "empty", id="empty-file"),
    case(b"\x00\x00\x00\x00", "all zero", id="zero-bytes"),
    case(npy(np.ones(3)), "single NumPy array", "numpy.load", id="npy-file"),
    case(b"\x1f\x8b\x08\x00" + bytes(20), "gzip", id="gzip-file"),
    case(b"\x89HDF\r\n\x1a\n" + bytes(8), "HDF5", id="hdf5-file"),
    case(bytes([0xDE, 0xAD, 0xBE, 0xEF, 1, 2, 3]), "does not start with 'PK'", "de ad be ef", id="binary-junk"),
    case(pytorch_legacy_file, "Python pickle", "PyTorch", id="pytorch-legacy-pickle"),
    # A zip, but not a readable checkpoint.
    case(good_checkpoint()[:300], "damaged", id="truncated-zip"),
    case(corrupted_data(), "damaged", "CRC", id="corrupted-data-crc"),
    case(zip_of({}), "without a MiniTorch header", id="empty-zip"),
    case(zip_of({"w.npy": npy(np.ones(3))}), "without a MiniTorch header", id="npz-without-header"),
    case(pytorch_file, "PyTorch file", "never unpickles", id="pytorch-pt-file"),
    # The header: invalid, or not the structure save writes.
    case(checkpoint(None, header="{not json"), "not valid JSON", id="header-invalid-json"),
    case(checkpoint(None, header=b"\xff\xfe{}"), "not UTF-8", id="header-not-utf8"),
    case(checkpoint(None, header="[1, 2]"), "unknown header", id="header-is-a-list"),
    case(with_header(format="pytorch", version=1, root=None), "unknown header", id="header-wrong-format"),
    case(with_header(format="minitorch", root=W), "missing ['version']", id="header-missing-version"),
    case(with_header(format="minitorch", version=2, root=None), "format version 2", "newer", id="header-version-2"),
    case(with_header(format="minitorch", version="1", root=None), "format version '1'", id="header-version-str"),
    case(with_header(format="minitorch", version=1, root=None, extra=1), "unexpected ['extra']", id="header-extra-key"),
    case(checkpoint(encoded_dict(w=tensor_ref("a7")), ONES), "does not contain", "'a7'", id="unknown-array-name"),
    case(checkpoint(encoded_dict(w=tensor_ref("__minitorch__")), ONES), "header itself", id="self-reference"),
    case(checkpoint(encoded_list(tensor_ref(), tensor_ref()), ONES), "named twice", id="array-named-twice"),
    case(checkpoint(encoded_dict(w={"__array__": 0, "tensor": True}), ONES), "not a string", id="array-name-not-str"),
    case(checkpoint(encoded_dict(w={"__array__": "a0"}), ONES), "missing ['tensor']", id="missing-tensor-flag"),
    case(checkpoint(encoded_dict(w={"__array__": "a0", "tensor": "yes"}), ONES), "'tensor'", "true or false",
         id="tensor-flag-not-bool"),
    case(checkpoint({"__dict__": [[["w"], 1]]}), "key ['w']", "str or int", id="list-as-dict-key"),
    case(checkpoint({"__dict__": [[True, 1]]}), "key True", id="bool-as-dict-key"),
    case(checkpoint({"__dict__": [["w"]]}), "[key, value] pair", id="dict-item-not-a-pair"),
    case(checkpoint({"__dict__": {"w": 1}}), "must be a list", id="dict-items-not-a-list"),
    case(checkpoint({"__dict__": [["w", 1], ["w", 2]]}), "key 'w' twice", id="duplicate-dict-key"),
    case(checkpoint({"__list__": [1], "tuple": 0}), "'tuple'", "true or false", id="tuple-flag-not-bool"),
    case(checkpoint({"__list__": [1]}), "missing ['tuple']", id="missing-tuple-flag"),
    case(checkpoint([1, 2]), "bare JSON list", id="bare-json-list"),
    case(checkpoint({"w": 1}), "keys ['w']", "save never writes", id="unknown-object-node"),
    case(checkpoint(deep_lists(200)), "nested too deeply", id="deep-nesting"),
    case(checkpoint(None, header='{"format": "minitorch", "version": 1, "root": ' + "[" * 100_000 + "]" * 100_000
                    + "}"), "nested too deeply", id="deep-json-nesting"),
    case(checkpoint(None, header='{"format": "minitorch", "version": 1, "root": ' + "9" * 5000 + "}"),
         "not valid JSON", id="header-huge-integer"),
    case(checkpoint(None, header=" " * 200), "over the limit", id="header-over-max-bytes", max_bytes=100),
    # The arrays: only bool, int64, float32 and float64, and sizes that add up.
    case(checkpoint(W, {"a0": np.ones(2, np.complex128)}), "'a0.npy'", "complex", id="complex-entry"),
    case(checkpoint(W, {"a0": np.array(["x", "y"])}), "'a0.npy'", "strings", id="str-entry"),
    case(checkpoint(W, {"a0": np.array([{"a": 1}], dtype=object)}), "Python objects", id="object-entry"),
    case(checkpoint(W, {"a0": np.array([2**63], np.uint64)}), "uint64", "int64", id="uint64-entry"),
    case(checkpoint(W, {"a0": np.ones(2, np.int32)}), "int32", "astype(np.int64)", id="int32-entry"),
    case(checkpoint(W, {"a0": np.zeros(2, [("x", "f4")])}), "structured", id="structured-entry"),
    case(checkpoint(W, {"a0": np.ones(2, np.longdouble)}), "cannot represent", id="longdouble-entry"),
    case(lying_npy_header(), "inconsistent", "declares shape (1000000000000,)", id="npy-shape-lies"),
    case(checkpoint(W, entries={"a0.npy": b"not an npy entry at all"}), "'a0.npy'", "not a NumPy .npy",
         id="entry-not-npy"),
    case(zip_of({"__minitorch__.npy": npy(np.ones(3))}), "not bytes", id="header-entry-not-bytes"),
    case(good_checkpoint(), "over the limit", "max_bytes", id="over-max-bytes", max_bytes=1000),
]


@pytest.mark.parametrize(("content", "words", "load_kwargs"), CATALOGUE)
def test_hostile_file_is_refused_clearly(tmp_path, content, words, load_kwargs):
    if callable(content):
        path = content(tmp_path)
    else:
        path = tmp_path / "suspect.mt"
        path.write_bytes(content)
    with pytest.raises(MiniTorchError) as info:
        minitorch.load(path, **load_kwargs)
    message = str(info.value)
    assert str(path) in message, message  # names the file
    for word in words:
        assert word in message, message
    for word in FORBIDDEN:  # never points at unpickling
        assert word not in message, message


# --- zip bombs: refused from the sizes the archive declares, before decompressing ----------


def zip_bomb(path, megabytes=64):
    """A checkpoint whose one array is ``megabytes`` MiB of zeros, deflated to ~1000 times smaller.

    Written in 1 MiB pieces, so building it never holds the whole array in memory.
    """
    header = json.dumps({"format": "minitorch", "version": 1, "root": W}).encode()
    array_header = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        array_header, {"descr": "<f8", "fortran_order": False, "shape": (megabytes * 2**20 // 8,)}
    )
    zeros = bytes(2**20)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("__minitorch__.npy", npy(np.frombuffer(header, dtype=np.uint8)))
        with zf.open("a0.npy", "w") as entry:
            entry.write(array_header.getvalue())
            for _ in range(megabytes):
                entry.write(zeros)
    return path


def test_zip_bomb_is_refused_before_decompressing(tmp_path):
    path = zip_bomb(tmp_path / "bomb.mt")
    assert path.stat().st_size < 2**20  # 64 MiB of zeros in well under 1 MiB
    tracemalloc.start()
    try:
        with pytest.raises(MiniTorchError) as info:
            minitorch.load(path, max_bytes=16 * 2**20)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    message = str(info.value)
    for word in (str(path), "64.0 MiB", "over the limit of 16.0 MiB", "zip bomb", "nothing was decompressed",
                 "max_bytes="):
        assert word in message, message
    assert peak < 4 * 2**20  # the 64 MiB array was never allocated


def test_the_default_limit_is_the_module_constant(tmp_path, monkeypatch):
    path = zip_bomb(tmp_path / "bomb.mt", megabytes=8)
    assert serialization.MAX_LOAD_BYTES == 4 * 2**30
    monkeypatch.setattr(serialization, "MAX_LOAD_BYTES", 2**20)  # stands in for a file over 4 GiB
    with pytest.raises(MiniTorchError, match="over the limit of 1.0 MiB"):
        minitorch.load(path)


def test_max_bytes_admits_a_large_file_you_trust(tmp_path):
    path = tmp_path / "big.mt"
    minitorch.save({"w": minitorch.ones(1000)}, path)
    with pytest.raises(MiniTorchError, match="over the limit"):
        minitorch.load(path, max_bytes=1000)
    assert minitorch.load(path, max_bytes=10_000)["w"].shape == (1000,)


@pytest.mark.parametrize("bad", [0, -1, 1.5, "1GB", True], ids=repr)
def test_max_bytes_must_be_a_positive_int(tmp_path, bad):
    path = tmp_path / "m.mt"
    minitorch.save({"w": minitorch.ones(2)}, path)
    with pytest.raises(MiniTorchError, match="max_bytes must be a positive whole number"):
        minitorch.load(path, max_bytes=bad)


# --- how the file is given ---------------------------------------------------------------


def test_a_missing_file_is_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        minitorch.load(tmp_path / "nope.mt")


@pytest.mark.parametrize("weights_only", [None, True, False])
def test_weights_only_is_accepted_and_changes_nothing(tmp_path, weights_only):
    path = tmp_path / "m.mt"
    minitorch.save({"w": minitorch.ones(2)}, path)
    loaded = minitorch.load(path, weights_only=weights_only)
    np.testing.assert_array_equal(loaded["w"].data, np.ones(2, np.float32))


def test_a_text_mode_file_is_refused(tmp_path):
    path = tmp_path / "m.mt"
    minitorch.save({"w": minitorch.ones(2)}, path)
    with open(path, encoding="latin-1") as handle, pytest.raises(MiniTorchError, match="binary mode"):
        minitorch.load(handle)


def test_a_stream_that_cannot_seek_is_refused():
    class Stream:  # like a socket or a pipe: read() only
        def read(self, n=-1):
            return b"PK\x03\x04"

    with pytest.raises(MiniTorchError, match="seekable") as info:
        minitorch.load(Stream())
    assert "io.BytesIO" in str(info.value)


def test_a_file_object_is_named_in_the_message(tmp_path):
    path = tmp_path / "notes.csv"
    path.write_text("a,b\n1,2\n")
    with open(path, "rb") as handle, pytest.raises(MiniTorchError, match="text file") as info:
        minitorch.load(handle)
    assert str(path) in str(info.value)
    with pytest.raises(MiniTorchError, match="<file object> is not a MiniTorch checkpoint"):
        minitorch.load(io.BytesIO(b"a,b\n1,2\n"))
