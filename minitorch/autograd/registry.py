"""The built-in ops by name, and swapping a learner's backward into one of them.

Every ``Function`` subclass defined inside the ``minitorch`` package registers itself
under its class name when its module is imported, and ``import minitorch`` imports
every op module, so the registry is complete as soon as the package is loaded. Two
built-in ops with one name are refused. A learner's own ``class Mul(Function)`` (defined
outside the package) is not registered, so it never hides the built-in ``Mul``.

``override_backward(Mul, fn)`` makes the built-in op use a learner's backward from now
on (lessons do this once a check has passed); ``restore_backward`` puts the reference
back.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

# The values are Function subclasses. They are typed ``Any`` here because function.py
# imports this module (importing Function back, even for the checker, would be a cycle).
OpClass = Any

REGISTRY: dict[str, OpClass] = {}  # op name -> Function subclass, for the built-in ops
_OVERRIDDEN: set[OpClass] = set()  # ops whose backward is currently a learner's


def register(function: OpClass) -> OpClass:
    """Add a built-in op under its class name; a name already taken is an error."""
    name = function.__name__
    existing = REGISTRY.get(name)
    if existing is not None and existing is not function:
        raise TypeError(
            f"two built-in ops are named {name!r}: {existing.__module__}.{name} and "
            f"{function.__module__}.{name}; op names must be unique (the registry, the graph "
            "drawer and override_backward find ops by name)"
        )
    REGISTRY[name] = function
    return function


def override_backward(function: OpClass | str, backward: Callable[..., Any]) -> None:
    """Use ``backward(ctx, grad_output)`` for ``function`` (a Function class or its name).

    Nodes of that op created from now on are marked as computed by a learner's code in
    ``draw_graph``; ``restore_backward`` puts the reference implementation back.
    """
    function = resolve(function)
    function.backward = staticmethod(backward)
    function.backward_overridden = True
    _OVERRIDDEN.add(function)


def overridden_functions() -> list[OpClass]:
    """The ops whose backward is currently a learner's, as a list."""
    return list(_OVERRIDDEN)


def restore_backward(function: OpClass | str | None = None) -> None:
    """Put back the reference backward of ``function``, or of every op when None."""
    targets = list(_OVERRIDDEN) if function is None else [resolve(function)]
    for fn in targets:
        if fn.backward_overridden:
            fn.backward = staticmethod(fn.reference_backward)
            fn.backward_overridden = False
        _OVERRIDDEN.discard(fn)


def resolve(function: OpClass | str) -> OpClass:
    """The Function class for a class or a built-in op's name (a clear error otherwise)."""
    if isinstance(function, str):
        if function not in REGISTRY:
            raise KeyError(f"no op named {function!r}; known ops: {', '.join(sorted(REGISTRY))}")
        return REGISTRY[function]
    if isinstance(function, type) and hasattr(function, "reference_backward"):
        return function
    raise TypeError(f"expected a Function subclass or its name, got {function!r}")
