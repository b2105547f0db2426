"""The table of fast kernels: which op each one speeds up, on which device, and when.

An op in ``minitorch/functions/`` is the op as taught: forward and backward in plain array
math. A *fast kernel* is another way to compute the same thing, faster for some inputs (a
BLAS trick, cache-sized blocks, a hand-written CUDA kernel). It is registered here for one op
and one device, with a predicate saying which arguments it takes::

    register(Gelu, device="cpu", applies=is_float32_numpy, forward=gelu_forward_blocked,
             backward=gelu_backward_blocked)

``Function.apply`` asks the op's kernels in the order they were registered; the first whose
``applies(*forward_args)`` is true runs instead of the op's ``forward`` (and, if it has one,
its ``backward`` runs instead of the op's on that node). When none applies, when
``SWITCHES.fast_kernels`` is off (``MINITORCH_FAST_KERNELS=0``), or when a learner's backward
replaced the op's, the op runs as written. So the ops never import this package: the kernels
import the ops and attach themselves.

The contract every kernel keeps (``tests/kernels`` checks it, kernel by kernel):

- ``forward(ctx, *args)`` returns what the op's forward returns (to rounding), and leaves
  ``ctx`` as the op's forward does: the same ``save_for_backward`` values and the same
  settings (``ctx.axes = ...``). What only its own backward needs it keeps with
  ``ctx.save_for_kernel(...)``. The op's own backward can therefore always run on a node a
  kernel made (gradients of gradients run it).
- ``backward(ctx, grad)`` returns what the op's backward returns (to rounding).
- ``applies`` is cheap (it runs on every call) and looks only at what it needs: the
  arrays' dtype, shape, memory layout, and settings.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from minitorch.autograd.function import Function
from minitorch.autograd.registry import REGISTRY

DEVICES = ("cpu", "cuda")


@dataclass(frozen=True)
class Kernel:
    """One fast path: for ``op`` on ``device``, where ``applies(*forward_args)`` is true."""

    op: type[Function]
    device: str
    applies: Callable[..., bool]
    forward: Callable[..., Any] | None = None  # None: the op's own forward
    backward: Callable[..., Any] | None = None  # None: the op's own backward

    @property
    def name(self) -> str:
        """``'Gelu/gelu_forward_blocked'``: the op, and the function that does the work."""
        part = self.forward if self.forward is not None else self.backward
        return f"{self.op.__name__}/{getattr(part, '__name__', 'kernel')}"

    def __repr__(self) -> str:
        return f"<fast kernel {self.name} on {self.device}>"


def register(
    op: type[Function],
    *,
    applies: Callable[..., bool],
    device: str = "cpu",
    forward: Callable[..., Any] | None = None,
    backward: Callable[..., Any] | None = None,
) -> Kernel:
    """Add a fast kernel for ``op`` (after the ones already there) and return it."""
    if not (isinstance(op, type) and issubclass(op, Function)):
        raise TypeError(f"register: op must be a Function subclass, got {op!r}")
    if device not in DEVICES:
        raise ValueError(f"register: device must be one of {DEVICES}, got {device!r}")
    if forward is None and backward is None:
        raise ValueError(f"register: a kernel for {op.__name__} must replace its forward, its backward or both")
    kernel = Kernel(op, device, applies, forward, backward)
    op._kernels = (*op._kernels, kernel)
    return kernel


def unregister(kernel: Kernel) -> None:
    """Remove a kernel added with ``register`` (tests use this for kernels they made)."""
    kernel.op._kernels = tuple(k for k in kernel.op._kernels if k is not kernel)


def kernels_of(op: type[Function]) -> tuple[Kernel, ...]:
    """The kernels registered for ``op``, in the order they are tried."""
    return tuple(op._kernels)


def all_kernels() -> list[Kernel]:
    """Every registered kernel of every built-in op (``explain`` and the tests list them)."""
    return [kernel for op in REGISTRY.values() for kernel in op._kernels]
