"""Tensor methods of the constructors in ``minitorch/factories.py``: ``new_zeros``, ``new_ones`` ...

Each makes a new tensor with this tensor's dtype and device unless told otherwise.
"""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING, Any

from minitorch import factories
from minitorch.tensor_base import TensorBase

if TYPE_CHECKING:  # the face, for annotations only: never imported at run time (no cycle)
    from minitorch.tensor import Tensor


class CreationMethods(TensorBase):
    """``Tensor.new_tensor``, ``new_zeros``, ``new_ones``, ``new_empty``, ``new_full``."""

    __slots__ = ()

    def new_tensor(
        self, data: Any, *, dtype: Any = None, device: Any = None, requires_grad: builtins.bool = False
    ) -> Tensor:
        """A new tensor from ``data``, with this tensor's dtype and device unless given."""
        return factories.tensor(data, dtype or self.dtype, device or self.device, requires_grad)

    def new_zeros(
        self, *size: Any, dtype: Any = None, device: Any = None, requires_grad: builtins.bool = False
    ) -> Tensor:
        """Zeros of ``size``, with this tensor's dtype and device unless given."""
        return factories.zeros(
            *size, dtype=dtype or self.dtype, device=device or self.device, requires_grad=requires_grad
        )

    def new_ones(
        self, *size: Any, dtype: Any = None, device: Any = None, requires_grad: builtins.bool = False
    ) -> Tensor:
        """Ones of ``size``, with this tensor's dtype and device unless given."""
        return factories.ones(
            *size, dtype=dtype or self.dtype, device=device or self.device, requires_grad=requires_grad
        )

    def new_empty(
        self, *size: Any, dtype: Any = None, device: Any = None, requires_grad: builtins.bool = False
    ) -> Tensor:
        """An uninitialised tensor of ``size``, with this tensor's dtype and device unless given."""
        return factories.empty(
            *size, dtype=dtype or self.dtype, device=device or self.device, requires_grad=requires_grad
        )

    def new_full(
        self, size: Any, fill_value: Any, *, dtype: Any = None, device: Any = None, requires_grad: builtins.bool = False
    ) -> Tensor:
        """``fill_value`` everywhere in ``size``, with this tensor's dtype and device unless given."""
        return factories.full(
            size, fill_value, dtype=dtype or self.dtype, device=device or self.device, requires_grad=requires_grad
        )
