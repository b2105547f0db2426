"""The installed CuPy's API, read by introspection, for the fake CuPy to answer to.

``fake_cupy.FakeCupy`` runs MiniTorch's GPU code on NumPy. So that it cannot accept what real
CuPy would refuse, every call made through it is checked here against the installed CuPy:

- the name must exist there (``cupy.X``, ``cupy.linalg.X``, ``cupyx.scipy.special.X``, a
  method of ``cupy.ndarray``): NumPy has many functions CuPy lacks;
- the arguments must bind to CuPy's signature: ``inspect.signature`` where Python can read
  it, else the signature CuPy's Cython functions print on the first line of their docstring
  (``_ndarray_base.astype(self, dtype, order='K', casting=None, subok=None, copy=True)``).

Without CuPy installed (``real()`` is None) nothing is checked: the fake is then as lenient
as NumPy, and ``test_kernel_sources.py`` says what to install.
"""

from __future__ import annotations

import functools
import inspect
import re

import cuda_source

MISSING = object()
# "name(params) -> result" or "Class.name(params)": what Cython's embedsignature writes.
_DOC_SIGNATURE = re.compile(r"^\s*[\w.]*\((?P<params>.*)\)\s*(->.*)?$")


def real():
    """The installed CuPy module, or None."""
    return cuda_source.installed_cupy()


def lookup(path):
    """The object at a dotted path inside the installed CuPy (``"cupy.linalg.norm"``), or MISSING."""
    cupy = real()
    if cupy is None:
        return MISSING
    parts = path.split(".")
    if parts[0] == "cupyx":
        obj = cuda_source.installed_cupyx()
    elif parts[0] == "cupy":
        obj = cupy
    else:
        return MISSING
    for part in parts[1:]:
        try:
            obj = getattr(obj, part)
        except Exception:  # an optional CUDA library that cannot load counts as missing
            return MISSING
    return obj


def require(path):
    """The CuPy object at ``path``; AttributeError naming it when the installed CuPy lacks it."""
    obj = lookup(path)
    if obj is MISSING and real() is not None:
        module, _, name = path.rpartition(".")
        raise AttributeError(f"fake cupy: {module} has no attribute {name!r} in the installed CuPy "
                             f"{real().__version__} (NumPy may have it; real CuPy does not)")
    return obj


@functools.cache
def _signature_of(obj):
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        sig = None
    if sig is not None:
        params = list(sig.parameters.values())
        if params and params[0].name == "self":  # an unbound method: called on an instance
            sig = sig.replace(parameters=params[1:])
        return sig
    doc = (getattr(obj, "__doc__", None) or "").strip().splitlines()
    match = _DOC_SIGNATURE.match(doc[0]) if doc else None
    if match is None:
        return None
    params = [_plain_parameter(p) for p in _split_top_level(match.group("params"))]
    params = [p for p in params if p]
    if params and params[0] == "self":
        params = params[1:]
    namespace = {}
    try:
        exec(f"def _f({', '.join(params)}): pass", {}, namespace)  # noqa: S102 - CuPy's own docstring
    except SyntaxError:
        return None
    return inspect.signature(namespace["_f"])


def signature(obj):
    """CuPy's signature of ``obj`` (``self`` left out), or None when it cannot be read."""
    try:
        return _signature_of(obj)
    except TypeError:  # unhashable
        return None


def _split_top_level(text):
    """``text`` split at the commas outside brackets and quotes."""
    parts, depth, quote, current = [], 0, None, []
    for char in text:
        if quote:
            quote = None if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append("".join(current))
            current = []
            continue
        current.append(char)
    parts.append("".join(current))
    return [p.strip() for p in parts if p.strip()]


def _plain_parameter(param):
    """A Cython parameter (``int device``, ``ndarray out=None``) as Python writes it (``device``)."""
    name, eq, default = param.partition("=")
    words = name.split()
    if not words:
        return ""
    plain = words[-1]
    return f"{plain}={default.strip()}" if eq else plain


def check_call(path, args, kwargs, obj=MISSING):
    """TypeError unless ``args``/``kwargs`` bind to the signature of CuPy's ``path``."""
    obj = require(path) if obj is MISSING else obj
    if obj is MISSING:
        return
    sig = signature(obj)
    if sig is None:
        return
    try:
        sig.bind(*args, **kwargs)
    except TypeError as exc:
        raise TypeError(f"fake cupy: {path}() called with {_shown(args, kwargs)}, which CuPy's "
                        f"signature {path}{sig} refuses: {exc}") from None


def _shown(args, kwargs):
    kinds = [type(a).__name__ for a in args] + [f"{k}=" for k in kwargs]
    return f"({', '.join(kinds)})"
