"""The Tensor methods a DTensor refuses: each would compute on this rank's shard only.

``refuse_tensor_methods(DTensor)`` replaces every method (and operator) that ``Tensor``
has and ``DTensor`` does not define itself with one that raises, naming the method and
the way out (``to_local()``, ``full_tensor()``). What only reads a tensor's bookkeeping
(``requires_grad_``, hooks, ``numel``...) or Python's object machinery is kept.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from minitorch.tensor import Tensor

KEPT = {
    # Python's object machinery (copying, pickling, attribute access)
    "__class__", "__delattr__", "__dir__", "__getattribute__", "__getstate__", "__init_subclass__", "__new__",
    "__reduce__", "__reduce_ex__", "__setattr__", "__sizeof__", "__subclasshook__", "__str__", "__init__",
    # bookkeeping that does not read the values
    "requires_grad_", "retain_grad", "register_hook", "register_post_accumulate_grad_hook", "is_contiguous",
    "is_floating_point", "element_size",
}
REFUSED_PROPERTIES = ("T", "mT")


def refuse_tensor_methods(cls: type, refuse: Callable[[str], Any]) -> list[str]:
    """Make every Tensor method that ``cls`` does not define (and ``KEPT`` does not list) call ``refuse(name)``.

    Returns the names replaced.
    """
    replaced = []
    for name in dir(Tensor):
        if name in KEPT or name in vars(cls) or (name.startswith("_") and not name.startswith("__")):
            continue
        if not callable(getattr(Tensor, name, None)):
            continue
        setattr(cls, name, _refusing(name, refuse))
        replaced.append(name)
    for name in REFUSED_PROPERTIES:
        setattr(cls, name, property(_refusing(name, refuse)))
    return replaced


def _refusing(name: str, refuse: Callable[[str], Any]) -> Callable[..., Any]:
    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        return refuse(name)

    method.__name__ = name
    method.__doc__ = f"Refused on a DTensor: call .to_local() or .full_tensor() first, then .{name}."
    return method
