"""``minitorch.cuda``: is a GPU usable, and (with CuPy) its memory pool."""

from minitorch import backend


def is_available():
    """True only when CuPy imports, a CUDA device exists and a tiny kernel runs. Never raises."""
    return backend.probe_gpu()[0]


def unavailable_reason():
    """Why ``is_available()`` is False (or a short description of the device when True)."""
    return backend.probe_gpu()[1]
