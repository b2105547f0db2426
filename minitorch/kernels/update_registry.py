"""The table of bulk update kernels: faster ways to run an optimizer's step, per class and device.

An optimizer in ``minitorch/optim/`` writes its update rule once, for one parameter:
``_update_parameter(p, grad, state, group)``, the formula a lesson teaches (PyTorch calls
it the single-tensor implementation). A *bulk update kernel* computes the same rule for a
whole parameter group at once, as PyTorch's ``foreach`` and ``fused`` implementations do.
It is registered here for one optimizer class and one device, with a predicate saying
which groups it takes::

    register_update(Adam, device="cpu", kind="foreach", applies=adam_flat_applies, step=adam_flat_step)

This is the op registry's idea (``registry.py``) for optimizers. ``Optimizer._update``
asks, for each group, ``Optimizer._choose_kernel``: the kernels of the optimizer's class
are tried in the order they were registered, and the first on the group's device whose
``applies(optimizer, group, params, grads, states)`` is true runs
``step(optimizer, group, params, grads, states)`` instead of the formula. ``params`` are
the group's parameters that have a gradient, ``grads`` their gradient arrays, ``states``
their state dicts, already made by ``_init_state``. None runs when ``SWITCHES.fast_kernels``
is off (``MINITORCH_FAST_KERNELS=0``), or the group says ``foreach=False``; ``fused=False``
rules out the kernels of kind ``"fused"``. A subclass inherits its parent's kernels (AdamW
runs Adam's) unless it writes its own ``_update_parameter``: a kernel computes the rule it
was registered with (``Kernel.rule``), so a changed rule runs as written. The optimizers
never import this package: the kernels import them and attach themselves.

The contract every update kernel keeps (``tests/kernels/test_optim_kernels.py`` checks it,
kernel by kernel, against the formula over several steps with each option it accepts):

- ``step`` leaves every parameter and its state as ``_update_parameter`` would, to
  rounding (the state's arrays updated in place, ``state["step"]`` counted), and bumps
  each parameter's version (``p._bump_version()``) as ``_update`` does after the formula.
- ``applies`` answers for the group as it is now; it runs right before ``step``, so it may
  also ready what ``step`` needs (the foreach kernels' flat buffers).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from minitorch.kernels.registry import DEVICES
from minitorch.optim.optimizer import Optimizer

KINDS = ("foreach", "fused")  # PyTorch's names for its two faster implementations


@dataclass(frozen=True)
class UpdateKernel:
    """One bulk update: for ``optimizer``'s ``rule`` on ``device``, where ``applies(...)`` is true."""

    optimizer: type[Optimizer]
    device: str
    kind: str  # "foreach" (a group as one flat array) or "fused" (one GPU kernel per parameter)
    applies: Callable[..., bool]
    step: Callable[..., None]
    rule: Callable[..., None]  # the optimizer's _update_parameter when registered: what step computes

    @property
    def name(self) -> str:
        """``'Adam/adam_foreach'``: the optimizer, and the function that does the work."""
        return f"{self.optimizer.__name__}/{getattr(self.step, '__name__', 'step')}"

    def __repr__(self) -> str:
        return f"<{self.kind} update kernel {self.name} on {self.device}>"


def register_update(
    optimizer: type[Optimizer],
    *,
    kind: str,
    applies: Callable[..., bool],
    step: Callable[..., None],
    device: str = "cpu",
) -> UpdateKernel:
    """Add a bulk update kernel for ``optimizer`` (after the ones already there) and return it."""
    if not (isinstance(optimizer, type) and issubclass(optimizer, Optimizer)):
        raise TypeError(f"register_update: optimizer must be an Optimizer subclass, got {optimizer!r}")
    if device not in DEVICES:
        raise ValueError(f"register_update: device must be one of {DEVICES}, got {device!r}")
    if kind not in KINDS:
        raise ValueError(f"register_update: kind must be one of {KINDS}, got {kind!r}")
    kernel = UpdateKernel(optimizer, device, kind, applies, step, optimizer._update_parameter)
    # The class's own tuple, made from the one it sees (its own or inherited): a subclass's
    # kernels never leak to its parent.
    optimizer._update_kernels = (*optimizer._update_kernels, kernel)
    return kernel


def unregister_update(kernel: UpdateKernel) -> None:
    """Remove a kernel added with ``register_update`` (tests use this for kernels they made)."""
    owner = kernel.optimizer
    owner._update_kernels = tuple(k for k in owner._update_kernels if k is not kernel)


def update_kernels_of(optimizer: type[Optimizer]) -> tuple[UpdateKernel, ...]:
    """The kernels tried for ``optimizer``'s groups (its own and inherited), in order."""
    return tuple(optimizer._update_kernels)


def all_update_kernels() -> list[UpdateKernel]:
    """Every registered update kernel, each once (``explain`` and the tests list them)."""
    found: list[UpdateKernel] = []
    classes = [Optimizer]
    while classes:
        cls = classes.pop(0)
        found.extend(k for k in cls.__dict__.get("_update_kernels", ()) if k.optimizer is cls)
        classes.extend(cls.__subclasses__())
    return found
