"""Watch the ``Tensor`` face's own methods, at run time, for calls from the layers below it.

Every tensor an op returns is a ``Tensor`` (``TensorBase._make`` creates the face class), so an
op *could* call ``x.reshape(...)`` or ``a * b`` on its inputs and work, while the import graph
says it never reaches up. ``watching_face_methods`` replaces each attribute that ``Tensor`` has
and ``TensorBase`` has not (methods, operators, properties such as ``.T``) with a wrapper that
notes every call made from a module below the face, then calls the original.
"""

import sys
from collections import Counter
from contextlib import contextmanager

from minitorch.tensor import Tensor
from minitorch.tensor_base import TensorBase

# The layers below the face: they use TensorBase and call other ops, never the face's methods.
BELOW_THE_FACE = ("minitorch.functions", "minitorch.autograd", "minitorch.tensor_base", "minitorch.factories",
                  "minitorch.backends", "minitorch.cuda")


def face_only_names():
    """The attributes ``Tensor`` adds to ``TensorBase`` (``__init_subclass__`` and the like aside)."""
    return sorted(set(dir(Tensor)) - set(dir(TensorBase)))


def _caller_below_the_face(depth):
    frame = sys._getframe(depth)
    module = frame.f_globals.get("__name__", "")
    if module.startswith(BELOW_THE_FACE):
        return f"{module}:{frame.f_lineno}"
    return None


def _watched_method(name, original, calls):
    def watched(*args, **kwargs):
        where = _caller_below_the_face(2)
        if where is not None:
            calls[(where, name)] += 1
        return original(*args, **kwargs)

    watched.__name__ = name
    return watched


def _watched_property(name, original, calls):
    def get(self):
        where = _caller_below_the_face(2)
        if where is not None:
            calls[(where, name)] += 1
        return original.__get__(self, type(self))

    return property(get, original.fset, original.fdel)


@contextmanager
def watching_face_methods():
    """Yield a Counter of ``(module:line, method)`` calls made from below the face meanwhile."""
    calls = Counter()
    saved = {}  # what Tensor itself held under each name (None: the name came from a mixin)
    for name in face_only_names():
        original = next(vars(c)[name] for c in Tensor.__mro__ if name in vars(c))
        if isinstance(original, property):
            watched = _watched_property(name, original, calls)
        elif isinstance(original, (staticmethod, classmethod)):
            continue
        else:
            watched = _watched_method(name, original, calls)
        saved[name] = vars(Tensor).get(name)
        setattr(Tensor, name, watched)
    try:
        yield calls
    finally:
        for name, before in saved.items():
            if before is None:
                delattr(Tensor, name)
            else:
                setattr(Tensor, name, before)
