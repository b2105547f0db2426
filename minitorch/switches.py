"""The process-wide switches, in one object: grad mode, debug checks, anomaly detection,
fast kernels, the defaults for new tensors (dtype of Python floats, device of factories), and
the recorder of the step ``minitorch.compile`` is tracing, if any (``trace_hooks.py``).

Every other module reads them from ``SWITCHES`` (an attribute read is as cheap as it gets
on the hot path) and changes them only through the public functions and context managers
that own them (``no_grad``, ``set_debug``, ``detect_anomaly``, ``use_fast_kernels``).
Tests call ``SWITCHES.reset()`` to start from the defaults.

``MINITORCH_FAST_KERNELS=0`` in the environment before ``import minitorch`` starts the process
with the fast kernels off (and ``reset()`` keeps them off): every op then runs as written in
``minitorch/functions/``, the way the lessons teach it.
"""

from __future__ import annotations

import os
from types import TracebackType
from typing import Any


def _fast_kernels_from_environment() -> bool:
    """On, unless the environment says ``MINITORCH_FAST_KERNELS=0`` (or ``false``, ``no``, ``off``)."""
    return os.environ.get("MINITORCH_FAST_KERNELS", "1").strip().lower() not in ("0", "false", "no", "off")


FAST_KERNELS_AT_IMPORT = _fast_kernels_from_environment()  # read once, as the process starts


class Switches:
    """Named process-wide settings with their defaults; ``reset()`` restores the defaults."""

    __slots__ = (
        "grad_enabled", "debug", "anomaly", "fast_kernels", "default_dtype", "default_device", "autocast",
        "conv_design", "tracer",
    )

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Back to the defaults: recording on, no debug checks, no anomaly mode, fast kernels on
        (unless ``MINITORCH_FAST_KERNELS=0`` was in the environment at import)."""
        self.grad_enabled = True  # operations record the graph (off inside no_grad)
        self.debug = False  # check every backward's gradient count, shape and dtype
        self.anomaly = False  # remember forward stacks; stop at the first NaN/Inf gradient
        # ops take the fast paths registered in minitorch/kernels/ where they apply (off: the
        # reference ops of minitorch/functions/ only)
        self.fast_kernels = FAST_KERNELS_AT_IMPORT
        self.default_dtype = "float32"  # Python floats and float factories (set_default_dtype)
        self.default_device = "cpu"  # where factories put new tensors (set_default_device)
        self.autocast: tuple[str, str] | None = None  # (device type, dtype name) inside autocast
        # Which fast kernel conv2d takes (minitorch/kernels/cpu/conv.py): "im2col", "shifted"
        # (stride 1 only; else im2col) or "auto" (the faster one for the shape, as measured by
        # bench/train_cnn.py --designs). With the fast kernels off, every design is the op as written.
        self.conv_design = "auto"
        # The step minitorch.compile is recording now (a trace_hooks.Recorder), or None: the ops,
        # the engine and TensorBase tell it what the step does (minitorch/trace_hooks.py).
        self.tracer: Any = None

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)}" for name in self.__slots__)
        return f"Switches({fields})"


SWITCHES = Switches()


class use_fast_kernels:  # noqa: N801  (used like a function, as PyTorch's switches are)
    """Turn the fast kernels on or off; as a context manager, only inside the ``with``.

    ``minitorch.kernels.use_fast_kernels``; ``minitorch.cuda.use_custom_kernels`` is the same
    switch under the name the GPU lesson used (the hand-written CUDA kernels are fast kernels).
    """

    def __init__(self, enabled: bool = True) -> None:
        self.previous = SWITCHES.fast_kernels
        SWITCHES.fast_kernels = bool(enabled)

    def __enter__(self) -> use_fast_kernels:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None) -> None:
        SWITCHES.fast_kernels = self.previous


def fast_kernels_enabled() -> bool:
    """True when ops take their fast kernels where they apply (the default)."""
    return SWITCHES.fast_kernels
