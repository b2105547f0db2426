"""Reading a MiniTorch checkpoint file defensively: the bytes, the zip entries, the header.

A checkpoint is a NumPy ``.npz`` archive (a zip file): one ``.npy`` entry per array, plus
the entry ``__minitorch__`` holding a JSON header that describes the saved object and
names its arrays. Nothing here unpickles or executes anything; on top of that, every
step assumes the file may be hostile or damaged, because checkpoints get downloaded:

* the first bytes are looked at before anything else, so a CSV, a pickle or ``/dev/zero``
  is named for what it is (and never read to the end);
* the header is checked against the exact structure ``minitorch.save`` writes;
* only the entries the header names are read, each one's size is checked *before* it is
  decompressed (a zip bomb is refused), and only MiniTorch's four dtypes are accepted.

Every problem raises a ``MiniTorchError`` naming the file and what is wrong with it.
"""

from __future__ import annotations

import io
import json
import math
import os
import struct
import zipfile
from collections import Counter
from typing import IO, Any, BinaryIO

import numpy as np

from minitorch import dtypes
from minitorch.errors import MiniTorchError
from minitorch.serialization.checkpoint_objects import OBJECT_KEYS, decode_object_node

HEADER = "__minitorch__"
FORMAT_VERSION = 1

# The most bytes the entries of one checkpoint may take once decompressed (header
# included). 4 GiB holds a model of about a billion float32 parameters; a larger
# checkpoint you trust can be read with ``minitorch.load(..., max_bytes=...)``.
MAX_LOAD_BYTES = 4 * 2**30
# The JSON header only names arrays and holds small numbers: real ones are kilobytes.
MAX_HEADER_BYTES = 16 * 2**20
# State dicts nest three or four levels; 100 is generous and far from Python's own limit.
MAX_DEPTH = 100

PREFIX_BYTES = 64  # how much of a file is read to tell what kind of file it is
_NPY_HEADER_LIMIT = 10_000  # NumPy's own limit on a .npy header (real ones are ~128 bytes)
_CHUNK = 16 * 2**20  # arrays are read in pieces, so no second full-size copy is made
_SUPPORTED = ", ".join(d.name for d in dtypes.ALL_DTYPES)


class ArrayRef:
    """A placeholder for an array in the decoded header, until the arrays are read."""

    def __init__(self, name: str, tensor: bool, where: str) -> None:
        self.name, self.tensor, self.where = name, tensor, where


def fmt_bytes(n: int) -> str:
    """``1536`` -> ``'1.5 KiB'``: sizes in messages a person can read."""
    size = float(n)
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{n} bytes" if unit == "bytes" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} bytes"


def describe_foreign(prefix: bytes) -> str | None:
    """What a file is, judged from its first bytes, or None if it starts like a zip/.npz.

    The phrases complete "it is not a MiniTorch checkpoint: ...". None of them suggests
    unpickling: a pickle can run any code, which is what MiniTorch's format avoids.
    """
    if prefix.startswith((b"PK\x03\x04", b"PK\x05\x06")):  # a zip entry, or an empty zip
        return None
    if not prefix:
        return "the file is empty (0 bytes)"
    if prefix[0] == 0x80 and len(prefix) > 1 and 2 <= prefix[1] <= 5:  # PROTO opcode
        return (
            "it is a Python pickle (so is PyTorch's older torch.save format). MiniTorch never "
            "unpickles files, because unpickling can run any code the file contains. Re-save the "
            "data with minitorch.save in the program that made it"
        )
    if prefix.startswith(b"\x93NUMPY"):
        return "it is a single NumPy array (a .npy file); read it with numpy.load and wrap it with minitorch.tensor"
    if prefix.startswith(b"\x1f\x8b"):
        return "it is gzip-compressed; decompress it first"
    if prefix.startswith(b"\x89HDF\r\n\x1a\n"):
        return "it is an HDF5 file (such as a Keras .h5 model)"
    if prefix[4:8] == bytes(4) and prefix[8:10] == b'{"':  # an 8-byte header length, then JSON
        return "it looks like a safetensors file"
    if not prefix.strip(b"\x00"):
        return f"its first {len(prefix)} bytes are all zero"
    text = _as_text(prefix)
    if text is not None:
        first_line = text.strip().splitlines()[0] if text.strip() else text
        return f"it is a text file (it starts with {first_line[:40]!r})"
    first = " ".join(f"{b:02x}" for b in prefix[:8])
    return f"it does not start with 'PK', as every zip/.npz archive does (its first bytes are {first})"


def _as_text(prefix: bytes) -> str | None:
    """``prefix`` as text if it reads as printable UTF-8 (its last character may be cut)."""
    for cut in range(4):  # a multi-byte character may straddle the end of the prefix
        try:
            text = prefix[: len(prefix) - cut].decode("utf-8")
        except UnicodeDecodeError:
            continue
        return text if all(c.isprintable() or c in "\t\r\n" for c in text) else None
    return None


def unsupported_dtype(dtype: np.dtype) -> str | None:
    """Why MiniTorch refuses arrays of ``dtype``, or None if it is one of MiniTorch's four.

    The rule is :func:`minitorch.dtypes.get_dtype`: only bool, int64, float16, float32 and
    float64 (in any byte order) are accepted; nothing is silently widened or cast.
    """
    try:
        dtypes.get_dtype(dtype.newbyteorder("="))
    except TypeError:
        pass  # not one of the four: say why below
    else:
        return None
    kind, name = dtype.kind, dtype.name
    supports = f"MiniTorch supports {_SUPPORTED}"
    if kind in "iu":
        why = " (uint64 values can be too large for int64)" if name == "uint64" else ""
        return f"holds {name} data{why}: {supports}. Convert it first, e.g. array.astype(np.int64)"
    if kind == "O":
        return f"holds Python objects (dtype object), which only pickle can store: {supports}"
    what = {"c": "complex numbers", "U": "strings", "S": "byte strings", "V": "structured records",
            "M": "dates", "m": "time spans"}.get(kind)
    what = f"{what} (dtype {dtype.str})" if what else f"{name} data"
    return f"holds {what}, which MiniTorch cannot represent: {supports}"


class CheckpointReader:
    """Reads one open checkpoint archive, with a byte budget for what it decompresses."""

    def __init__(self, archive: zipfile.ZipFile, name: str, max_bytes: int, file_bytes: int) -> None:
        self.archive, self.name, self.max_bytes, self.file_bytes = archive, name, max_bytes, file_bytes
        infos = archive.infolist()
        self.entries = {info.filename: info for info in infos}
        self.refs: dict[str, ArrayRef] = {}
        if len(self.entries) < len(infos):
            # zipfile would silently return the last of them: which one was meant is unknowable.
            twice = sorted(n for n, count in Counter(i.filename for i in infos).items() if count > 1)
            raise self.fail(
                f"the archive is damaged: it holds more than one entry named {', '.join(map(repr, twice))} "
                "(minitorch.save never writes that); refusing to guess which one is the checkpoint"
            )

    def fail(self, what: str) -> MiniTorchError:
        return MiniTorchError(f"load: {self.name}: {what}")

    # --- the header --------------------------------------------------------------------

    def read_header(self) -> Any:
        """The saved object, with an :class:`ArrayRef` wherever an array goes."""
        info = self.entries.get(HEADER + ".npy")
        if info is None:
            hint = ""
            if any(n.endswith("data.pkl") for n in self.entries):
                hint = (
                    " It looks like a PyTorch file; MiniTorch never unpickles. In PyTorch run "
                    "minitorch.save({k: v.numpy() for k, v in sd.items()}, path), or pass those "
                    "arrays straight to load_state_dict."
                )
            names = ", ".join(sorted(self.entries)[:5]) or "nothing"
            if len(self.entries) > 5:
                names += f" and {len(self.entries) - 5} more"
            raise MiniTorchError(
                f"load: {self.name} is a zip/.npz archive without a MiniTorch header ('{HEADER}'); "
                f"it holds {names}.{hint}"
            )
        limit = min(MAX_HEADER_BYTES, self.max_bytes)
        if info.file_size > limit:
            raise self.fail(f"its header is {fmt_bytes(info.file_size)}, over the limit of {fmt_bytes(limit)}")
        raw = self.read_npy(info, header=True)
        try:
            tree = json.loads(raw.tobytes().decode("utf-8"))
        except UnicodeDecodeError as exc:
            raise self.fail(f"its header is damaged: it is not UTF-8 text ({exc})") from exc
        except RecursionError as exc:
            raise self.fail(f"its header is nested too deeply (more than {MAX_DEPTH} levels)") from exc
        except ValueError as exc:  # json.JSONDecodeError, or an integer with too many digits
            raise self.fail(f"its header is damaged: it is not valid JSON ({exc})") from exc
        if not isinstance(tree, dict) or tree.get("format") != "minitorch":
            raise self.fail("it has an unknown header; was it written by minitorch.save?")
        self._expect_keys(tree, {"format", "version", "root"}, "the header")
        version = tree["version"]
        if version != FORMAT_VERSION or type(version) is not int:
            raise self.fail(
                f"its header has format version {version!r}; this MiniTorch reads version {FORMAT_VERSION} "
                "(was it written by a newer MiniTorch?)"
            )
        return self._decode(tree["root"], "root", 0)

    def _decode(self, node: Any, where: str, depth: int) -> Any:
        """Check one node of the header against what ``save`` writes, and decode it."""
        if depth > MAX_DEPTH:
            raise self.fail(f"its header is nested too deeply (more than {MAX_DEPTH} levels)")
        if node is None or isinstance(node, (bool, int, float, str)):
            return node
        if not isinstance(node, dict):
            raise self.fail(f"malformed header: {where} is a bare JSON {type(node).__name__}, which save never writes")
        if "__array__" in node:
            return self._array_ref(node, where)
        if OBJECT_KEYS.intersection(node):  # a whole Module's nodes: minitorch/serialization/checkpoint_objects.py
            return decode_object_node(self, node, where, depth)
        if "__dict__" in node:
            self._expect_keys(node, {"__dict__"}, where)
            out: dict[Any, Any] = {}
            for item in self._expect_list(node["__dict__"], f"{where} ('__dict__')"):
                if not isinstance(item, list) or len(item) != 2:
                    raise self.fail(f"malformed header: an item of the dict at {where} is not a [key, value] pair")
                key, value = item
                if not isinstance(key, (str, int)) or isinstance(key, bool):
                    raise self.fail(f"malformed header: the dict at {where} has a key {key!r}; keys are str or int")
                if key in out:
                    raise self.fail(f"malformed header: the dict at {where} has the key {key!r} twice")
                out[key] = self._decode(value, f"{where}[{key!r}]", depth + 1)
            return out
        if "__list__" in node:
            self._expect_keys(node, {"__list__", "tuple"}, where)
            is_tuple = self._expect_bool(node, "tuple", where)
            items = self._expect_list(node["__list__"], f"{where} ('__list__')")
            decoded = [self._decode(v, f"{where}[{i}]", depth + 1) for i, v in enumerate(items)]
            return tuple(decoded) if is_tuple else decoded
        raise self.fail(f"malformed header: {where} is an object with keys {sorted(node)}, which save never writes")

    def _array_ref(self, node: dict[str, Any], where: str) -> ArrayRef:
        self._expect_keys(node, {"__array__", "tensor"}, where)
        name, tensor = node["__array__"], self._expect_bool(node, "tensor", where)
        if not isinstance(name, str):
            raise self.fail(f"malformed header: the array name at {where} is {name!r}, not a string")
        if name == HEADER:
            raise self.fail(f"malformed header: {where} names the header itself as an array")
        if name + ".npy" not in self.entries:
            raise self.fail(f"malformed header: {where} names an array '{name}' that the archive does not contain")
        if name in self.refs:
            first = self.refs[name].where
            raise self.fail(f"malformed header: the array '{name}' is named twice ({first} and {where})")
        self.refs[name] = ArrayRef(name, tensor, where)
        return self.refs[name]

    def _expect_keys(self, node: dict[str, Any], keys: set[str], where: str) -> None:
        if set(node) != keys:
            missing, extra = sorted(keys - set(node)), sorted(set(node) - keys)
            raise self.fail(f"malformed header: {where} should have the keys {sorted(keys)} (missing {missing}, "
                            f"unexpected {extra})")

    def _expect_bool(self, node: dict[str, Any], key: str, where: str) -> bool:
        if not isinstance(node[key], bool):
            raise self.fail(f"malformed header: '{key}' at {where} must be true or false, got {node[key]!r}")
        return node[key]

    def _expect_list(self, value: Any, where: str) -> list[Any]:
        if not isinstance(value, list):
            raise self.fail(f"malformed header: {where} must be a list, got {type(value).__name__}")
        return value

    # --- the arrays --------------------------------------------------------------------

    def check_sizes(self) -> None:
        """Refuse, before decompressing anything, entries that would expand beyond the limit.

        The zip directory declares each entry's decompressed size; ``zipfile`` never returns
        more than that (and checks the CRC), so the declared sizes bound what is allocated.
        """
        infos = [self.entries[HEADER + ".npy"]] + [self.entries[name + ".npy"] for name in self.refs]
        total = sum(info.file_size for info in infos)
        if total <= self.max_bytes:
            return
        stored = max(sum(info.compress_size for info in infos), 1)
        bomb = ""
        if total // stored >= 100:
            bomb = (f" The file itself is {fmt_bytes(self.file_bytes)}: a {total // stored}:1 expansion, as in a zip "
                    "bomb (minitorch.save stores arrays uncompressed).")
        raise self.fail(
            f"its arrays would take {fmt_bytes(total)} once decompressed, over the limit of "
            f"{fmt_bytes(self.max_bytes)}; nothing was decompressed.{bomb} If you trust this file and have "
            "the memory, pass a larger max_bytes= to minitorch.load."
        )

    def read_array(self, ref: ArrayRef) -> np.ndarray:
        return self.read_npy(self.entries[ref.name + ".npy"], header=False, ref=ref)

    def read_npy(self, info: zipfile.ZipInfo, header: bool, ref: ArrayRef | None = None) -> np.ndarray:
        """One ``.npy`` entry: its header is checked (dtype, size) before the data is read."""
        entry = f"entry '{info.filename}'" + (f" (at {ref.where})" if ref else "")
        with self.archive.open(info) as fp:
            magic = self._read_exact(fp, 8, entry)
            if magic[:6] != b"\x93NUMPY" or magic[6] not in (1, 2):
                raise self.fail(f"{entry} is not a NumPy .npy array (version 1 or 2)")
            length_format = "<H" if magic[6] == 1 else "<I"
            length_bytes = self._read_exact(fp, struct.calcsize(length_format), entry)
            (length,) = struct.unpack(length_format, length_bytes)
            if length > _NPY_HEADER_LIMIT:  # read our bounded copy, so NumPy never reads a huge one
                raise self.fail(f"{entry} has a .npy header of {fmt_bytes(length)}, which is not plausible")
            npy_header = io.BytesIO(length_bytes + self._read_exact(fp, length, entry))
            parse = np.lib.format.read_array_header_1_0 if magic[6] == 1 else np.lib.format.read_array_header_2_0
            shape, fortran_order, dtype = parse(npy_header)  # NumPy's parser (a safe literal_eval)
            if header:
                if dtype != np.uint8 or len(shape) != 1:
                    raise self.fail(f"the header entry holds {dtype} data of shape {shape}, not bytes")
            else:
                reason = unsupported_dtype(dtype)
                if reason:
                    raise self.fail(f"{entry} {reason}")
            if any(n < 0 for n in shape):
                raise self.fail(f"{entry} declares an invalid shape {shape}")
            count = math.prod(shape)
            nbytes = count * dtype.itemsize
            stored = info.file_size - 8 - len(length_bytes) - length
            if nbytes != stored:  # also catches a huge declared shape in a small entry
                raise self.fail(
                    f"{entry} is inconsistent: its .npy header declares shape {shape} of {dtype} "
                    f"({fmt_bytes(nbytes)}), but the entry holds {fmt_bytes(max(stored, 0))} of data"
                )
            flat = np.empty(count, dtype=dtype)  # nbytes <= the entry's checked size
            raw = flat.view(np.uint8)  # the same memory, seen as bytes
            done = 0
            while done < nbytes:  # in pieces, so there is never a second full-size copy
                piece = fp.read(min(_CHUNK, nbytes - done))
                if not piece:
                    raise self.fail(f"{entry} is truncated")
                raw[done : done + len(piece)] = np.frombuffer(piece, dtype=np.uint8)
                done += len(piece)
        if not dtype.isnative:
            flat = flat.astype(dtype.newbyteorder("="))  # e.g. written on a big-endian machine
        return flat.reshape(shape, order="F" if fortran_order else "C")

    def _read_exact(self, fp: IO[bytes], n: int, entry: str) -> bytes:
        data = fp.read(n)
        if len(data) != n:
            raise self.fail(f"{entry} is truncated")
        return data


def read_checkpoint(f: Any, max_bytes: int) -> tuple[Any, dict[str, np.ndarray]]:
    """The decoded header (with :class:`ArrayRef` placeholders) and the arrays it names.

    ``f`` is a path (a missing one raises ``FileNotFoundError``) or a binary file object.
    """
    if isinstance(f, (str, bytes, os.PathLike)):
        with open(f, "rb") as handle:
            return _read(handle, os.fsdecode(f), max_bytes)
    name = getattr(f, "name", None)
    return _read(f, name if isinstance(name, str) else "<file object>", max_bytes)


def _read(handle: BinaryIO, name: str, max_bytes: int) -> tuple[Any, dict[str, np.ndarray]]:
    try:
        start = handle.tell()
        prefix = handle.read(PREFIX_BYTES)  # a bounded read: /dev/zero or a pipe is never read to the end
        handle.seek(start)
        file_bytes = handle.seek(0, io.SEEK_END) - start
        handle.seek(start)
    except (AttributeError, OSError) as exc:  # io.UnsupportedOperation is an OSError
        raise MiniTorchError(
            f"load: {name} must be a path or a seekable binary file (a zip archive is read from its end); "
            f"for a stream, read it into io.BytesIO first ({type(exc).__name__}: {exc})"
        ) from exc
    if isinstance(prefix, str):
        raise MiniTorchError(f"load: {name} is open in text mode; open it in binary mode: open(path, 'rb')")
    foreign = describe_foreign(prefix)
    if foreign:
        raise MiniTorchError(
            f"load: {name} is not a MiniTorch checkpoint: {foreign}. "
            "minitorch.load reads the .npz archives that minitorch.save writes."
        )
    try:
        with zipfile.ZipFile(handle) as archive:
            reader = CheckpointReader(archive, name, max_bytes, file_bytes)
            root = reader.read_header()
            reader.check_sizes()
            arrays = {ref.name: reader.read_array(ref) for ref in reader.refs.values()}
    except MiniTorchError:
        raise
    except Exception as exc:  # a truncated archive, a bad CRC, an encrypted entry, an odd .npy header...
        raise MiniTorchError(
            f"load: {name} is not a MiniTorch checkpoint, or is damaged: it cannot be read as a .npz "
            f"archive ({type(exc).__name__}: {exc})"
        ) from exc
    return root, arrays
