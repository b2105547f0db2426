"""``minitorch.save`` / ``minitorch.load``: state dicts on disk without pickle.

PyTorch's ``torch.load`` unpickles, and unpickling a file can run any code. MiniTorch
writes a NumPy ``.npz`` archive instead: every array is one ``.npy`` entry, and the
structure around them (nested dicts and lists, numbers, strings) is a JSON document stored
as bytes in the entry ``__minitorch__``. Loading uses ``numpy.load(allow_pickle=False)``
and ``json.loads``: neither can execute code.
"""

import json
import os
import zipfile

import numpy as np

from minitorch import backends
from minitorch.errors import MiniTorchError
from minitorch.tensor import Tensor

HEADER = "__minitorch__"
FORMAT_VERSION = 1


def _encode(value, arrays):
    """A JSON-able description of ``value``; arrays go into ``arrays`` and are referenced by name."""
    if isinstance(value, Tensor) or backends.is_backend_array(value):
        array = value.data if isinstance(value, Tensor) else value
        name = f"a{len(arrays)}"
        arrays[name] = np.asarray(backends.to_device(array, "cpu"), order="C")  # keeps 0-d as 0-d
        return {"__array__": name, "tensor": isinstance(value, Tensor)}
    if isinstance(value, dict):
        items = []
        for k, v in value.items():
            if not isinstance(k, (str, int)) or isinstance(k, bool):
                raise MiniTorchError(f"save: dict keys must be str or int, got {type(k).__name__} {k!r}")
            items.append([k, _encode(v, arrays)])
        return {"__dict__": items}
    if isinstance(value, (list, tuple)):
        return {"__list__": [_encode(v, arrays) for v in value], "tuple": isinstance(value, tuple)}
    if isinstance(value, (np.integer, np.floating, np.bool_)):
        return value.item()
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise MiniTorchError(
        f"save: can't store a {type(value).__name__}; save stores Tensors, arrays, numbers, strings "
        "and dicts/lists of them (e.g. model.state_dict() or optimizer.state_dict())"
    )


def _decode(value, archive):
    if isinstance(value, dict):
        if "__array__" in value:
            array = archive[value["__array__"]]
            return Tensor._make(array, None, False) if value["tensor"] else array
        if "__dict__" in value:
            return {k: _decode(v, archive) for k, v in value["__dict__"]}
        if "__list__" in value:
            items = [_decode(v, archive) for v in value["__list__"]]
            return tuple(items) if value["tuple"] else items
    return value


def save(obj, f):
    """Write ``obj`` (a state dict, or nested dicts/lists of tensors and numbers) to ``f``.

    ``f`` is a path or a binary file object. The file is a ``.npz`` archive whatever its name.
    """
    arrays = {}
    tree = {"format": "minitorch", "version": FORMAT_VERSION, "root": _encode(obj, arrays)}
    header = np.frombuffer(json.dumps(tree).encode("utf-8"), dtype=np.uint8)
    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as handle:  # an open file: np.savez would append ".npz" to a path
            np.savez(handle, **{HEADER: header}, **arrays)
    else:
        np.savez(f, **{HEADER: header}, **arrays)


def load(f, map_location=None):
    """Read what ``save`` wrote. Tensors come back on the CPU, or on ``map_location``.

    A file that is not a MiniTorch save (corrupt, truncated, a PyTorch ``.pt`` file) raises
    a ``MiniTorchError`` saying so; nothing in the file is ever executed.
    """
    name = os.fspath(f) if isinstance(f, (str, os.PathLike)) else getattr(f, "name", "<file object>")
    try:
        archive = np.load(f, allow_pickle=False)
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:
        raise MiniTorchError(
            f"load: {name} is not a MiniTorch checkpoint (it is not a readable .npz archive: {exc})"
        ) from exc
    if not isinstance(archive, np.lib.npyio.NpzFile):
        raise MiniTorchError(f"load: {name} holds a single NumPy array, not a MiniTorch checkpoint")
    with archive:
        try:
            if HEADER not in archive.files:
                hint = ""
                if any(n.endswith("data.pkl") for n in archive.files):
                    hint = (
                        " It looks like a PyTorch file; MiniTorch never unpickles. In PyTorch run "
                        "minitorch.save({k: v.numpy() for k, v in sd.items()}, path), or pass those "
                        "arrays straight to load_state_dict."
                    )
                raise MiniTorchError(
                    f"load: {name} is a zip/.npz archive without a MiniTorch header ('{HEADER}').{hint}"
                )
            tree = json.loads(archive[HEADER].tobytes().decode("utf-8"))
            if tree.get("format") != "minitorch" or "root" not in tree:
                raise MiniTorchError(f"load: {name} has an unknown header; was it written by minitorch.save?")
            arrays = {n: archive[n] for n in archive.files if n != HEADER}
        except MiniTorchError:
            raise
        except Exception as exc:  # a damaged entry: bad CRC, truncated data, invalid JSON...
            raise MiniTorchError(f"load: {name} is damaged and cannot be read ({type(exc).__name__}: {exc})") from exc
    obj = _decode(tree["root"], arrays)
    if map_location is not None:
        device = backends.normalize_device(map_location)
        obj = _to_device(obj, device)
    return obj


def _to_device(obj, device):
    if isinstance(obj, Tensor):
        return Tensor._make(backends.to_device(obj.data, device), None, False)
    if isinstance(obj, dict):
        return {k: _to_device(v, device) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_to_device(v, device) for v in obj]
    if isinstance(obj, tuple):
        return tuple(_to_device(v, device) for v in obj)
    return obj
