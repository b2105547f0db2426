"""``Backend``: what MiniTorch needs to know about one kind of device.

A backend carries its name (``"cpu"``, ``"cuda"``), its array library ``xp`` (a module
with NumPy's API: ``numpy`` or ``cupy``) and that library's array type. Ops only ever
call ``ctx.xp``, so the same op code runs on every backend; the few things that differ
between libraries (moving data, viewing without a copy, adding at repeated indices,
random numbers) are methods here.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any


class Backend:
    """One kind of device. Subclass it, fill in the attributes, and ``register`` an instance."""

    name: str = "?"  # the device string: tensor.device, .to(name)
    label: str = "device"  # how error messages call it ("GPU")
    is_host: bool = False  # data lives in host memory: reading values back costs nothing
    xp: ModuleType | None = None  # the array library, None until the backend is usable
    array_type: type | None = None  # the library's ndarray class, None until usable

    def probe(self) -> tuple[bool, str]:
        """``(usable, reason)``: whether this device can run ops now, and why not. Never raises."""
        return True, f"{self.name} is always available"

    def reset(self) -> None:
        """Forget what ``probe`` found, so the next call looks again (used by tests)."""

    # ------------------------------------------------------------------ moving data
    def upload(self, host_array: Any) -> Any:
        """A copy of the NumPy array ``host_array`` on this device."""
        raise NotImplementedError(f"{type(self).__name__}.upload")

    def download(self, array: Any) -> Any:
        """A NumPy copy of this device's ``array`` (waits for the device to finish it)."""
        raise NotImplementedError(f"{type(self).__name__}.download")

    # ------------------------------------------------------------------ library differences
    def reshape_view(self, array: Any, shape: tuple[int, ...]) -> Any:
        """A view of ``array`` with ``shape``, or None when that needs a copy (``torch.view``)."""
        view = array.view()
        try:
            view.shape = shape  # setting .shape never copies: it raises when strides can't express it
        except (AttributeError, ValueError):
            return None
        return view

    def index_add(self, target: Any, index: Any, values: Any) -> Any:
        """``target[index] += values`` in place, adding up repeated indices; returns target."""
        raise NotImplementedError(f"{type(self).__name__}.index_add")

    def uniform(self, shape: tuple[int, ...], dtype: Any) -> Any:
        """Uniform [0, 1) numbers of ``dtype`` on this device (dropout's masks)."""
        raise NotImplementedError(f"{type(self).__name__}.uniform")

    def check_on_device(self, bad: Any, error: Exception) -> None:
        """Raise ``error`` if the 0-d boolean array ``bad`` is True.

        Here, at once (reading a host value costs nothing). A device backend may instead
        remember the flag and raise at its next sync point, so that checking an index does
        not make Python wait for the device every step (the CUDA backend does).
        """
        if bool(bad):
            raise error

    def __repr__(self) -> str:
        return f"<backend {self.name!r}>"
