"""``minitorch.device``: a device object, as ``torch.device``, that is also its name.

``device("cpu")``, ``device("cuda")``, ``device("cuda", 0)`` and ``device("cuda:0")``
work as in PyTorch, and so does ``device("cuda" if minitorch.cuda.is_available() else "cpu")``.
A ``device`` is a ``str`` holding its backend's name (``"cpu"``, ``"cuda"``), so it is
accepted wherever a device string is and compares equal to that string (PyTorch's does
not: ``torch.device("cpu") == "cpu"`` is False). ``Tensor.device`` returns one.
"""

from __future__ import annotations

from typing import Any

from minitorch.backends import registry


class device(str):  # noqa: N801 (PyTorch's name)
    """A device: ``.type`` is ``"cpu"`` or ``"cuda"``, ``.index`` the GPU number (or None)."""

    _index: int | None

    def __new__(cls, type: Any, index: int | None = None) -> device:  # noqa: A002 (PyTorch's name)
        if isinstance(type, device) and index is None:
            return type
        spec = type if index is None else f"{type}:{index}"
        name = registry.normalize_device(spec)
        obj = super().__new__(cls, name)
        if index is None and isinstance(type, str) and ":" in type:
            index = int(type.rsplit(":", 1)[1])
        obj._index = index
        return obj

    @property
    def type(self) -> str:
        """The kind of device: ``"cpu"`` or ``"cuda"``."""
        return str.__str__(self)

    @property
    def index(self) -> int | None:  # type: ignore[override]  # (str.index: PyTorch's name wins)
        """The device number (``0`` for ``"cuda:0"``), None when not given."""
        return self._index

    def __repr__(self) -> str:
        if self._index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self._index})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (device, (self.type, self._index))


_OF_TENSORS: dict[str, device] = {}


def device_of_tensor_data(name: str) -> device:
    """The ``device`` a tensor on backend ``name`` reports (one shared object per name)."""
    found = _OF_TENSORS.get(name)
    if found is None:
        backend = registry.get(name)
        found = _OF_TENSORS[name] = device(name, None if backend.is_host else 0)
    return found
