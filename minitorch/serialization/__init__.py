"""``minitorch.save`` / ``minitorch.load``: state dicts on disk without pickle.

PyTorch's ``torch.load`` unpickles, and unpickling a file can run any code. MiniTorch
writes a NumPy ``.npz`` archive instead: every array is one ``.npy`` entry, and the
structure around them (nested dicts and lists, numbers, strings) is a JSON document stored
as bytes in the entry ``__minitorch__``. Loading reads the zip entries and
``json.loads`` the header: neither can execute code. The careful reading of a file that may
be hostile or damaged (sizes checked before decompressing, dtypes, the header's structure)
lives in :mod:`minitorch.serialization.checkpoint_format`.
"""

import contextlib
import json
import os
import uuid

import numpy as np

from minitorch import backends
from minitorch.errors import MiniTorchError
from minitorch.nn.module import Module
from minitorch.serialization.checkpoint_format import (
    FORMAT_VERSION,
    HEADER,
    MAX_DEPTH,
    MAX_HEADER_BYTES,
    MAX_LOAD_BYTES,
    ArrayRef,
    read_checkpoint,
    unsupported_dtype,
)
from minitorch.serialization.whole_module import (  # noqa: F401  (torch.serialization's names for the safe-globals list)
    ModuleEncoder,
    WeightsOnlyLoadError,
    add_safe_globals,
    clear_safe_globals,
    get_safe_globals,
    lookup_table,
    names_in,
    rebuild,
    safe_globals,
)
from minitorch.tensor import Tensor


class SaveTargetError(MiniTorchError, IsADirectoryError):
    """``save`` was given a folder, not a file path (still an ``IsADirectoryError``, as before)."""


class NestingTooDeepError(MiniTorchError, RecursionError):
    """``save`` of dicts/lists nested past ``MAX_DEPTH`` (PyTorch's pickle raises RecursionError there)."""


def _encode(value, arrays, where="root", depth=0, modules=None):
    """A JSON-able description of ``value``; arrays go into ``arrays`` and are referenced by name.

    ``where`` (like ``root['opt']['state']``) locates ``value`` in error messages. A Module
    (``save(model)``) is written by ``modules``, one ``whole_module.ModuleEncoder`` per save,
    so tensors and layers shared between parts of the object stay shared.
    """
    if isinstance(value, Module):
        return modules.encode(value, where)
    if depth > MAX_DEPTH:  # load refuses deeper headers, so save does not write them
        shown = where if len(where) <= 120 else f"{where[:60]} ... {where[-50:]}"
        raise NestingTooDeepError(
            f"save: the object is nested more than {MAX_DEPTH} levels deep (at {shown}); save stores a state "
            "dict or a few levels of dicts/lists of tensors: does a dict or list contain itself?"
        )
    if isinstance(value, Tensor) or backends.is_backend_array(value):
        array = value.data if isinstance(value, Tensor) else value
        array = np.asarray(backends.to_device(array, "cpu"), order="C")  # keeps 0-d as 0-d
        reason = unsupported_dtype(array.dtype)
        if reason:  # refused now, rather than written to a file that load would refuse
            raise MiniTorchError(f"save: the array at {where} {reason}")
        name = f"a{len(arrays)}"
        arrays[name] = array
        return {"__array__": name, "tensor": isinstance(value, Tensor)}
    if isinstance(value, dict):
        items = []
        for k, v in value.items():
            if not isinstance(k, (str, int)) or isinstance(k, bool):
                raise MiniTorchError(f"save: dict keys must be str or int, got {type(k).__name__} {k!r}")
            items.append([k, _encode(v, arrays, f"{where}[{k!r}]", depth + 1, modules)])
        return {"__dict__": items}
    if isinstance(value, (list, tuple)):
        items = [_encode(v, arrays, f"{where}[{i}]", depth + 1, modules) for i, v in enumerate(value)]
        return {"__list__": items, "tuple": isinstance(value, tuple)}
    if isinstance(value, (np.integer, np.floating, np.bool_)):
        return value.item()
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise MiniTorchError(
        f"save: can't store a {type(value).__name__}; save stores Tensors, arrays, numbers, strings, "
        "Modules and dicts/lists of them (e.g. model.state_dict() or optimizer.state_dict())"
    )


def save(obj, f):
    """Write ``obj`` (a state dict, or nested dicts/lists of tensors and numbers) to ``f``.

    ``f`` is a path or a binary file object. The file is a ``.npz`` archive whatever its name.
    A whole Module (``save(model)``) is written as its class's import name, its attributes
    and its arrays; ``load`` rebuilds it only when told it may (see ``whole_module.py``).
    """
    arrays = {}
    modules = ModuleEncoder(lambda tensor, where: _encode(tensor, arrays, where))
    tree = {"format": "minitorch", "version": FORMAT_VERSION, "root": _encode(obj, arrays, modules=modules)}
    header = np.frombuffer(json.dumps(tree).encode("utf-8"), dtype=np.uint8)
    if header.nbytes > MAX_HEADER_BYTES:  # load would refuse it
        raise MiniTorchError(
            f"save: the non-array part of the object takes {header.nbytes} bytes as JSON, over the limit of "
            f"{MAX_HEADER_BYTES}; store long lists of numbers as a tensor or NumPy array instead"
        )
    if isinstance(f, (str, os.PathLike)):
        _write_atomically(os.fspath(f), lambda handle: np.savez(handle, **{HEADER: header}, **arrays))
    else:  # a file object (BytesIO, an open file): written in place, the caller owns it
        np.savez(f, **{HEADER: header}, **arrays)


def _write_atomically(path, write):
    """Call ``write(handle)`` on a new file next to ``path``, then rename it over ``path``.

    A save that fails half-way (a full disk, a quota, Ctrl-C) must not destroy the checkpoint
    it was replacing. So the bytes go to a temporary file in the same folder (a rename is only
    atomic within one file system), are flushed and fsync'ed to the disk, and only then does
    ``os.replace`` swap the new file in, in one step: a reader sees the old file or the new
    one, never a mix. If anything fails, the temporary file is removed and the old file is
    untouched. (``torch.save`` writes in place: a failure there leaves a truncated file.)
    """
    if os.path.isdir(path):
        raise SaveTargetError(
            f"save: {path!r} is a directory; save writes one file: give a file path such as "
            f"{os.path.join(path, 'checkpoint.pt')!r}"
        )
    target = os.path.realpath(path)  # a symlinked checkpoint: replace the file it points to
    folder, base = os.path.split(target)
    temporary = os.path.join(folder, f".{base}.{uuid.uuid4().hex[:12]}.tmp")
    # O_EXCL: never reuse an existing file; mode 0o666 minus the umask, as open(path, "wb") gives.
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "wb") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())  # on the disk before the rename makes it the checkpoint
        if os.path.exists(target):
            os.chmod(temporary, os.stat(target).st_mode & 0o7777)  # overwriting keeps the file's permissions
        os.replace(temporary, target)
    except BaseException:  # the error itself is raised as it was (a full disk: OSError ENOSPC)
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    _fsync_folder(folder)


def _fsync_folder(folder):
    """Make the rename itself durable (POSIX); skipped where folders cannot be opened (Windows)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def load(f, map_location=None, *, weights_only=None, max_bytes=None):
    """Read what ``save`` wrote. Tensors come back on the CPU, or on ``map_location``.

    ``f`` is a path or a seekable binary file object; a missing path raises ``FileNotFoundError``.
    Anything else that is not a readable MiniTorch checkpoint raises a ``MiniTorchError``
    naming the file and the problem: another kind of file (a CSV, a pickle, a PyTorch
    ``.pt``), a damaged or edited header, an array of a dtype MiniTorch does not support
    (only bool, int64, float32 and float64 load; float16 is refused, not widened), or
    arrays that would decompress to more than ``max_bytes``. Nothing in the file is ever
    executed: there is no pickle anywhere.

    ``max_bytes``: the most bytes the arrays may take once decompressed; the default
    ``MAX_LOAD_BYTES`` is 4 GiB. The sizes are checked before anything is decompressed, so
    a small "zip bomb" file cannot fill the memory. Raise it for a larger file you trust.

    ``weights_only``: as in PyTorch, True unless given. For a file of tensors and plain data
    (a state dict) it changes nothing. A file holding a whole Module (``save(model)``) is
    rebuilt only with ``weights_only=False`` (its class is imported by name, which runs that
    module's code) or when its classes are on ``add_safe_globals`` / ``safe_globals``' list;
    otherwise a ``WeightsOnlyLoadError`` (an ``UnpicklingError``) says so.
    """
    weights_only = True if weights_only is None else bool(weights_only)
    if max_bytes is None:
        max_bytes = MAX_LOAD_BYTES  # looked up now: minitorch.serialization.MAX_LOAD_BYTES may be changed
    if not isinstance(max_bytes, int) or isinstance(max_bytes, bool) or max_bytes <= 0:
        raise MiniTorchError(f"load: max_bytes must be a positive whole number of bytes, got {max_bytes!r}")
    root, arrays = read_checkpoint(f, max_bytes)
    device = None if map_location is None else backends.normalize_device(map_location)
    names = names_in(root)
    if not names:
        return _resolve(root, arrays, device)
    source = repr(os.fspath(f)) if isinstance(f, (str, os.PathLike)) else "the file"
    table = lookup_table(names, weights_only, source)
    return rebuild(root, table, lambda ref: _resolve(ref, arrays, device), {})


def _resolve(obj, arrays, device):
    """Put the arrays read from the file where the header's placeholders are."""
    if isinstance(obj, ArrayRef):
        array = arrays[obj.name]
        if not obj.tensor:
            return array  # plain arrays stay NumPy arrays, as they were saved
        return Tensor._make(array if device is None else backends.to_device(array, device), None, False)
    if isinstance(obj, dict):
        return {k: _resolve(v, arrays, device) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_resolve(v, arrays, device) for v in obj]
    if isinstance(obj, tuple):
        return tuple(_resolve(v, arrays, device) for v in obj)
    return obj
